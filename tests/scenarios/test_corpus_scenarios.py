"""The findings corpus: a correct handler per class of false alarm, run through the scenarios.

``projects/member`` is Corpus::Test::Member, written with cloudformation-cli-python-lib: a member
of a group that exists before any stack (a reference, marked with ``relationshipRef``); its
primary identifier is GroupName + MemberName, both createOnly; InitialPassword is writeOnly and
createOnly; Revision is readOnly and counts updates; delete finds the member by Zone, which only
the full model carries; a repeated create answers AlreadyExists, whatever the token. Every one
of these is correct, and each made cfn-debug report a MUST failure before.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cfn_debug.records import Action, Level
from cfn_debug.scenarios import (
    Outcome,
    Purpose,
    ScenarioEnded,
    ScenarioOptions,
    ScenarioRunner,
    VerdictStatus,
)
from cfn_debug.workspace import Workspace
from conftest import fast_options as demo_options
from conftest import run_scenarios

MEMBER = Path(__file__).parent / "projects" / "member"


def fast_options(**kwargs: object) -> ScenarioOptions:
    return demo_options(**{"generate": False, **kwargs})


def members(state: Path) -> list[str]:
    return sorted(p.stem for p in (state / "members").glob("*.json"))


@pytest.fixture
def member(tmp_path: Path) -> Iterator[tuple[Workspace, Path]]:
    state = tmp_path / "state"
    state.mkdir()
    workspace = Workspace.open(MEMBER, env_vars={"Parameters": {"CORPUS_STATE": str(state)}})
    try:
        yield workspace, state
    finally:
        workspace.close()


def counted_must(result: object) -> list[str]:
    return [f"{f.rule_id}: {f.message}" for a in result.actions for f in a.counted_must]  # type: ignore[attr-defined]


def test_a_reference_to_a_pre_existing_group_keeps_its_value(
    member: tuple[Workspace, Path],
) -> None:
    """GroupName is part of the identifier but names a group that exists: a suffix would name
    no group (the create then fails and every scenario was blocked). With --unique MemberName
    gets one (by default both are sent as written)."""
    workspace, state = member
    options = fast_options(unique=True)
    results = run_scenarios(workspace, options, ("create-read", "create-list"))
    for result in results.values():
        assert result.outcome is Outcome.PASSED, (result.name, result.notes, result.verdicts)
        create = result.actions[0].run.steps[0].request["request"]["desiredResourceState"]
        assert create["GroupName"] == "engineering"
        assert create["MemberName"].startswith("alice") and create["MemberName"] != "alice"
    assert members(state) == []


def test_update_without_create_sends_one_identifier_in_previous_and_desired(
    member: tuple[Workspace, Path],
) -> None:
    """The identifier holds createOnly parts: previous and desired state must carry the same
    values, or cfn-debug's own request breaks the createOnly input assumption."""
    workspace, _ = member
    result = run_scenarios(workspace, fast_options(), ("update-without-create",))[
        "update-without-create"
    ]
    assert result.outcome is Outcome.PASSED, (counted_must(result), result.verdicts)
    request = result.actions[0].run.steps[0].request["request"]
    desired, previous = request["desiredResourceState"], request["previousResourceState"]
    for name in ("GroupName", "MemberName", "Zone"):
        assert desired[name] == previous[name], name
    assert desired["GroupName"] == "engineering"  # the group exists; the member does not


def test_a_write_only_create_only_property_is_not_a_create_only_change(
    member: tuple[Workspace, Path],
) -> None:
    """InitialPassword is writeOnly: the created model never carries it, so the update's
    previous state lacks it. That is no change of a createOnly property."""
    workspace, state = member
    results = run_scenarios(workspace, fast_options(), ("update-read", "update-list"))
    for result in results.values():
        assert result.outcome is Outcome.PASSED, (result.name, counted_must(result))
        update = next(a for a in result.actions if a.label == "update")
        assert "InitialPassword" in update.run.steps[0].request["request"]["desiredResourceState"]
    assert members(state) == []


def test_update_read_reads_with_the_model_the_update_returned(
    member: tuple[Workspace, Path],
) -> None:
    workspace, _ = member
    result = run_scenarios(workspace, fast_options(), ("update-read",))["update-read"]
    assert result.outcome is Outcome.PASSED
    labels = [a.label for a in result.actions]
    read = result.actions[labels.index("read back")].run
    update = result.actions[labels.index("update")].run
    returned = update.steps[-1].result.progress["resourceModel"]
    assert returned["Revision"] == 2
    assert read.steps[0].request["request"]["desiredResourceState"]["Revision"] == 2


