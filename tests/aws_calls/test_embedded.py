"""The AWS calls a real handler makes, recorded in the worker and carried on each step.

The fixture type (project/) is written with cloudformation-cli-python-lib and calls DynamoDB,
S3, SQS and Secrets Manager through the library's per-call boto3 session, against a real moto
server on loopback.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from cfn_debug.aws_calls import AwsCall
from cfn_debug.chain import ChainOptions
from cfn_debug.events import load_event
from cfn_debug.records import Level, RunEnded, RunRecord
from cfn_debug.text.redact import REDACTED
from cfn_debug.workspace import Workspace

from .conftest import BUCKET, PROJECT, QUEUE, TABLE, env_vars, write_event

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=["awslambdaric", "portable"])
def workspace(moto_url: str, request: pytest.FixtureRequest) -> Iterator[Workspace]:
    """The fixture project on the embedded endpoint, with each runtime loop in turn."""
    variables = env_vars(moto_url)
    variables["Parameters"]["CFN_DEBUG_BOOTSTRAP"] = request.param
    ws = Workspace.open(PROJECT, env_vars=variables)
    yield ws
    ws.close()


def run(workspace: Workspace, path: Path) -> RunRecord:
    async def go() -> RunRecord:
        async for event in workspace.run(load_event(path), ChainOptions(max_reinvoke=3)):
            if isinstance(event, RunEnded):
                return event.run
        raise AssertionError("no RunEnded")

    return asyncio.run(go())


def test_each_aws_call_of_a_step_is_recorded(workspace: Workspace, tmp_path: Path) -> None:
    model = {"Name": "r1", "TableName": TABLE, "BucketName": BUCKET, "QueueName": QUEUE}
    record = run(workspace, write_event(tmp_path, "create", "CREATE", model))
    assert record.final_status == "SUCCESS", record.steps[-1].result
    calls = record.steps[0].aws_calls
    assert [c.name for c in calls] == [
        "dynamodb PutItem",
        "s3 PutObject",
        "sqs GetQueueUrl",
        "sqs SendMessage",
    ]
    assert all(c.http_status == 200 and not c.failed and c.duration_ms > 0 for c in calls)
    put = calls[0]
    assert put.params == {"TableName": TABLE, "Item": {"Name": {"S": "r1"}}}
    assert calls[1].params["Body"] == "<6 bytes>"
    assert not any(c.raised for c in calls)
    # none of the record lines is left in the handler's logs
    assert not any("__cfn_debug_aws__" in line for line in record.steps[0].result.logs)
    assert any("creating record r1" in line for line in record.steps[0].result.logs)


def test_a_failing_call_is_named_in_the_finding_and_marked_raised(
    workspace: Workspace, tmp_path: Path
) -> None:
    model = {"Name": "r2", "TableName": "no-such-table"}
    record = run(workspace, write_event(tmp_path, "create-missing", "CREATE", model))
    step = record.steps[0]
    assert step.result.status == "FAILED"
    (call,) = step.aws_calls
    assert call == AwsCall(
        "dynamodb",
        "PutItem",
        {"TableName": "no-such-table", "Item": {"Name": {"S": "r2"}}},
        http_status=400,
        error_code="ResourceNotFoundException",
        error_message=call.error_message,
        duration_ms=call.duration_ms,
        raised=True,
    )
    assert call.error_message and "not found" in call.error_message.lower()
    messages = [f.message for f in step.findings if f.level is Level.MUST]
    expected = f"dynamodb PutItem failed: ResourceNotFoundException: {call.error_message}"
    assert any(expected in message for message in messages), messages


def test_sensitive_parameters_are_masked(workspace: Workspace, tmp_path: Path) -> None:
    secret = "hunter2-the-record-secret"
    name = f"r3-{uuid.uuid4().hex[:8]}"  # the moto server lives for the whole test session
    model = {"Name": name, "TableName": TABLE, "Secret": secret}
    record = run(workspace, write_event(tmp_path, "create-secret", "CREATE", model))
    calls = record.steps[0].aws_calls
    create = next(c for c in calls if c.operation == "CreateSecret")
    assert create.service == "secretsmanager" and create.http_status == 200
    assert create.params == {"Name": f"record/{name}", "SecretString": REDACTED}
    assert secret not in repr(record.to_dict()["steps"][0]["aws_calls"])
    assert not any(secret in line for line in record.steps[0].result.logs)


def test_a_handler_without_aws_calls_has_none(workspace: Workspace, tmp_path: Path) -> None:
    model = {"Name": "absent", "TableName": TABLE}
    record = run(workspace, write_event(tmp_path, "read", "READ", model))
    step = record.steps[0]
    assert step.result.status == "FAILED"
    (call,) = step.aws_calls
    assert call.name == "dynamodb GetItem" and not call.failed and not call.raised
    # a handled FAILED NotFound (with its message) is no finding, and names no AWS call
    assert not [f for f in step.findings if "AWS call" in f.message]


def test_a_call_made_while_the_handler_module_is_imported_is_kept(moto_url: str) -> None:
    from cfn_debug.endpoint.server import EmbeddedEndpoint

    with EmbeddedEndpoint(PROJECT, env_vars=env_vars(moto_url)) as endpoint:
        pool = endpoint.pool("ImportCall")
        assert pool is not None
        status, body, _ = endpoint.invoke(pool, "req-import", b"{}")
        assert status == 200 and b"NoCredentialsError" in body
        (call,) = endpoint.aws_calls_for("req-import")
    assert (call["service"], call["operation"], call["http_status"]) == (
        "sts",
        "GetCallerIdentity",
        None,
    )
    assert call["error_code"] == "NoCredentialsError"


def test_a_call_still_waiting_when_the_function_times_out_is_named(
    moto_url: str, tmp_path: Path
) -> None:
    import socket

    from cfn_debug.records import OutcomeKind

    with socket.socket() as silent:  # accepts connections (the kernel does), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        ws = Workspace.open(
            PROJECT,
            function_name="HangingCall",
            env_vars={"Parameters": {"AWS_ENDPOINT_URL": moto_url, "HANG_URL": url}},
        )
        try:
            model = {"Name": "h", "TableName": TABLE}
            record = run(ws, write_event(tmp_path, "hang", "CREATE", model))
        finally:
            ws.close()
    step = record.steps[0]
    assert step.result.kind is OutcomeKind.TIMEOUT
    (call,) = step.aws_calls
    assert (call.name, call.http_status, call.error_code) == ("sqs ListQueues", None, None)
    assert call.unanswered and call.duration_ms > 500
    note = "the AWS call still waiting for its answer: sqs ListQueues: no answer before"
    assert any(note in finding.message for finding in step.findings), step.findings


def test_a_crash_on_an_aws_error_names_the_call(moto_url: str, tmp_path: Path) -> None:
    from cfn_debug.records import OutcomeKind

    ws = Workspace.open(PROJECT, function_name="RawPut", env_vars=env_vars(moto_url))
    try:
        record = run(ws, write_event(tmp_path, "raw", "CREATE", {"Name": "x", "TableName": "t"}))
    finally:
        ws.close()
    step = record.steps[0]
    assert step.result.kind is OutcomeKind.CRASH
    limits, put = step.aws_calls
    assert (limits.operation, limits.failed, limits.raised) == ("DescribeLimits", False, False)
    assert (put.operation, put.error_code, put.raised) == (
        "PutItem",
        "ResourceNotFoundException",
        True,
    )
    (finding,) = [f for f in step.findings if f.rule_id == "invocation-outcome"]
    assert "the AWS call that raised: dynamodb PutItem failed: ResourceNotFoundException" in (
        finding.message
    )
