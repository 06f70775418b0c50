"""example_inputs/ that the schema rejects are passed over, not sent.

`cfn init` writes example_inputs/ for the example schema a project starts from, and published
projects keep them unchanged (Community::Account::AlternateContact, Community::SecurityHub::Hub
of org-formation: TPSCode, Title, Memo ...). `cfn test` reads inputs/ only; cfn-debug read them
as the project's inputs: `run` sent the example and reported 13 input-valid MUSTs (exit 1) on a
handler that did nothing wrong, and the scenarios took it as their input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from cfn_debug.project import discover_project
from cfn_debug.scenarios.inputs import resolve_inputs
from cfn_debug.schema import load_schema
from cfn_debug.workspace import Workspace
from support.cli import run_cli

REPO = Path(__file__).resolve().parents[2]
MEMBER = REPO / "tests" / "scenarios" / "projects" / "member"
MEMBER_SCHEMA = "corpus-test-member.json"
#: the model `cfn init` writes into each example_inputs/ file (its example schema's properties)
CFN_INIT_EXAMPLE = {
    "TPSCode": "...",
    "Title": "...",
    "CoverSheetIncluded": "...",
    "DueDate": "...",
    "Memo": "...",
    "Tags": "...",
}


def _project(tmp_path: Path, *, cfn_init_example: bool) -> Path:
    """The member fixture with its inputs/ as example_inputs/ (cfn init's example, or kept)."""
    project = tmp_path / "project"
    shutil.copytree(MEMBER, project)
    (project / "inputs").rename(project / "example_inputs")
    if cfn_init_example:
        for kind in ("create", "update", "invalid"):
            path = project / "example_inputs" / f"inputs_1_{kind}.json"
            path.write_text(json.dumps(CFN_INIT_EXAMPLE))
    return project


def _run(tmp_path: Path, project: Path) -> subprocess.CompletedProcess[str]:
    state = tmp_path / "state"
    state.mkdir(exist_ok=True)
    env = {**os.environ, "CORPUS_STATE": str(state), "NO_COLOR": "1"}
    return run_cli("run", "--project", str(project), "--json", env=env, timeout=120, cwd=REPO)


def test_run_passes_over_cfn_inits_example(tmp_path: Path) -> None:
    proc = _run(tmp_path, _project(tmp_path, cfn_init_example=True))
    assert proc.returncode == 2, proc.stderr  # nothing to run: a usage error, not a finding
    document = json.loads(proc.stdout)
    assert document["must_findings"] == 0 and document["runs"] == []
    [error] = document["errors"]
    assert "no events to run" in error["message"]
    assert "example_inputs/inputs_1_*.json passed over" in error["message"]
    assert "inputs_1_create.json is not valid against the schema" in error["message"]


def test_examples_the_schema_accepts_are_still_the_projects_inputs(tmp_path: Path) -> None:
    project = _project(tmp_path, cfn_init_example=False)
    with Workspace.open(project, endpoint="http://127.0.0.1:9") as ws:
        names = sorted(e.name for e in ws.project.events)
        assert names == [f"example_inputs/inputs_1_{k}" for k in ("create", "invalid", "update")]
        assert not any("passed over" in note for note in ws.notices)
    inputs = resolve_inputs(discover_project(project), load_schema(project / MEMBER_SCHEMA))
    assert inputs.from_files and inputs.source.startswith("example_inputs/inputs_1_create.json")


def test_the_scenarios_do_not_take_cfn_inits_example(tmp_path: Path) -> None:
    project = _project(tmp_path, cfn_init_example=True)
    with Workspace.open(project, endpoint="http://127.0.0.1:9") as ws:
        assert ws.project.events == []
        assert any("example_inputs/inputs_1_*.json passed over" in n for n in ws.notices)
    schema = load_schema(project / MEMBER_SCHEMA)
    inputs = resolve_inputs(discover_project(project), schema)
    assert not inputs.from_files
    assert inputs.source.startswith("generated from the schema")
    assert "example_inputs/inputs_1_create.json is not valid against the schema" in inputs.source
