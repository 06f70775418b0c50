"""A function that calls AWS while its module is imported (before any invocation), as handlers
that build clients or look things up at import time do. Lambda's environment gives it no
credentials here, so the call fails; the failure is recorded all the same."""

from __future__ import annotations

from typing import Any

import boto3

try:
    IDENTITY = boto3.client("sts").get_caller_identity()["Arn"]
except Exception as error:  # the handler reports it
    IDENTITY = f"unknown ({type(error).__name__})"


def handler(event: Any, context: Any) -> dict[str, Any]:
    return {"identity": IDENTITY}
