"""AwsInvoker: the real boto3 Lambda client, pointed at a loopback server standing in for AWS."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cfn_debug.invoke.aws import AwsInvoker
from cfn_debug.records import OutcomeKind
from invoke.lambda_stub import LambdaStub, Reply
from support.ports import free_port


@pytest.fixture(autouse=True)
def aws_env(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.delenv("AWS_PROFILE", raising=False)


async def test_progress_event_log_tail_and_request_id() -> None:
    tail = base64.b64encode(b"START\nhandler says hi\nEND").decode()
    with LambdaStub() as stub:
        stub.functions["my-fn"] = lambda p: Reply(
            json.dumps({"status": "IN_PROGRESS", "callbackContext": {"n": p["n"]}}).encode(),
            200,
            {"X-Amz-Log-Result": tail, "x-amzn-RequestId": "aws-req-1"},
        )
        invoker = AwsInvoker("eu-west-1", endpoint_url=stub.url)
        result = await invoker.invoke("my-fn", b'{"n":3}')
    assert result.kind is OutcomeKind.PROGRESS
    assert result.progress == {"status": "IN_PROGRESS", "callbackContext": {"n": 3}}
    assert result.logs == ["START", "handler says hi", "END"]
    assert result.request_id == "aws-req-1"
    headers = {k.lower(): v for k, v in stub.received[0].headers.items()}
    assert headers["x-amz-log-type"] == "Tail"
    assert headers["authorization"].startswith("AWS4-HMAC-SHA256")


async def test_function_error_unhandled_and_task_timed_out() -> None:
    crash = {"errorMessage": "boom", "errorType": "KeyError", "stackTrace": ["  File x\n"]}
    timeout = {"errorMessage": "RequestId: 1 Error: Task timed out after 60.00 seconds"}
    with LambdaStub() as stub:
        stub.functions["crash"] = lambda _p: Reply(
            json.dumps(crash).encode(), 200, {"X-Amz-Function-Error": "Unhandled"}
        )
        stub.functions["slow"] = lambda _p: Reply(
            json.dumps(timeout).encode(), 200, {"X-Amz-Function-Error": "Unhandled"}
        )
        invoker = AwsInvoker("us-east-1", endpoint_url=stub.url, log_tail=False)
        crashed = await invoker.invoke("crash", b"{}")
        timed_out = await invoker.invoke("slow", b"{}")
    assert crashed.kind is OutcomeKind.CRASH
    assert (crashed.error_type, crashed.error_message) == ("KeyError", "boom")
    assert crashed.stack_trace == ["  File x"]
    assert timed_out.kind is OutcomeKind.TIMEOUT
    assert "Task timed out after 60.00 seconds" in (timed_out.error_message or "")


async def test_arn_and_missing_function() -> None:
    arn = "arn:aws:lambda:us-east-1:123456789012:function:missing"
    with LambdaStub() as stub:
        result = await AwsInvoker("us-east-1", endpoint_url=stub.url).invoke(arn, b"{}")
    assert stub.received[0].function.endswith("missing")
    assert result.kind is OutcomeKind.HTTP_ERROR
    assert result.error_type == "ResourceNotFound"
    assert "Function not found" in (result.error_message or "")


async def test_unreachable() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    result = await AwsInvoker("us-east-1", endpoint_url=url).invoke("f", b"{}")
    assert result.kind is OutcomeKind.UNREACHABLE
    assert "cannot reach AWS Lambda" in (result.error_message or "")


def test_a_local_run_s_modules_load_no_boto3() -> None:
    """boto3 (a few hundred ms of imports) loads with cfn_debug.invoke.aws only, which the
    engine imports for ``--endpoint aws`` alone: not on a local run's way to its first request."""
    local_run = (
        "cfn_debug.cli",
        "cfn_debug.headless.command",
        "cfn_debug.connect",
        "cfn_debug.workspace",
        "cfn_debug.chain",
        "cfn_debug.invoke",
    )
    code = f"import sys\nfor m in {local_run!r}: __import__(m)\nprint('boto3' in sys.modules)\n"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "tui")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "False"
