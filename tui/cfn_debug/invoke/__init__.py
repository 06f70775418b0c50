"""Lambda Invoke clients: local endpoints over HTTP (httpx) and deployed functions (boto3).

Both return a typed ``records.InvokeResult`` for every outcome and never raise for endpoint trouble.
"""

from __future__ import annotations

from cfn_debug.invoke.aws import AwsInvoker
from cfn_debug.invoke.base import Invoker, LogsHook
from cfn_debug.invoke.local import LocalInvoker
from cfn_debug.invoke.outcome import LAMBDA_RESPONSE_LIMIT, classify

__all__ = ["LAMBDA_RESPONSE_LIMIT", "AwsInvoker", "Invoker", "LocalInvoker", "LogsHook", "classify"]
