"""The read-back rules on hand-made steps: the SUCCESS step, then the READ cfn-debug sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfn_debug.contract import explain, rule
from cfn_debug.contract.read_back import read_back_findings
from cfn_debug.readback import add_findings
from cfn_debug.records import Action, Finding, InvokeResult, Level, OutcomeKind, Step
from cfn_debug.schema import load_schema

SCHEMA = load_schema(Path(__file__).parents[1] / "fixtures" / "schemas" / "widget.json")
FULL = {"WidgetId": "w-1", "Arn": "arn:widget", "Name": "alpha", "Size": 3}


def step(
    progress: dict[str, Any], action: Action = Action.CREATE, findings: list[Finding] | None = None
) -> Step:
    result = InvokeResult(OutcomeKind.PROGRESS, 0.1, progress=progress)
    return Step(0, action, "f", {}, result, "now", action.limit_s, findings=findings or [])


def success(model: dict[str, Any], action: Action = Action.CREATE) -> Step:
    return step({"status": "SUCCESS", "resourceModel": model}, action)


def rules_of(found: list[Finding]) -> list[tuple[str, str | None]]:
    return [(f.rule_id, f.pointer) for f in found]


def test_a_read_only_value_the_read_returns_is_a_must_when_success_lacks_it() -> None:
    lacking = {k: v for k, v in FULL.items() if k != "Arn"}
    found = read_back_findings(SCHEMA, success(lacking, Action.UPDATE), success(FULL, Action.READ))
    assert rules_of(found) == [("read-back-complete", "/resourceModel/Arn")]
    assert found[0].level is Level.MUST and found[0].step == 0
    assert '"arn:widget"' in found[0].message


def test_no_finding_for_what_a_correct_handler_may_leave_out() -> None:
    """An empty readOnly value (the library makes [] None), a writeOnly value and a
    non-readOnly one (requested-properties-returned's business) are not this rule's."""
    read = success({"WidgetId": "w-1", "Arn": [], "Password": "x", "Size": 4}, Action.READ)
    assert read_back_findings(SCHEMA, success({"WidgetId": "w-1", "Name": "a"}), read) == []
    assert read_back_findings(SCHEMA, success(FULL), success(FULL, Action.READ)) == []


def test_a_read_that_answers_not_found_is_a_must_on_the_success_step() -> None:
    read = step({"status": "FAILED", "errorCode": "NotFound", "message": "gone"}, Action.READ)
    found = read_back_findings(SCHEMA, success(FULL), read)
    assert rules_of(found) == [("read-back-succeeds", "/resourceModel")]
    assert 'FAILED NotFound: "gone"' in found[0].message


def test_a_read_with_its_own_must_finding_is_not_blamed_twice() -> None:
    own = Finding("read-list-not-in-progress", Level.MUST, "IN_PROGRESS", "/status", 0)
    read = step({"status": "IN_PROGRESS"}, Action.READ, [own])
    assert read_back_findings(SCHEMA, success(FULL), read) == []


def test_the_should_the_read_back_proves_is_replaced() -> None:
    should = Finding("read-only-properties-present", Level.SHOULD, "missing", "/resourceModel/Arn")
    other = Finding("read-only-properties-present", Level.SHOULD, "x", "/resourceModel/Other")
    target = step(
        {"status": "SUCCESS", "resourceModel": {"WidgetId": "w-1"}}, findings=[should, other]
    )
    proven = Finding("read-back-complete", Level.MUST, "m", "/resourceModel/Arn", 0)
    add_findings(target, [proven])
    assert target.findings == [other, proven]


def test_the_rules_explain_themselves() -> None:
    for rule_id in ("read-back-succeeds", "read-back-complete"):
        assert rule(rule_id).scope == "read-back"
        assert explain(rule_id)
    assert rule("read-back-complete").level_reason


def test_a_nested_read_only_value_is_not_blamed_when_its_parent_is_missing() -> None:
    from cfn_debug.schema import ResourceSchema

    schema = ResourceSchema(
        {
            "typeName": "Corpus::Test::Nested",
            "properties": {
                "Id": {"type": "string"},
                "Items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"Name": {"type": "string"}, "ItemId": {"type": "string"}},
                    },
                },
            },
            "primaryIdentifier": ["/properties/Id"],
            "readOnlyProperties": ["/properties/Id", "/properties/Items/*/ItemId"],
        }
    )
    read = success({"Id": "1", "Items": [{"Name": "a", "ItemId": "i-1"}]}, Action.READ)
    assert read_back_findings(schema, success({"Id": "1"}), read) == []
    found = read_back_findings(schema, success({"Id": "1", "Items": [{"Name": "a"}]}), read)
    assert rules_of(found) == [("read-back-complete", "/resourceModel/Items/0/ItemId")]
