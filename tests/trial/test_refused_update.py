"""An update input the handler refuses whatever the resource (a Name it cannot change, which
the schema does not mark createOnly) says nothing about NotFound: update-without-create and
delete-update are not judged then, found trying Community::IAM::SamlProvider, which refuses a
rename with InvalidRequest before it looks up the provider. Fixture: tests/trial/projects/
renameless (real cloudformation-cli-python-lib handlers on the embedded endpoint)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

from cfn_debug.chain import ChainOptions
from cfn_debug.scenarios import (
    Outcome,
    ScenarioEnded,
    ScenarioOptions,
    ScenarioResult,
    ScenarioRunner,
)
from cfn_debug.scenarios.results import VerdictStatus
from cfn_debug.workspace import Workspace

RENAMELESS = Path(__file__).parent / "projects" / "renameless"
NAMES = ("update-without-create", "delete-update")


def _run(project: Path, state: Path) -> dict[str, ScenarioResult]:
    workspace = Workspace.open(project, env_vars={"Parameters": {"TRIAL_STATE": str(state)}})
    runner = ScenarioRunner(workspace, ScenarioOptions(chain=ChainOptions(max_delay_s=0)))

    async def go() -> dict[str, ScenarioResult]:
        found: dict[str, ScenarioResult] = {}
        async for event in runner.run(NAMES):
            if isinstance(event, ScenarioEnded):
                found[event.result.name] = event.result
        return found

    try:
        return asyncio.run(go())
    finally:
        workspace.close()


def test_an_update_refused_on_an_existing_resource_judges_no_not_found(tmp_path: Path) -> None:
    results = _run(RENAMELESS, tmp_path / "state")
    for name in NAMES:
        result = results[name]
        assert result.outcome is Outcome.BLOCKED, (name, result.outcome, result.verdicts)
        assert not [v for v in result.verdicts if v.status is VerdictStatus.FAIL], name
        assert "refuses this update input whatever the resource" in result.notes[-1]
    assert not list((tmp_path / "state").glob("*.json"))  # the probe's resource is deleted


def test_an_update_it_takes_is_still_judged(tmp_path: Path) -> None:
    project = tmp_path / "renameless"
    shutil.copytree(RENAMELESS, project)
    update = {"Name": "first-idp", "Document": "doc:two"}
    (project / "inputs" / "inputs_1_update.json").write_text(json.dumps(update))
    results = _run(project, tmp_path / "state")
    for name in NAMES:
        assert results[name].outcome is Outcome.PASSED, (name, results[name].notes)


def test_a_generated_create_input_the_handler_refuses_says_to_write_one(tmp_path: Path) -> None:
    """Community::Organizations::Policy refuses a generated input with both of two properties
    the schema allows together: every scenario was blocked with no word of inputs/."""
    project = tmp_path / "renameless"
    shutil.copytree(RENAMELESS, project, ignore=shutil.ignore_patterns("inputs"))
    workspace = Workspace.open(project, env_vars={"Parameters": {"TRIAL_STATE": str(tmp_path)}})
    runner = ScenarioRunner(workspace, ScenarioOptions(chain=ChainOptions(max_delay_s=0)))

    async def go() -> ScenarioResult:
        async for event in runner.run(("create-read",)):
            if isinstance(event, ScenarioEnded):
                return event.result
        raise AssertionError("no scenario ended")

    try:
        result = asyncio.run(go())
    finally:
        workspace.close()
    assert result.outcome is Outcome.BLOCKED, result.notes
    assert "write one it takes in inputs/inputs_1_create.json" in result.notes[-1]
