"""The read-back rules on hand-made steps: the SUCCESS step, then the READ cfn-debug sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfn_debug.contract import explain, rule
from cfn_debug.contract.read_back import read_back_findings
from cfn_debug.events import parse_event
from cfn_debug.readback import add_findings, requested_state
from cfn_debug.records import Action, Finding, InvokeResult, Level, OutcomeKind, RunRecord, Step
from cfn_debug.schema import ResourceSchema, load_schema

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
    for rule_id in ("read-back-succeeds", "read-back-complete", "read-back-keeps-requested"):
        assert rule(rule_id).scope == "read-back"
        assert explain(rule_id)
    assert rule("read-back-complete").level_reason
    assert rule("read-back-keeps-requested").level_reason


def test_a_nested_read_only_value_is_not_blamed_when_its_parent_is_missing() -> None:
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


# --- read-back-keeps-requested: the request's desired state against the READ ---

REQUEST = {"Name": "alpha", "Size": 3, "Labels": ["a"], "Config": {"Mode": "fast"}}
KEPT = {"WidgetId": "w-1", "Arn": "arn:widget", **REQUEST}


def kept(
    request: dict[str, Any] | None, returned: dict[str, Any], read: dict[str, Any]
) -> list[Any]:
    found = read_back_findings(SCHEMA, success(returned), success(read, Action.READ), request)
    return [f for f in found if f.rule_id == "read-back-keeps-requested"]


def test_a_read_that_drops_requested_properties_is_a_should_naming_each() -> None:
    """Size and the whole Config are gone from the READ (Config/Mode is not reported on its
    own: one finding per cause); the SUCCESS model had them all."""
    read = {k: v for k, v in KEPT.items() if k not in ("Size", "Config")}
    found = kept(REQUEST, KEPT, read)
    assert rules_of(found) == [
        ("read-back-keeps-requested", "/resourceModel/Size"),
        ("read-back-keeps-requested", "/resourceModel/Config"),
    ]
    assert {f.level for f in found} == {Level.SHOULD} and found[0].step == 0
    assert found[0].message.startswith("requested /Size = 3 is missing from the READ")
    assert '{"Mode": "fast"}' in found[1].message
    nested = kept(REQUEST, KEPT, {**KEPT, "Config": {}})
    assert rules_of(nested) == [("read-back-keeps-requested", "/resourceModel/Config/Mode")]


def test_a_request_nested_hundreds_deep_is_judged_not_a_crash() -> None:
    """A request whose Config holds an object 900 levels deep (no schema allows it, but the
    check reads whatever the event holds): the READ that drops the innermost value is reported
    at its pointer, with no RecursionError."""

    def nest(leaf: dict[str, Any]) -> dict[str, Any]:
        for _ in range(900):
            leaf = {"Deeper": leaf}
        return leaf

    request = {**REQUEST, "Config": nest({"Mode": "fast"})}
    found = kept(request, {**KEPT, **request}, {**KEPT, "Config": nest({})})
    assert [f.pointer for f in found] == ["/resourceModel/Config" + "/Deeper" * 900 + "/Mode"]


def test_a_lacking_value_too_deep_to_encode_is_named_not_a_crash() -> None:
    """The READ lacks a Config nested deeper than json.dumps follows from inside the engine (an
    event of ~990 levels still loads): the finding shows it as {...}, no RecursionError."""
    deep: dict[str, Any] = {"Mode": "fast"}
    for _ in range(1000):
        deep = {"Deeper": deep}
    request = {**REQUEST, "Config": deep}
    read = {k: v for k, v in KEPT.items() if k != "Config"}
    found = kept(request, {**KEPT, **request}, read)
    assert [(f.pointer, f.message) for f in found] == [
        (
            "/resourceModel/Config",
            "requested /Config = {...} is missing from the READ right after SUCCESS",
        )
    ]


def test_a_read_that_keeps_every_requested_property_has_no_finding() -> None:
    assert kept(REQUEST, KEPT, {**KEPT, "Size": 4, "Extra": "x"}) == []


def test_a_write_only_property_the_read_drops_has_no_finding() -> None:
    request = {**REQUEST, "Password": "secret-1"}
    assert kept(request, {**KEPT, "Password": "secret-1"}, KEPT) == []


def test_an_empty_value_the_read_omits_has_no_finding() -> None:
    """[] (which cloudformation-cli-python-lib makes None), an object or array of empties, ""."""
    request = {**REQUEST, "Labels": [], "Config": {"Rules": []}, "Tags": [{}], "Name": ""}
    read = {k: v for k, v in KEPT.items() if k not in ("Labels", "Config", "Name")}
    assert kept(request, KEPT, read) == []


def test_no_finding_where_another_rule_or_nothing_is_to_blame() -> None:
    """The SUCCESS model lacks it too (requested-properties-returned), a deprecated property,
    the primary identifier and readOnly values in the request, a READ that is no SUCCESS, and
    a request that is not judged (None)."""
    request = {**REQUEST, "Colour": "red", "WidgetId": "w-1", "Arn": "arn:widget"}
    read = {"WidgetId": "w-1", "Name": "alpha", "Labels": ["a"], "Config": {"Mode": "fast"}}
    returned = {k: v for k, v in KEPT.items() if k != "Size"}
    assert kept(request, returned, read) == []
    failed = step({"status": "FAILED", "errorCode": "NotFound", "message": "gone"}, Action.READ)
    assert [f.rule_id for f in read_back_findings(SCHEMA, success(KEPT), failed, REQUEST)] == [
        "read-back-succeeds"
    ]
    assert kept(None, KEPT, {"WidgetId": "w-1"}) == []


def test_an_invalid_request_is_not_held_against_the_read(tmp_path: Path) -> None:
    """Not judged: a request with an input-valid finding, an inputs_N_invalid event."""
    event = parse_event(
        {"action": "CREATE", "request": {"desiredResourceState": REQUEST}}, name="create"
    )
    first = success(KEPT)
    run = RunRecord("r", "create", None, Action.CREATE, "f", "e", "now", steps=[first])
    assert requested_state(event, run) == REQUEST
    first.findings = [Finding("input-valid", Level.MUST, "bad", "/desiredResourceState/Size", 0)]
    assert requested_state(event, run) is None
    first.findings = []
    event.path = tmp_path / "inputs" / "inputs_1_invalid.json"
    assert requested_state(event, run) is None
