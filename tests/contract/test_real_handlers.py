"""The checks against ProgressEvents produced by real handler code on cloudformation-cli-python-lib.

A correct handler must get no MUST finding through a whole lifecycle; the library's disguises of
handler faults (an exception, a READ that answers IN_PROGRESS) must be named for what they are.
"""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cfn_debug.contract import StepContext, check_chain, check_step
from cfn_debug.records import Action, EndReason, Finding, InvokeResult, Level, OutcomeKind, Step
from cfn_debug.schema import load_schema

from . import widget_handlers

SCHEMA = load_schema(Path(__file__).parents[1] / "fixtures" / "schemas" / "widget.json")
Entrypoint = Callable[[dict[str, Any], Any], dict[str, Any]]


@pytest.fixture
def logs() -> Iterator[io.StringIO]:
    """Everything logged while a handler runs, as the function's output would hold it."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("[%(levelname)s] %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    old_level = root.level
    root.setLevel(logging.INFO)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


def run_chain(
    entry: Entrypoint,
    action: Action,
    desired: dict[str, Any] | None,
    logs: io.StringIO,
    previous: dict[str, Any] | None = None,
) -> tuple[list[Step], list[Finding]]:
    """Invoke until terminal, as the chain engine does, checking every step."""
    steps: list[Step] = []
    context: dict[str, Any] | None = None
    current = desired
    started = time.monotonic()
    for index in range(10):
        event = {
            "credentials": {"accessKeyId": "AKID", "secretAccessKey": "s", "sessionToken": "t"},
            "action": action.value,
            "request": {
                "clientRequestToken": "token-1",
                "desiredResourceState": current,
                "previousResourceState": previous,
                "logicalResourceIdentifier": "MyWidget",
            },
            "callbackContext": context,
            "region": "us-east-1",
        }
        logs.seek(0)
        logs.truncate()
        t0 = time.monotonic()
        response = entry(event, None)
        result = InvokeResult(
            kind=OutcomeKind.PROGRESS,
            duration_s=time.monotonic() - t0,
            progress=response,
            logs=logs.getvalue().splitlines(),
        )
        ctx = StepContext(SCHEMA, action, index, current, previous, desired, result, steps)
        step = Step(index, action, "TypeFunction", event, result, "now", action.limit_s)
        step.findings = check_step(ctx)
        steps.append(step)
        if response.get("status") != "IN_PROGRESS":
            break
        context = response.get("callbackContext")
        current = response.get("resourceModel", current)
    chain = check_chain(steps, SCHEMA, action, EndReason.TERMINAL, time.monotonic() - started)
    return steps, [f for s in steps for f in s.findings] + chain


def musts(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.level is Level.MUST]


def test_a_correct_handler_gets_no_must_finding_over_its_lifecycle(logs: io.StringIO) -> None:
    widget_handlers.STORE.clear()
    entry = widget_handlers.test_entrypoint
    desired = {
        "Name": "alpha",
        "Size": 3,
        "Password": "secret-99",
        "Tags": [{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}],
    }
    steps, findings = run_chain(entry, Action.CREATE, desired, logs)
    assert [s.result.status for s in steps] == ["IN_PROGRESS", "SUCCESS"]
    assert musts(findings) == []
    created = steps[-1].result.progress["resourceModel"]
    ident = {"WidgetId": created["WidgetId"]}

    for action, model, previous in [
        (Action.READ, ident, None),
        (Action.UPDATE, {**created, "Size": 7, "Tags": [{"Key": "b", "Value": "2"}]}, created),
        (Action.LIST, None, None),
        (Action.DELETE, ident, None),
    ]:
        steps, findings = run_chain(entry, action, model, logs, previous)
        assert steps[-1].result.status == "SUCCESS", (action, steps[-1].result.progress)
        assert musts(findings) == [], action

    # after DELETE, READ answers FAILED NotFound with the library's message: also correct
    steps, findings = run_chain(entry, Action.READ, ident, logs)
    assert steps[-1].result.progress["errorCode"] == "NotFound"
    assert findings == []


def test_a_handler_exception_is_explained_with_its_traceback(logs: io.StringIO) -> None:
    steps, findings = run_chain(
        widget_handlers.faulty_entrypoint, Action.CREATE, {"Name": "huge"}, logs
    )
    assert steps[-1].result.progress["errorCode"] == "InternalFailure"
    [finding] = [f for f in findings if f.rule_id == "handler-exception"]
    assert finding.level is Level.MUST and finding.step == 0
    assert finding.message.startswith("the handler raised KeyError: 'huge'")
    assert "in crashing_create" in finding.message
    # the same event is not reported a second time as a FAILED without a message
    assert not [f for f in findings if f.rule_id == "failed-message"]


def test_a_read_in_progress_is_seen_through_the_librarys_conversion(logs: io.StringIO) -> None:
    steps, findings = run_chain(
        widget_handlers.faulty_entrypoint, Action.READ, {"WidgetId": "w-00000000"}, logs
    )
    assert steps[-1].result.status == "FAILED"
    assert [(f.rule_id, f.pointer) for f in musts(findings)] == [
        ("read-list-not-in-progress", "/message")
    ]
