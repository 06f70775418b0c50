"""Less noise per root cause: one finding per cause, the cause first, messages that name the
constraint, READ diffs without the noise, LIST pages summarised."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfn_debug.chain import build_step
from cfn_debug.contract import StepContext, check_step
from cfn_debug.records import Action, ChangeKind, InvokeResult, OutcomeKind, Step
from cfn_debug.schema import load_schema
from cfn_debug.stepsummary import list_summary

SCHEMA = load_schema(Path(__file__).parents[1] / "fixtures" / "schemas" / "widget.json")


def result(progress: dict[str, Any]) -> InvokeResult:
    return InvokeResult(OutcomeKind.PROGRESS, 0.1, progress=progress)


def findings(progress: dict[str, Any], action: Action, desired: Any, index: int = 0) -> list:
    ctx = StepContext(SCHEMA, action, index, desired, None, desired, result(progress))
    return check_step(ctx)


def test_an_invalid_input_the_model_echoes_is_reported_once_and_first() -> None:
    desired = {"Name": "alpha", "Password": "short"}
    model = {"WidgetId": "w-0123abcd", "Arn": "arn:w", "Name": "alpha", "Size": 0}
    found = findings(
        {"status": "SUCCESS", "resourceModel": model}, Action.CREATE, {**desired, "Size": 0}
    )
    rules = [(f.rule_id, f.pointer) for f in found]
    assert ("input-valid", "/request/desiredResourceState/Size") in rules
    assert ("model-conforms-to-schema", "/resourceModel/Size") not in rules
    assert rules[0][0] == "input-valid"  # the root cause first
    # a model value the handler made invalid on its own is still reported
    own = findings(
        {"status": "SUCCESS", "resourceModel": {**model, "Size": 101}},
        Action.CREATE,
        {"Name": "alpha", "Size": 0},
    )
    assert ("model-conforms-to-schema", "/resourceModel/Size") in [
        (f.rule_id, f.pointer) for f in own
    ]


def test_a_missing_identifier_is_not_also_a_missing_read_only_property() -> None:
    found = findings(
        {"status": "SUCCESS", "resourceModel": {"Arn": "arn:w", "Name": "alpha"}},
        Action.CREATE,
        {"Name": "alpha"},
    )
    rules = {(f.rule_id, f.pointer) for f in found}
    assert ("primary-identifier-present", "/resourceModel/WidgetId") in rules
    assert not [r for r in rules if r[0] == "read-only-properties-present"]


def test_messages_name_the_constraint() -> None:
    found = findings(
        {"status": "SUCCESS", "resourceModel": {"WidgetId": "w-0123abcd", "Name": ""}},
        Action.CREATE,
        {"Name": "n" * 65},
    )
    messages = {(f.rule_id, f.pointer): f.message for f in found}
    assert messages[("input-valid", "/request/desiredResourceState/Name")] == (
        "'" + "n" * 65 + "' is longer than maxLength 64"
    )
    assert messages[("model-conforms-to-schema", "/resourceModel/Name")] == (
        "'' is shorter than minLength 1"
    )


def test_a_read_diff_does_not_list_every_property_as_added() -> None:
    identifier = {"WidgetId": "w-0123abcd"}
    model = {**identifier, "Arn": "arn:w", "Name": "alpha", "Size": 3}
    step = build_step(
        index=0,
        action=Action.READ,
        function_name="f",
        request={"action": "READ"},
        result=result({"status": "SUCCESS", "resourceModel": model}),
        started_at="now",
        schema=SCHEMA,
        desired=identifier,
        previous=None,
        original_desired=identifier,
        previous_steps=[],
    )
    assert [c for c in step.diff_request if c.kind is ChangeKind.ADDED] == []


def test_a_list_step_says_how_many_models_and_whether_a_next_token_came() -> None:
    def listed(progress: dict[str, Any]) -> str | None:
        return list_summary(Step(0, Action.LIST, "f", {}, result(progress), "now", 30.0))

    page = {"status": "SUCCESS", "resourceModels": [{"WidgetId": "w-1"}] * 3}
    assert listed({**page, "nextToken": "tok"}) == "3 model(s), nextToken 'tok' (more pages)"
    assert listed({**page, "resourceModels": []}) == "0 model(s), no nextToken (the last page)"
    assert listed({"status": "FAILED"}) is None


def test_a_message_never_quotes_a_write_only_value() -> None:
    """Outputs mask writeOnly values in models; a short one ('pw1') is too short to be scrubbed
    from free text safely, so a finding's message does not quote it at all."""
    found = findings(
        {"status": "SUCCESS", "resourceModel": {"WidgetId": "w-0123abcd", "Name": "a"}},
        Action.CREATE,
        {"Name": "a", "Password": "pw1"},
    )
    [message] = [f.message for f in found if f.pointer and f.pointer.endswith("/Password")]
    assert message == "the writeOnly value is shorter than minLength 8"
    assert all("pw1" not in f.message for f in found)
