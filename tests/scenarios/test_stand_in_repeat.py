"""Which repeated SUCCESS against a local AWS is left unjudged (scenarios/outcome.stand_in_repeat):
a second create or delete that made the very calls of the first, each answered with success, is
the stand-in's answer only when one of those calls is of a kind AWS refuses to repeat (a create
of a name taken, a delete of what is gone). An upsert (Put) twice AWS answers with success too:
that handler's SUCCESS is its own, and judged."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from cfn_debug.aws_calls import AwsCall
from cfn_debug.records import Action, InvokeResult, OutcomeKind, RunRecord, Step
from cfn_debug.scenarios.outcome import stand_in_repeat


def run(*operations: str, error: str | None = None) -> RunRecord:
    result = InvokeResult(OutcomeKind.PROGRESS, 0.1, progress={"status": "SUCCESS"})
    step = Step(0, Action.CREATE, "f", {}, result, "now", 60.0)
    step.aws_calls = [
        AwsCall("s3control", op, {"AccountId": "123456789012"}, 200, error) for op in operations
    ]
    record = RunRecord("r", "e", None, Action.CREATE, "f", "local", "now", steps=[step])
    record.final_status = "SUCCESS"
    return record


def play(kind: str) -> Any:
    return SimpleNamespace(runner=SimpleNamespace(workspace=SimpleNamespace(
        aws_target=SimpleNamespace(kind=kind)
    )))  # fmt: skip


@pytest.mark.parametrize(
    "operations",
    [("CreateSAMLProvider",), ("GetPolicy", "DeleteSAMLProvider"), ("AttachRolePolicy",)],
)
def test_a_repeat_aws_would_refuse_is_not_judged_against_a_stand_in(
    operations: tuple[str, ...],
) -> None:
    why = stand_in_repeat(play("local"), run(*operations), run(*operations))
    assert why is not None and operations[-1] in why


@pytest.mark.parametrize(
    "operations", [("PutPublicAccessBlock",), ("GetPublicAccessBlock", "PutPublicAccessBlock")]
)
def test_an_upsert_twice_is_judged(operations: tuple[str, ...]) -> None:
    assert stand_in_repeat(play("local"), run(*operations), run(*operations)) is None


def test_against_aws_or_with_other_calls_everything_is_judged() -> None:
    create = run("CreateSAMLProvider")
    assert stand_in_repeat(play("aws"), create, run("CreateSAMLProvider")) is None
    assert stand_in_repeat(play("local"), create, run("GetSAMLProvider")) is None
    failed = run("CreateSAMLProvider", error="EntityAlreadyExists")
    assert stand_in_repeat(play("local"), create, failed) is None
