"""Every export format and `run`'s console show each step's AWS calls, masked like the rest."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from cfn_debug.aws_calls import RAISED_MARK, AwsCall
from cfn_debug.console import ConsolePrinter
from cfn_debug.export import WRITE_ONLY_MASK, export_session, load_transcript
from cfn_debug.records import (
    Action,
    InvokeResult,
    OutcomeKind,
    RunRecord,
    Step,
    StepCompleted,
)

SECRET = "the-write-only-secret-value"
ACCESS_KEY = "AKIAABCDEFGHIJKLMNOP"


def _run() -> RunRecord:
    request = {
        "action": "CREATE",
        "credentials": {"accessKeyId": ACCESS_KEY, "secretAccessKey": "x" * 40},
        "request": {"desiredResourceState": {"Name": "r", "Secret": SECRET}},
    }
    calls = [
        AwsCall("s3", "PutObject", {"Bucket": "b", "Key": "r"}, 200, duration_ms=2.5),
        # a handler that stores its writeOnly value in a table: the export must not show it
        AwsCall(
            "dynamodb",
            "PutItem",
            {"TableName": "gone", "Item": {"Secret": {"S": SECRET}}, "Note": ACCESS_KEY},
            400,
            "ResourceNotFoundException",
            "Requested resource not found",
            4.0,
            raised=True,
        ),
    ]
    step = Step(
        index=0,
        action=Action.CREATE,
        function_name="TestEntrypoint",
        request=request,
        result=InvokeResult(
            OutcomeKind.PROGRESS,
            0.1,
            progress={"status": "FAILED", "errorCode": "InternalFailure", "message": ""},
        ),
        started_at="2026-01-01T00:00:00+00:00",
        limit_s=60.0,
        aws_calls=calls,
    )
    return RunRecord(
        "r1",
        "create",
        None,
        Action.CREATE,
        "TestEntrypoint",
        "embedded",
        "2026-01-01T00:00:00+00:00",
        steps=[step],
        final_status="FAILED",
    )


def _export(fmt: str) -> str:
    out = io.StringIO()
    export_session([_run()], fmt, out, write_only=["/Secret"])
    return out.getvalue()


@pytest.mark.parametrize("fmt", ["json", "md", "html", "junit"])
def test_every_format_lists_the_calls_masked(fmt: str) -> None:
    text = _export(fmt)
    assert "PutObject" in text and "PutItem" in text
    assert "ResourceNotFoundException" in text and "Requested resource not found" in text
    assert SECRET not in text and ACCESS_KEY not in text
    if fmt != "json":
        assert RAISED_MARK in text
    if fmt == "html":  # the failed call's row is flagged, the call that worked is not
        assert text.count('<tr class="call-failed">') == 1


def test_the_json_transcript_loads_back_with_the_calls() -> None:
    text = _export("json")
    data = json.loads(text)
    calls = data["runs"][0]["steps"][0]["aws_calls"]
    assert calls[1]["raised"] is True
    assert calls[1]["params"]["Item"]["Secret"]["S"] == WRITE_ONLY_MASK
    path_runs = load_transcript_text(text)
    assert [c.operation for c in path_runs[0].steps[0].aws_calls] == ["PutObject", "PutItem"]


def load_transcript_text(text: str) -> list[RunRecord]:
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "t.json"
        path.write_text(text)
        return load_transcript(path).runs


def test_the_console_shows_a_section_with_the_failed_call_marked() -> None:
    out = io.StringIO()
    printer = ConsolePrinter(Console(file=out, width=200, color_system=None))
    printer.handle(StepCompleted("r1", _run().steps[0]))
    text = out.getvalue()
    assert "AWS calls (2):" in text
    assert "s3 PutObject  200  2.5 ms" in text
    assert (
        "dynamodb PutItem  400  4.0 ms  ResourceNotFoundException: Requested resource not found"
        f"  {RAISED_MARK}" in text
    )
