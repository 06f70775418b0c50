"""Invoke functions deployed in AWS with boto3 (run in a thread: boto3 is synchronous).

This module imports boto3: import it only where a run talks to AWS (cfn_debug.connect does,
for ``--endpoint aws``), never on the way to a local run's first request.
"""

from __future__ import annotations

import asyncio
import base64
import time
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    NoRegionError,
    ReadTimeoutError,
)

from cfn_debug.invoke.outcome import DEFAULT_BODY_CAP, classify
from cfn_debug.records import InvokeResult, OutcomeKind


class AwsInvoker:
    """Lambda Invoke through boto3, by function name or ARN.

    ``log_tail`` asks Lambda for the last 4 KB of the invocation's log (LogType Tail), which
    becomes the result's log lines. ``endpoint_url`` points the client elsewhere (tests,
    LocalStack).
    """

    def __init__(
        self,
        region: str | None = None,
        profile: str | None = None,
        *,
        log_tail: bool = True,
        endpoint_url: str | None = None,
        read_timeout_s: float = 900.0,
    ) -> None:
        self.region = region
        self.profile = profile
        self.label = f"aws:{region or 'default region'}"
        if profile:
            self.label += f" (profile {profile})"
        self._log_tail = log_tail
        self._endpoint_url = endpoint_url
        self._read_timeout_s = read_timeout_s
        self._client: Any = None

    def _lambda(self) -> Any:
        if self._client is None:
            session = boto3.Session(profile_name=self.profile, region_name=self.region)
            self._client = session.client(
                "lambda",
                endpoint_url=self._endpoint_url,
                config=Config(
                    read_timeout=self._read_timeout_s,
                    connect_timeout=5,
                    retries={"total_max_attempts": 1},
                ),
            )
        return self._client

    async def invoke(self, function_name: str, body: bytes) -> InvokeResult:
        return await asyncio.to_thread(self._invoke_sync, function_name, body)

    def _invoke_sync(self, function_name: str, body: bytes) -> InvokeResult:
        started = time.perf_counter()
        try:
            kwargs: dict[str, Any] = {
                "FunctionName": function_name,
                "InvocationType": "RequestResponse",
                "Payload": body,
            }
            if self._log_tail:
                kwargs["LogType"] = "Tail"
            response = self._lambda().invoke(**kwargs)
            raw = response["Payload"].read(DEFAULT_BODY_CAP + 1)
            duration = time.perf_counter() - started
        except (EndpointConnectionError, ConnectTimeoutError) as exc:
            return InvokeResult(
                OutcomeKind.UNREACHABLE,
                duration_s=time.perf_counter() - started,
                error_type=type(exc).__name__,
                error_message=f"cannot reach AWS Lambda: {exc}",
            )
        except ReadTimeoutError:
            return InvokeResult(
                OutcomeKind.TIMEOUT,
                duration_s=time.perf_counter() - started,
                error_message=f"no answer from AWS Lambda within {self._read_timeout_s:g} s",
            )
        except (NoCredentialsError, NoRegionError) as exc:
            return InvokeResult(
                OutcomeKind.HTTP_ERROR,
                duration_s=time.perf_counter() - started,
                error_type=type(exc).__name__,
                error_message=f"{exc} (give --profile and --region)",
            )
        except ClientError as exc:
            error = exc.response.get("Error", {})
            meta = exc.response.get("ResponseMetadata", {})
            return InvokeResult(
                OutcomeKind.HTTP_ERROR,
                duration_s=time.perf_counter() - started,
                http_status=meta.get("HTTPStatusCode"),
                error_type=error.get("Code"),
                error_message=f"{error.get('Code', 'Error')}: {error.get('Message', exc)}",
                request_id=meta.get("RequestId"),
            )
        except BotoCoreError as exc:
            return InvokeResult(
                OutcomeKind.HTTP_ERROR,
                duration_s=time.perf_counter() - started,
                error_type=type(exc).__name__,
                error_message=str(exc),
            )
        meta = response.get("ResponseMetadata", {})
        result = classify(
            raw[:DEFAULT_BODY_CAP],
            duration_s=duration,
            http_status=response.get("StatusCode", 200),
            function_error=response.get("FunctionError"),
            request_id=meta.get("RequestId"),
            total_bytes=len(raw),
            function_name=function_name,
        )
        tail = response.get("LogResult")
        if tail:
            result.logs = base64.b64decode(tail).decode("utf-8", errors="replace").splitlines()
        return result

    async def aclose(self) -> None:
        self._client = None

    def close(self) -> None:
        self._client = None


def known_region(function_name: str, profile: str | None) -> bool:
    """Whether boto3 knows a region to invoke ``function_name`` in without --region: the
    function's ARN names one, or the environment or the profile does."""
    if function_name.startswith("arn:") and len(function_name.split(":")) > 3:
        return bool(function_name.split(":")[3])
    try:
        return bool(boto3.Session(profile_name=profile).region_name)
    except BotoCoreError:  # an unknown profile: the invoker says so with its own message
        return True
