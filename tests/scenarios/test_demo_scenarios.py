"""Every scenario against the real demo handlers on the embedded endpoint, good and faulty.

FAILS below is the specification, written by hand from the handler contract and the demo's
fault descriptions (sample_events/README.md): which scenarios each fault must fail, and the rule
that must say why. SlowRead is left out: its read takes past the 30 s a read has (31 s by
default), so every scenario that reads would take 31 s per read; its ReadDelaySeconds knob can
only make it faster than the limit, which is no fault.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cfn_debug.contract import rule
from cfn_debug.scenarios import SCENARIOS, Outcome, ScenarioResult, VerdictStatus
from cfn_debug.workspace import Workspace
from conftest import empty_state, fast_options, open_demo, run_scenarios, widgets

ALL = {s.name for s in SCENARIOS}
CREATING = ALL - {"list-empty", "update-without-create"}
READING = {
    "create-read",
    "read-identifier-only",
    "update-read",
    "generated-inputs",
    "create-idempotent",  # reads the resource it created, to count it
}
DELETING = {"delete-read", "delete-update", "delete-delete", "delete-list", "delete-create"}

#: fault -> (the scenarios it must fail, the rule every one of them must name)
FAILS: dict[str, tuple[set[str], str]] = {
    "MissingPrimaryIdentifier": (CREATING, "primary-identifier-present"),
    "DropRequestedProperty": (CREATING, "requested-properties-returned"),
    "IdentifierChangesMidChain": (CREATING, "primary-identifier-stable"),
    "WriteOnlyOnRead": (READING, "write-only-not-returned"),
    "ReadInProgress": (READING, "read-list-not-in-progress"),
    "UnhandledException": (READING, "handler-exception"),
    "SchemaViolation": (READING, "model-conforms-to-schema"),
    "DeleteReturnsModel": (DELETING | {"generated-inputs"}, "delete-success-no-model"),
    "UpdateUpserts": (
        {"update-without-create", "delete-update"},
        "primary-identifier-matches-request",
    ),
    "FailedWithoutErrorCode": ({"create-create"}, "failed-error-code"),
}
#: the sequence-level rule a fault's failing scenario must also fail, where there is one
SEQUENCE: dict[tuple[str, str], str] = {
    ("UpdateUpserts", "update-without-create"): "scenario-update-not-found",
    ("UpdateUpserts", "delete-update"): "scenario-not-found-after-delete",
    ("FailedWithoutErrorCode", "create-create"): "scenario-create-already-exists",
    ("ReadInProgress", "create-read"): "scenario-read-after-create",
    ("SchemaViolation", "create-read"): "scenario-read-back-equal",
    ("DropRequestedProperty", "create-read"): "scenario-read-back-equal",
}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, Path]:
    state = empty_state(tmp_path_factory.mktemp("scenario-state"))
    workspace = open_demo(state)
    yield workspace, state
    workspace.close()


def _named_rules(result: ScenarioResult) -> set[str]:
    found = {f.rule_id for a in result.actions for f in a.counted_must}
    return found | {v.rule_id for v in result.verdicts if v.status is VerdictStatus.FAIL}


def test_on_the_demo_every_scenario_passes(demo: tuple[Workspace, Path]) -> None:
    workspace, state = demo
    results = run_scenarios(workspace, fast_options())
    assert set(results) == ALL
    assert {n: r.outcome for n, r in results.items() if r.outcome is not Outcome.PASSED} == {}
    # list-empty really checked an empty store; the generated inputs really ran
    assert [v.status for v in results["list-empty"].verdicts] == [VerdictStatus.PASS]
    assert results["generated-inputs"].examples_run == 3
    assert widgets(state) == [], "a scenario left a widget behind"
    for result in results.values():
        assert result.leaked == []
        passed = {v.rule_id for v in result.verdicts if v.status is VerdictStatus.PASS}
        assert passed, f"{result.name} judged nothing"


@pytest.mark.parametrize("fault", sorted(FAILS))
def test_each_fault_fails_exactly_its_scenarios(demo: tuple[Workspace, Path], fault: str) -> None:
    workspace, state = demo
    expected, rule_id = FAILS[fault]
    results = run_scenarios(workspace, fast_options(type_configuration={"Fault": fault}))
    failed = {n for n, r in results.items() if r.outcome is Outcome.FAILED}
    assert failed == expected
    assert {r.outcome for n, r in results.items() if n not in expected} == {Outcome.PASSED}
    for name in expected:
        named = _named_rules(results[name])
        assert rule_id in named or SEQUENCE.get((fault, name)) in named, (name, named)
        if (fault, name) in SEQUENCE:
            assert SEQUENCE[(fault, name)] in named
    assert widgets(state) == [], "cleanup left a widget behind"


def test_a_failed_verdict_carries_the_rule_and_its_contract_sentence(
    demo: tuple[Workspace, Path],
) -> None:
    workspace, _ = demo
    results = run_scenarios(
        workspace,
        fast_options(type_configuration={"Fault": "UpdateUpserts"}),
        ("update-without-create",),
    )
    verdict = results["update-without-create"].verdicts[-1].to_dict()
    assert verdict["rule_id"] == "scenario-update-not-found"
    assert verdict["status"] == "fail" and verdict["level"] == "MUST"
    assert (
        "An `update` handler MUST return FAILED with a `NotFound` error code if the resource did "
        "not exist prior to the `update` request." in verdict["contract"]
    )
    assert verdict["contract"] == rule("scenario-update-not-found").contract
    assert "SUCCESS" in verdict["message"] and "created" in verdict["message"]


def test_generated_inputs_shrink_a_failure_to_a_minimal_input(
    demo: tuple[Workspace, Path],
) -> None:
    workspace, state = demo
    results = run_scenarios(
        workspace,
        fast_options(
            type_configuration={"Fault": "DropRequestedProperty"}, examples=10, shrink_budget=80
        ),
        ("generated-inputs",),
    )
    result = results["generated-inputs"]
    assert result.outcome is Outcome.FAILED
    # Labels is the one property the fault drops; Name is the one the schema requires.
    assert result.minimal_input is not None
    assert set(result.minimal_input) == {"Name", "Labels"}
    assert len(result.minimal_input["Labels"]) == 1
    assert result.examples_run is not None and result.examples_run > 1
    # the report shows the input as it was sent (its Name with the run's unique suffix)
    sent = [
        a.run.steps[0].request["request"]["desiredResourceState"]
        for a in result.actions
        if a.label == "create (generated input)"
    ]
    assert result.minimal_input in sent
    verdict = next(v for v in result.verdicts if v.rule_id == "scenario-generated-inputs")
    assert result.minimal_input["Name"] in verdict.message
    assert widgets(state) == []


def test_a_create_that_names_no_identifier_is_reported_as_not_cleanable(
    demo: tuple[Workspace, Path],
) -> None:
    workspace, _ = demo
    results = run_scenarios(
        workspace,
        fast_options(type_configuration={"Fault": "MissingPrimaryIdentifier"}),
        ("create-idempotent",),
    )
    notes = results["create-idempotent"].cleanup
    assert any("named no primary identifier" in n and "cannot be deleted" in n for n in notes)


def test_list_empty_is_skipped_when_resources_exist(tmp_path: Path) -> None:
    state = tmp_path / "seeded"  # a fresh directory: the store seeds three widgets into it
    with open_demo(state) as workspace:
        results = run_scenarios(workspace, fast_options(), ("list-empty", "create-read"))
    assert results["list-empty"].outcome is Outcome.SKIPPED
    assert "3 resource(s) already exist" in results["list-empty"].verdicts[-1].message
    assert results["create-read"].outcome is Outcome.PASSED
    assert len(widgets(state)) == 3


def test_type_function_list_pagination_does_not_advance(tmp_path: Path) -> None:
    """Through the HandlerRequest entry point, cloudformation-cli-python-lib 2.1.20 does not
    pass nextToken to the handler: the second page is the first again, which the pagination
    rule must catch instead of looping (the seeded store holds more than one page of 2)."""
    state = tmp_path / "seeded"
    with open_demo(state, function_name="TypeFunction") as workspace:
        results = run_scenarios(workspace, fast_options(), ("create-list",))
    failed = {v.rule_id for v in results["create-list"].verdicts if v.status is VerdictStatus.FAIL}
    assert "scenario-list-pagination" in failed
    assert results["create-list"].outcome is Outcome.FAILED
    assert len(widgets(state)) == 3
