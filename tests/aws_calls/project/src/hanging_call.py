"""A function whose AWS call never gets an answer: the endpoint it calls (HANG_URL) accepts the
connection and says nothing, so the function runs out of time inside the call."""

from __future__ import annotations

import os
from typing import Any

import boto3
from botocore.config import Config


def handler(event: Any, context: Any) -> dict[str, Any]:
    sqs = boto3.client(
        "sqs",
        endpoint_url=os.environ["HANG_URL"],
        region_name="us-east-1",
        aws_access_key_id="fixture",
        aws_secret_access_key="fixture",
        config=Config(read_timeout=60, retries={"max_attempts": 0}),
    )
    return sqs.list_queues(QueueNamePrefix="records")
