"""LIST carries the current model, as `cfn test` does (cloudformation-cli's
contract/suite/resource/handler_commons.py sends it with every page).

``projects/note`` is Corpus::Test::Note: notes kept in a pre-existing bucket, listed per bucket as a
handler over S3 ListObjectsV2 does; without the model's Bucket its LIST fails InvalidRequest. It is
a correct handler: every scenario must pass it without a MUST, and `run` sends a LIST event that
names no model with the model the session's last create or update returned.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cfn_debug.scenarios import Outcome
from cfn_debug.workspace import Workspace
from conftest import REPO, fast_options, run_scenarios

NOTE = Path(__file__).parent / "projects" / "note"


@pytest.fixture
def note(tmp_path: Path) -> Iterator[tuple[Workspace, Path]]:
    state = tmp_path / "state"
    state.mkdir()
    workspace = Workspace.open(NOTE, env_vars={"Parameters": {"CORPUS_STATE": str(state)}})
    try:
        yield workspace, state
    finally:
        workspace.close()


def _list_requests(result: object) -> list[object]:
    return [
        step.request["request"].get("desiredResourceState")
        for action in result.actions  # type: ignore[attr-defined]
        for step in action.run.steps
        if step.action.value == "LIST"
    ]


@pytest.mark.slow
def test_a_list_scoped_by_a_parent_property_passes_every_scenario(
    note: tuple[Workspace, Path],
) -> None:
    workspace, state = note
    results = run_scenarios(workspace, fast_options(generate=False))
    assert results
    for result in results.values():
        must = [f"{f.rule_id}: {f.message}" for a in result.actions for f in a.counted_must]
        failed = [v for v in result.verdicts if v.failed and v.level.value == "MUST"]
        assert not must and not failed, (result.name, must, failed)
        assert result.outcome in (Outcome.PASSED, Outcome.WARNED, Outcome.SKIPPED), (
            result.name,
            result.outcome,
            result.notes,
        )
    sent = [m for r in results.values() for m in _list_requests(r)]
    assert sent and all(isinstance(m, dict) and m.get("Bucket") == "team-notes" for m in sent)
    assert not list((state / "buckets" / "team-notes").iterdir())  # cleaned up


def test_run_sends_a_list_event_without_a_model_with_the_current_model(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    listing = tmp_path / "list.json"
    listing.write_text(json.dumps({"action": "LIST", "request": {"clientRequestToken": "t"}}))
    env = {**os.environ, "CORPUS_STATE": str(state), "NO_COLOR": "1"}
    proc = subprocess.run(
        [
            sys.executable, "-m", "cfn_debug.cli", "run", "--project", str(NOTE), "--json",
            "--no-journal", str(NOTE / "inputs" / "inputs_1_create.json"), str(listing),
        ],
        capture_output=True, text=True, env=env, timeout=120, cwd=REPO,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = json.loads(proc.stdout)["runs"]
    assert [r["final_status"] for r in runs] == ["SUCCESS", "SUCCESS"]
    sent = runs[1]["steps"][0]["request"]["request"]["desiredResourceState"]
    assert sent["Bucket"] == "team-notes" and sent["Key"] == "standup"
    [page] = [s for s in runs[1]["steps"]]
    assert [m["Key"] for m in page["result"]["progress"]["resourceModels"]] == ["standup"]