def test_cleanup_deletes_with_the_full_model(member: tuple[Workspace, Path]) -> None:
    """The delete handler needs Zone, which CloudFormation's full model carries; a delete by
    identifier alone fails, and the member was left behind."""
    workspace, state = member
    result = run_scenarios(workspace, fast_options(), ("create-read",))["create-read"]
    cleanup = [a for a in result.actions if a.purpose is Purpose.CLEANUP]
    assert len(cleanup) == 1
    sent = cleanup[0].run.steps[0].request["request"]["desiredResourceState"]
    assert sent["Zone"] == "zone-a" and sent["Revision"] == 1
    assert result.leaked == [] and members(state) == []


def test_a_resource_cleanup_cannot_delete_is_reported_once_and_blocks_nothing(
    member: tuple[Workspace, Path],
) -> None:
    """Every delete fails (ResourceConflict) and --no-unique sends the same identifier in every
    scenario: the one left behind is reported where it happened, the cleanup tried twice, and
    the next scenario's AlreadyExists is not judged (it was blocked, exit 1, before)."""
    workspace, state = member
    options = fast_options(unique=False, type_configuration={"Fault": "DeleteRefuses"})
    runner = ScenarioRunner(workspace, options)

    async def go() -> dict[str, object]:
        found = {}
        async for event in runner.run(("create-read", "create-list", "delete-create")):
            if isinstance(event, ScenarioEnded):
                found[event.result.name] = event.result
        return found

    results = asyncio.run(go())
    first = results["create-read"]
    assert first.outcome is Outcome.PASSED
    assert [a.label for a in first.actions if a.purpose is Purpose.CLEANUP] == [
        "cleanup: delete engineering|alice",
        "cleanup: delete engineering|alice (again)",
    ]
    assert first.leaked == [{"/GroupName": "engineering", "/MemberName": "alice"}]
    assert len(runner.leaked) == 1
    for name in ("create-list", "delete-create"):
        later = results[name]
        assert later.outcome is Outcome.SKIPPED, (name, later.notes)
        assert later.leaked == []
        assert any("could not be deleted earlier" in n for n in later.notes)
    assert members(state) == ["engineering__alice"]


def test_already_exists_for_the_same_token_is_a_should(member: tuple[Workspace, Path]) -> None:
    """A name-keyed create answers AlreadyExists to its own retry: nothing is created twice,
    so only the SHOULD rule fails; the MUST (one resource, through read and list) passes."""
    workspace, state = member
    result = run_scenarios(workspace, fast_options(), ("create-idempotent",))["create-idempotent"]
    assert result.outcome is Outcome.WARNED
    verdicts = {v.rule_id: v for v in result.verdicts}
    same = verdicts["scenario-create-same-token"]
    assert same.status is VerdictStatus.FAIL and same.level is Level.SHOULD
    assert "AlreadyExists" in same.message
    assert verdicts["scenario-create-idempotent"].status is VerdictStatus.PASS
    assert "1 new resource" in verdicts["scenario-create-idempotent"].message
    actions = [a.run.action for a in result.actions if a.purpose is Purpose.SCENARIO]
    assert Action.READ in actions and Action.LIST in actions
    assert members(state) == []

    answered = run_scenarios(
        workspace,
        fast_options(type_configuration={"Fault": "IdempotentByToken"}),
        ("create-idempotent",),
    )["create-idempotent"]
    assert answered.outcome is Outcome.PASSED


def test_generated_inputs_run_only_when_asked(member: tuple[Workspace, Path]) -> None:
    workspace, _ = member
    plain = ScenarioRunner(workspace, fast_options(generate=False))
    assert "generated-inputs" not in [s.name for s in plain.chosen(["all"])]
    assert [s.name for s in plain.chosen(["generated-inputs"])] == ["generated-inputs"]
    asked = ScenarioRunner(workspace, fast_options(generate=True))
    assert "generated-inputs" in [s.name for s in asked.chosen(["all"])]
    assert [s.name for s in asked.chosen(["create-read"])] == ["create-read", "generated-inputs"]


def test_a_generated_input_rejected_with_invalid_request_is_not_a_failure(
    member: tuple[Workspace, Path],
) -> None:
    """Generated GroupNames name no group: the handler answers FAILED InvalidRequest, which is
    its right for an input the schema allows but the service refuses."""
    workspace, state = member
    result = run_scenarios(workspace, fast_options(examples=4), ("generated-inputs",))[
        "generated-inputs"
    ]
    assert result.outcome is Outcome.PASSED, result.verdicts
    assert any("rejected with FAILED InvalidRequest" in n for n in result.notes)
    assert members(state) == []


def _scenario_cli(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CORPUS_STATE": str(state), "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "cfn_debug.cli", "scenario", "--project", str(MEMBER), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )


