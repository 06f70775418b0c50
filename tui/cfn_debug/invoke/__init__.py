"""Lambda Invoke clients: local endpoints over HTTP (local.py: h11 or httpx) and deployed
functions (aws.py: boto3, imported only by a run that talks to AWS, so not from here).

Both return a typed ``records.InvokeResult`` for every outcome and never raise for endpoint trouble.
"""

from __future__ import annotations

from cfn_debug.invoke.base import Invoker, LogsHook
from cfn_debug.invoke.local import LocalInvoker
from cfn_debug.invoke.outcome import LAMBDA_RESPONSE_LIMIT, classify

__all__ = ["LAMBDA_RESPONSE_LIMIT", "Invoker", "LocalInvoker", "LogsHook", "classify"]
