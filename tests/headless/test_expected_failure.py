"""inputs_N_invalid events (the project's inputs/ turned into events, as the dashboard lists
them) are expected to fail: FAILED InvalidRequest is their pass."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from cfn_debug.chain import ChainOptions
from cfn_debug.contract.expectations import expected_failure
from cfn_debug.events import EventSpec
from cfn_debug.records import EndReason, RunEnded, RunRecord
from cfn_debug.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
MEMBER = REPO / "tests" / "scenarios" / "projects" / "member"


def run_invalid(tmp_path: Path, project: Path) -> RunRecord:
    state = tmp_path / "state"
    state.mkdir(exist_ok=True)
    with Workspace.open(project, env_vars={"Parameters": {"CORPUS_STATE": str(state)}}) as ws:
        event = next(e for e in ws.events if e.name.endswith("inputs_1_invalid"))

        async def go() -> RunRecord:
            async for item in ws.run(event, ChainOptions()):
                if isinstance(item, RunEnded):
                    return item.run
            raise AssertionError("no RunEnded")

        return asyncio.run(go())


def test_the_event_is_marked() -> None:
    with Workspace.open(MEMBER, endpoint="http://127.0.0.1:9") as ws:
        marks = {e.name: expected_failure(e) for e in ws.events if isinstance(e, EventSpec)}
    assert marks["inputs/inputs_1_invalid"] == "InvalidRequest"
    assert marks["inputs/inputs_1_create"] is None


def test_failed_invalid_request_is_the_pass(tmp_path: Path) -> None:
    """Before, the input-valid finding on the event's own invalid input was a MUST (exit 1)."""
    run = run_invalid(tmp_path, MEMBER)
    assert run.final_status == "FAILED"
    assert run.findings == []


def test_a_handler_that_accepts_the_invalid_input_gets_a_should(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(MEMBER, project)
    handlers = project / "src" / "corpus_member" / "handlers.py"
    text = handlers.read_text()
    text = text.replace('model.Zone not in ("zone-a", "zone-b") or not model.MemberName', "False")
    handlers.write_text(text)
    run = run_invalid(tmp_path, project)
    assert [(f.rule_id, f.level.value) for f in run.findings if f.step == 0] == [
        ("invalid-input-rejected", "SHOULD")
    ]
    assert run.must_failures == []


def test_a_handler_the_runtime_cannot_load_is_not_judged(tmp_path: Path) -> None:
    """An ImportModuleError is infrastructure (exit 2), not the handler's answer to the invalid
    input: before, it also got the invalid-input-rejected SHOULD ("the handler answered crash")."""
    project = tmp_path / "project"
    shutil.copytree(MEMBER, project)
    handlers = project / "src" / "corpus_member" / "handlers.py"
    handlers.write_text("import cfn_debug_no_such_module  # noqa: F401\n" + handlers.read_text())
    run = run_invalid(tmp_path, project)
    assert run.end_reason is EndReason.ERROR
    assert run.findings == []
