"""Every catalogue rule: one event that breaks it and one that does not.

``CASES`` holds the pair for each rule; ``test_every_rule_has_a_case`` fails when a rule is added
to the catalogue without one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from cfn_debug.contract import (
    CATALOGUE,
    StepContext,
    check_chain,
    check_step,
    explain,
    rule,
)
from cfn_debug.records import (
    Action,
    EndReason,
    Finding,
    InvokeResult,
    Level,
    OutcomeKind,
    Step,
)
from cfn_debug.schema import load_schema

SCHEMA = load_schema(Path(__file__).parents[1] / "fixtures" / "schemas" / "widget.json")
#: shared/ sits beside the repository (in a work tree and in CI's clean clone alike).
REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "reference" / "handler-contract.md"

WID = "w-0123abcd"
MODEL = {"WidgetId": WID, "Arn": "arn:widget", "Name": "alpha", "Size": 3}
DESIRED = {"Name": "alpha", "Size": 3}


def progress(status: str = "SUCCESS", **fields: Any) -> dict[str, Any]:
    """A ProgressEvent as cloudformation-cli-python-lib serialises it."""
    return {"status": status, "message": "", "callbackDelaySeconds": 0, **fields}


def failed(code: str = "NotFound", message: str = "not found", **fields: Any) -> dict[str, Any]:
    return progress("FAILED", errorCode=code, message=message, **fields)


def result(event: dict[str, Any] | None = None, **kwargs: Any) -> InvokeResult:
    kwargs.setdefault("kind", OutcomeKind.PROGRESS)
    kwargs.setdefault("duration_s", 0.2)
    return InvokeResult(progress=event, **kwargs)


def ctx(
    event: dict[str, Any] | None = None,
    action: Action = Action.CREATE,
    *,
    index: int = 0,
    desired: dict[str, Any] | None = None,
    previous: dict[str, Any] | None = None,
    original: dict[str, Any] | None = None,
    invoke: InvokeResult | None = None,
    steps: list[Step] | None = None,
    schema: Any = SCHEMA,
) -> StepContext:
    return StepContext(
        schema=schema,
        action=action,
        index=index,
        desired=desired,
        previous=previous,
        original_desired=original,
        result=invoke or result(event),
        previous_steps=steps or [],
    )


def step(index: int, event: dict[str, Any], action: Action = Action.CREATE) -> Step:
    return Step(
        index=index,
        action=action,
        function_name="TypeFunction",
        request={},
        result=result(event),
        started_at="2024-01-01T00:00:00Z",
        limit_s=action.limit_s,
    )


@dataclass
class Case:
    """Findings of ``rule_id`` expected for ``bad`` (at ``pointer``) and none for ``good``."""

    bad: Callable[[], list[Finding]]
    good: Callable[[], list[Finding]]
    pointer: str | None = None
    text: str = ""  # a fragment the bad finding's message contains
    also_good: list[Callable[[], list[Finding]]] = field(default_factory=list)


def on(context: StepContext) -> Callable[[], list[Finding]]:
    return lambda: check_step(context)


def chain(
    end: EndReason, total: float, action: Action = Action.CREATE
) -> Callable[[], list[Finding]]:
    return lambda: check_chain([step(0, progress())], SCHEMA, action, end, total)


TRACEBACK_LOGS = [
    "[INFO] creating widget",
    "[ERROR]\t2024-01-01T00:00:00Z\treq-1\tException caught\rTraceback (most recent call last):\r"
    '  File "/var/task/handlers.py", line 40, in create_handler\r'
    "    size = 1 / 0\r"
    "ZeroDivisionError: division by zero",
]

CASES: dict[str, Case] = {
    "invocation-outcome": Case(
        bad=on(
            ctx(
                invoke=result(kind=OutcomeKind.CRASH, error_type="KeyError", error_message="'Name'")
            )
        ),
        good=on(ctx(progress(resourceModel=MODEL), original=DESIRED)),
        text="KeyError: 'Name'",
        also_good=[on(ctx(invoke=result(kind=OutcomeKind.UNREACHABLE, error_message="refused")))],
    ),
    "status-valid": Case(
        bad=on(ctx(progress("DONE", resourceModel=MODEL))),
        good=on(ctx(progress(resourceModel=MODEL), original=DESIRED)),
        pointer="/status",
    ),
    "failed-error-code": Case(
        bad=on(ctx(failed(code="Oops"))),
        good=on(ctx(failed("AlreadyExists", "exists"))),
        pointer="/errorCode",
    ),
    "failed-message": Case(
        bad=on(ctx(failed("NotFound", ""), Action.READ, desired={"WidgetId": WID})),
        good=on(ctx(failed("NotFound", "widget w-1 not found"), Action.READ)),
        pointer="/message",
    ),
    "handler-exception": Case(
        bad=on(ctx(invoke=result(failed("InternalFailure", ""), logs=TRACEBACK_LOGS))),
        good=on(ctx(failed("InternalFailure", "quota lookup failed"))),
        pointer="/message",
        text="ZeroDivisionError: division by zero",
    ),
    "in-progress-no-error-code": Case(
        bad=on(ctx(progress("IN_PROGRESS", errorCode="Throttling", resourceModel=MODEL))),
        good=on(ctx(progress("IN_PROGRESS", resourceModel=MODEL, callbackContext={"n": 1}))),
        pointer="/errorCode",
    ),
    "terminal-no-callback-delay": Case(
        bad=on(ctx(progress(resourceModel=MODEL, callbackDelaySeconds=5))),
        good=on(ctx(progress(resourceModel=MODEL))),
        pointer="/callbackDelaySeconds",
    ),
    "callback-delay-range": Case(
        bad=on(ctx(progress("IN_PROGRESS", resourceModel=MODEL, callbackDelaySeconds=-1))),
        good=on(ctx(progress("IN_PROGRESS", resourceModel=MODEL, callbackDelaySeconds=30))),
        pointer="/callbackDelaySeconds",
    ),
    "read-list-not-in-progress": Case(
        bad=on(ctx(progress("IN_PROGRESS", resourceModel=MODEL), Action.READ)),
        good=on(ctx(progress(resourceModel=MODEL), Action.READ, desired={"WidgetId": WID})),
        pointer="/status",
    ),
    "model-conforms-to-schema": Case(
        bad=on(ctx(progress("IN_PROGRESS", resourceModel={**MODEL, "Size": "big"}))),
        good=on(ctx(progress("IN_PROGRESS", resourceModel=MODEL))),
        pointer="/resourceModel/Size",
    ),
    "primary-identifier-present": Case(
        bad=on(ctx(progress("IN_PROGRESS", resourceModel=DESIRED))),
        good=on(ctx(progress("IN_PROGRESS", resourceModel=MODEL))),
        pointer="/resourceModel/WidgetId",
        also_good=[on(ctx(failed("AlreadyExists", "exists", resourceModel=DESIRED)))],
    ),
    "primary-identifier-matches-request": Case(
        bad=on(
            ctx(
                progress("IN_PROGRESS", resourceModel={**MODEL, "WidgetId": "w-99999999"}),
                Action.UPDATE,
                desired=MODEL,
                previous=MODEL,
                original=MODEL,
            )
        ),
        good=on(
            ctx(
                progress("IN_PROGRESS", resourceModel=MODEL),
                Action.UPDATE,
                desired=MODEL,
                previous=MODEL,
                original=MODEL,
            )
        ),
        pointer="/resourceModel/WidgetId",
    ),
    "primary-identifier-stable": Case(
        bad=on(
            ctx(
                progress(resourceModel={**MODEL, "WidgetId": "w-99999999"}),
                index=1,
                steps=[step(0, progress("IN_PROGRESS", resourceModel=MODEL))],
                original=DESIRED,
            )
        ),
        good=on(
            ctx(
                progress(resourceModel=MODEL),
                index=1,
                steps=[step(0, progress("IN_PROGRESS", resourceModel=MODEL))],
                original=DESIRED,
            )
        ),
        pointer="/resourceModel/WidgetId",
    ),
    "requested-properties-returned": Case(
        bad=on(ctx(progress(resourceModel={**MODEL, "Size": 4}), original=DESIRED)),
        good=on(ctx(progress(resourceModel=MODEL), original={**DESIRED, "Password": "secret99"})),
        pointer="/resourceModel/Size",
    ),
    "no-null-properties": Case(
        bad=on(ctx(progress(resourceModel={**MODEL, "Colour": None}), original=DESIRED)),
        good=on(ctx(progress(resourceModel=MODEL), original=DESIRED)),
        pointer="/resourceModel/Colour",
    ),
    "read-only-properties-present": Case(
        bad=on(ctx(progress(resourceModel={"WidgetId": WID, "Name": "a"}), Action.READ)),
        good=on(ctx(progress(resourceModel=MODEL), Action.READ)),
        pointer="/resourceModel/Arn",
    ),
    "write-only-not-returned": Case(
        bad=on(ctx(progress(resourceModel={**MODEL, "Password": "secret99"}), Action.READ)),
        good=on(ctx(progress(resourceModel=MODEL), Action.READ)),
        pointer="/resourceModel/Password",
        also_good=[on(ctx(progress("IN_PROGRESS", resourceModel={**MODEL, "Password": "pw"})))],
    ),
    "delete-success-no-model": Case(
        bad=on(ctx(progress(resourceModel={}), Action.DELETE, desired={"WidgetId": WID})),
        good=on(ctx(progress(), Action.DELETE, desired={"WidgetId": WID})),
        pointer="/resourceModel",
    ),
    "list-shape": Case(
        bad=on(ctx(progress(resourceModels=[MODEL, {"Name": "b"}]), Action.LIST)),
        good=on(ctx(progress(resourceModels=[MODEL], nextToken="page-2"), Action.LIST)),
        pointer="/resourceModels/1/WidgetId",
        also_good=[on(ctx(progress(resourceModels=[]), Action.LIST))],
    ),
    "invocation-time-limit": Case(
        bad=on(
            ctx(invoke=result(progress(resourceModel=MODEL), duration_s=31.0), action=Action.READ)
        ),
        good=on(ctx(invoke=result(progress(resourceModel=MODEL), duration_s=31.0))),
        text="31.00 s",
    ),
    "invocation-time-warning": Case(
        bad=on(ctx(invoke=result(progress("IN_PROGRESS", resourceModel=MODEL), duration_s=50))),
        good=on(ctx(invoke=result(progress("IN_PROGRESS", resourceModel=MODEL), duration_s=40))),
        text="83%",
    ),
    "chain-timeout": Case(
        bad=chain(EndReason.TERMINAL, 601.0),
        good=chain(EndReason.TERMINAL, 599.0),
        text="10 min",
        also_good=[chain(EndReason.MAX_REINVOKE, 10.0, Action.DELETE)],
    ),
    "input-valid": Case(
        bad=on(ctx(progress(resourceModel=MODEL), desired={"Size": 3})),
        good=on(ctx(progress(resourceModel=MODEL), desired=DESIRED)),
        pointer="/request/desiredResourceState",
        text="'Name' is a required property",
    ),
    "input-no-read-only": Case(
        bad=on(ctx(progress(resourceModel=MODEL), desired={**DESIRED, "Arn": "arn:x"})),
        good=on(ctx(progress(resourceModel=MODEL), desired={**DESIRED, "Arn": "arn:x"}, index=1)),
        pointer="/request/desiredResourceState/Arn",
    ),
    "input-create-only-unchanged": Case(
        bad=on(
            ctx(
                progress(resourceModel=MODEL),
                Action.UPDATE,
                desired={**MODEL, "Name": "beta"},
                previous=MODEL,
            )
        ),
        good=on(
            ctx(
                progress(resourceModel={**MODEL, "Size": 9}),
                Action.UPDATE,
                desired={**MODEL, "Size": 9},
                previous=MODEL,
            )
        ),
        pointer="/request/desiredResourceState/Name",
    ),
    "input-identifier-present": Case(
        bad=on(ctx(failed("NotFound", "gone"), Action.DELETE, desired={"Name": "alpha"})),
        good=on(ctx(progress(), Action.DELETE, desired={"Arn": "arn:widget"})),
        pointer="/request/desiredResourceState",
    ),
}


def test_every_rule_has_a_case() -> None:
    # the read-back rules compare two steps: tests/contract/test_read_back.py has their cases
    assert set(CASES) == {r.id for r in CATALOGUE if r.scope not in ("read-back", "expectation")}


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_flags_the_bad_event_and_not_the_good_one(rule_id: str) -> None:
    case = CASES[rule_id]
    bad = [f for f in case.bad() if f.rule_id == rule_id]
    assert bad, f"{rule_id} found nothing in its bad event"
    assert all(f.level is rule(rule_id).level for f in bad)
    if case.pointer is not None:
        assert case.pointer in [f.pointer for f in bad]
    if case.text:
        assert any(case.text in f.message for f in bad), [f.message for f in bad]
    for good in [case.good, *case.also_good]:
        assert [f for f in good() if f.rule_id == rule_id] == []


def test_catalogue_is_well_formed() -> None:
    ids = [r.id for r in CATALOGUE]
    assert len(ids) == len(set(ids))
    for entry in CATALOGUE:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", entry.id), entry.id
        assert entry.scope in ("step", "chain", "read-back", "expectation")
        assert entry.actions and entry.title and entry.contract
        assert rule(entry.id) is entry
        assert explain(entry.id), f"{entry.id}: its check has no docstring"
    with pytest.raises(KeyError, match="no contract rule"):
        rule("no-such-rule")


def _reference_text() -> str:
    text = REFERENCE.read_text(encoding="utf-8")
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links read as their text
    return re.sub(r"\\(.)", r"\1", text)  # markdown escapes: desired\-state -> desired-state


@pytest.mark.skipif(not REFERENCE.exists(), reason="the handler contract reference is not here")
def test_contract_sentences_are_verbatim() -> None:
    reference = _reference_text()
    for entry in CATALOGUE:
        for sentence in entry.contract.splitlines():
            assert sentence in reference, f"{entry.id}: not in the contract: {sentence!r}"


def test_contract_for_picks_the_actions_sentences() -> None:
    text = rule("invocation-time-limit").contract_for(Action.READ)
    assert text == "A `read` handler MUST always return a ProgressEvent object within 30 seconds."
    assert rule("failed-message").contract_for(Action.LIST) == rule("failed-message").contract


def test_unknown_fields_are_should_findings() -> None:
    findings = check_step(ctx(progress(resourceModel=MODEL, resourcemodel={}), original=DESIRED))
    unknown = [f for f in findings if f.pointer == "/resourcemodel"]
    assert [(f.rule_id, f.level) for f in unknown] == [("status-valid", Level.SHOULD)]
