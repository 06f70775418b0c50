"""`run` prints why a run could not run when the cause is an AWS call the local AWS could not
serve. The steps `run` prints from went through the journal's records, whose results carry no
AWS calls of their own (the step keeps them), so the line was never printed: only "could not
run", with no word of moto (found trying Community::Organizations::Policy)."""

from __future__ import annotations

import io

from rich.console import Console

from cfn_debug.aws_calls import AwsCall
from cfn_debug.console import ConsolePrinter
from cfn_debug.records import (
    Action,
    EndReason,
    InvokeResult,
    OutcomeKind,
    RunEnded,
    RunRecord,
    Step,
)


def test_the_unserved_call_is_named_under_the_run() -> None:
    call = AwsCall(
        "ec2", "DescribeFpgaImages", http_status=500, error_code="500",
        error_message="Internal Server Error",
    )  # fmt: skip
    progress = {"status": "FAILED", "errorCode": "InternalFailure", "message": "Uninitialized"}
    result = InvokeResult(OutcomeKind.PROGRESS, 0.2, progress=progress)  # no calls of its own
    step = Step(0, Action.CREATE, "TestEntrypoint", {}, result, "2026-11-27T00:00:00Z", 60.0)
    step.aws_calls = [call]
    run = RunRecord(
        "r1", "create", None, Action.CREATE, "TestEntrypoint", "embedded", "2026-11-27T00:00:00Z",
        steps=[step], end_reason=EndReason.ERROR, final_status="FAILED",
    )  # fmt: skip
    out = io.StringIO()
    ConsolePrinter(Console(file=out, width=300)).handle(RunEnded(run))
    text = out.getvalue()
    assert "could not run" in text
    assert text.count("the local AWS could not serve ec2 DescribeFpgaImages") == 1, text
