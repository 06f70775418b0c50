"""The AwsCall record: round trips through step JSON and the journal; which call raised."""

from __future__ import annotations

import json

from cfn_debug.aws_calls import AwsCall, calls_from_dicts, mark_raised, raised_call
from cfn_debug.journal.session import Journal, load_journal
from cfn_debug.records import Action, InvokeResult, OutcomeKind, Step, StepCompleted

PUT_FAILED = AwsCall(
    "dynamodb",
    "PutItem",
    {"TableName": "missing", "Item": {"Id": {"S": "1"}}},
    http_status=400,
    error_code="ResourceNotFoundException",
    error_message="Requested resource not found",
    duration_ms=3.2,
)
DESCRIBE_OK = AwsCall("dynamodb", "DescribeTable", {"TableName": "t"}, http_status=200)


def _step(calls: list[AwsCall]) -> Step:
    return Step(
        index=0,
        action=Action.CREATE,
        function_name="TestEntrypoint",
        request={"action": "CREATE"},
        result=InvokeResult(OutcomeKind.PROGRESS, 0.1, progress={"status": "SUCCESS"}),
        started_at="2026-01-01T00:00:00+00:00",
        limit_s=60.0,
        aws_calls=calls,
    )


def test_a_step_round_trips_its_aws_calls_through_json() -> None:
    step = _step([DESCRIBE_OK, PUT_FAILED])
    data = json.loads(json.dumps(step.to_dict()))
    assert data["aws_calls"][1]["error_code"] == "ResourceNotFoundException"
    assert "aws_calls" not in data["result"]
    assert Step.from_dict(data) == step


def test_a_step_written_before_aws_calls_existed_loads_with_none() -> None:
    data = _step([]).to_dict()
    del data["aws_calls"]
    assert Step.from_dict(data).aws_calls == []


def test_the_journal_keeps_each_steps_aws_calls(tmp_path) -> None:
    from cfn_debug.records import RunRecord, RunStarted

    run = RunRecord("r", "e", None, Action.CREATE, "f", "x", "2026-01-01T00:00:00+00:00")
    step = _step([DESCRIBE_OK, PUT_FAILED])
    path = tmp_path / "j.jsonl"
    with Journal(path) as journal:
        journal.record(RunStarted(run))
        journal.record(StepCompleted("r", step))
    loaded = load_journal(path).runs[0].steps[0]
    assert loaded.aws_calls == [DESCRIBE_OK, PUT_FAILED]


def test_describe_names_the_failed_call_and_why() -> None:
    assert PUT_FAILED.failed and not DESCRIBE_OK.failed
    assert PUT_FAILED.describe() == (
        "dynamodb PutItem failed: ResourceNotFoundException: Requested resource not found"
    )
    unreachable = AwsCall("s3", "ListBuckets", error_code="EndpointConnectionError")
    assert unreachable.failed
    assert unreachable.describe() == "s3 ListBuckets failed: EndpointConnectionError"


def test_a_retried_call_says_how_many_attempts() -> None:
    from dataclasses import replace

    from cfn_debug.aws_calls import call_line

    throttled = replace(
        PUT_FAILED, error_code="ThrottlingException", error_message="slow", attempts=3
    )
    assert (
        call_line(throttled)
        == "dynamodb PutItem  400  3.2 ms  ThrottlingException: slow  after 3 attempts"
    )
    assert AwsCall.from_dict({"service": "s", "operation": "o"}).attempts == 1


def test_the_call_a_client_error_names_is_marked_raised() -> None:
    other = AwsCall("dynamodb", "PutItem", http_status=400, error_code="ValidationException")
    text = (
        "botocore.errorfactory.ResourceNotFoundException: An error occurred "
        "(ResourceNotFoundException) when calling the PutItem operation: "
        "Requested resource not found"
    )
    marked = mark_raised([PUT_FAILED, DESCRIBE_OK, other], text)
    assert [c.raised for c in marked] == [True, False, False]
    assert raised_call(marked) == PUT_FAILED.__class__(**{**PUT_FAILED.__dict__, "raised": True})


def test_nothing_is_marked_when_the_error_is_not_an_aws_call() -> None:
    marked = mark_raised([PUT_FAILED, DESCRIBE_OK], "ZeroDivisionError: division by zero")
    assert raised_call(marked) is None
    assert mark_raised([DESCRIBE_OK], None) == [DESCRIBE_OK]


def test_a_connection_failure_is_marked_by_its_error_type() -> None:
    refused = AwsCall(
        "sqs",
        "SendMessage",
        error_code="EndpointConnectionError",
        error_message='Could not connect to the endpoint URL: "http://127.0.0.1:1/"',
    )
    text = "botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL"
    assert raised_call(mark_raised([refused], text)) is not None


def test_a_forged_record_of_the_wrong_types_is_not_trusted() -> None:
    forged = {
        "service": 1,
        "operation": "Op",
        "params": [1],
        "http_status": "200",
        "error_code": {"x": 1},
        "duration_ms": "fast",
        "raised": "yes",
        "attempts": -3,
    }
    call = AwsCall.from_dict(forged)
    assert call == AwsCall("?", "Op")
    assert call.describe() == "? Op"


def test_calls_from_dicts_skips_what_is_not_a_call() -> None:
    items = [
        PUT_FAILED.to_dict(),
        {"nope": 1},
        "text",
        {"service": "s3", "operation": "X", "bad": 1},
    ]
    assert calls_from_dicts(items) == [PUT_FAILED, AwsCall("s3", "X")]