def test_write_only_values_are_masked_in_scenario_output(tmp_path: Path) -> None:
    """InitialPassword ("correct-horse", writeOnly) is in every create request: neither the
    console report (with the handler's logs) nor --json shows it unless --reveal-write-only."""
    secret = json.loads((MEMBER / "inputs" / "inputs_1_create.json").read_text())["InitialPassword"]
    names = ("create-read", "update-read", "update-without-create")
    for extra in ((), ("--json",), ("--logs",)):
        proc = _scenario_cli(tmp_path / "state", *names, *extra)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert secret not in proc.stdout + proc.stderr, extra
    proc = _scenario_cli(tmp_path / "state", "create-read", "--json", "--reveal-write-only")
    assert secret in proc.stdout
    document = json.loads(proc.stdout)
    assert document["errors"] == [] and document["leaked"] == []


TICKET = Path(__file__).parent / "projects" / "ticket"


def test_a_second_resource_for_the_same_token_is_still_a_must(tmp_path: Path) -> None:
    """Corpus::Test::Ticket generates its identifier: with the NotIdempotent fault a repeated
    request makes a second ticket, which the MUST (through the answer and list) reports; the
    correct handler answers the first ticket again and passes both rules."""
    state = tmp_path / "state"
    with Workspace.open(TICKET, env_vars={"Parameters": {"CORPUS_STATE": str(state)}}) as ws:
        good = run_scenarios(ws, fast_options(), ("create-idempotent", "update-without-create"))
        bad = run_scenarios(
            ws,
            fast_options(type_configuration={"Fault": "NotIdempotent"}),
            ("create-idempotent",),
        )["create-idempotent"]
    assert {n: r.outcome for n, r in good.items()} == {
        "create-idempotent": Outcome.PASSED,
        "update-without-create": Outcome.PASSED,
    }
    assert bad.outcome is Outcome.FAILED
    verdict = next(v for v in bad.verdicts if v.rule_id == "scenario-create-idempotent")
    assert verdict.status is VerdictStatus.FAIL and verdict.level is Level.MUST
    assert "2 new resources" in verdict.message
    assert bad.leaked == [] and list((state / "tickets").glob("*.json")) == []


def test_handler_and_input_text_reaches_the_terminal_escaped(tmp_path: Path) -> None:
    """A control sequence in an input value (and so in the identifiers, notes and the handler's
    messages that quote it) is printed escaped in the scenario's own lines: its notes and
    verdicts. (The chain's step lines are console.py's, whose safety is issue 12's.)"""
    import shutil

    project = tmp_path / "project"
    shutil.copytree(MEMBER, project)
    create = project / "inputs" / "inputs_1_create.json"
    create.write_text(json.dumps({**json.loads(create.read_text()), "MemberName": "al\x1b[31mice"}))
    env = {**os.environ, "CORPUS_STATE": str(tmp_path / "state"), "NO_COLOR": "1"}
    env["COLUMNS"] = "400"
    command = ["scenario", "create-create", "--unique", "--project", str(project)]
    proc = subprocess.run(
        [sys.executable, "-m", "cfn_debug.cli", *command],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    own = [
        line
        for line in proc.stdout.splitlines()
        if line.startswith(("  PASS", "  FAIL", "  unique values"))
    ]
    assert len(own) == 2, proc.stdout
    for line in own:
        assert "\x1b[31m" not in line
        assert "al\\x1b[31mice" in line


def test_a_read_that_needs_more_than_the_identifier_is_no_idempotency_failure(
    member: tuple[Workspace, Path], tmp_path: Path
) -> None:
    """Both creates named one resource; only the READ by identifier fails (the fault the
    read-identifier-only scenario judges). With a LIST handler the list counts one resource: a
    pass; without one nothing can count them: not judged, never a MUST failure."""
    workspace, state = member
    fault = fast_options(type_configuration={"Fault": "ReadNotFound"})
    listed = run_scenarios(workspace, fault, ("create-idempotent",))["create-idempotent"]
    verdict = {v.rule_id: v for v in listed.verdicts}["scenario-create-idempotent"]
    assert verdict.status is VerdictStatus.PASS, verdict.message
    assert "1 new resource" in verdict.message and "NotFound" in verdict.message

    unlisted = tmp_path / "no-list"
    shutil.copytree(MEMBER, unlisted, ignore=shutil.ignore_patterns("build", ".*"))
    schema_path = unlisted / "corpus-test-member.json"
    schema = json.loads(schema_path.read_text())
    del schema["handlers"]["list"]
    schema_path.write_text(json.dumps(schema))
    bare = Workspace.open(unlisted, env_vars={"Parameters": {"CORPUS_STATE": str(state)}})
    try:
        result = run_scenarios(bare, fault, ("create-idempotent",))["create-idempotent"]
    finally:
        bare.close()
    verdict = {v.rule_id: v for v in result.verdicts}["scenario-create-idempotent"]
    assert verdict.status is VerdictStatus.SKIP, verdict.message
    assert "could not be counted" in verdict.message
    assert not counted_must(result)
