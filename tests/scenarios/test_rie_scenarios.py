"""The same scenarios against the AWS Lambda Runtime Interface Emulator running the demo's
test entry point (one emulator at a time: it always uses port 9001 inside)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import DEMO, empty_state, fast_options, run_scenarios, widgets

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cfn_debug.events import Shape
from cfn_debug.scenarios import SCENARIOS, Outcome
from cfn_debug.workspace import Workspace
from support.rie import find_rie_binary, start_rie

pytestmark = pytest.mark.skipif(find_rie_binary() is None, reason="no emulator binary here")


def test_all_scenarios_pass_and_a_fault_fails_under_the_emulator(tmp_path: Path) -> None:
    state = empty_state(tmp_path / "state")
    with start_rie(
        DEMO / "src",
        "cfndebug_demo_widget.handlers.test_entrypoint",
        timeout_s=20,
        env={"CFN_DEBUG_DEMO_STATE": str(state)},
    ) as url:
        workspace = Workspace.open(DEMO, endpoint=url, function_name="function")
        try:
            good = run_scenarios(workspace, fast_options(shape=Shape.SAM))
            faulty = run_scenarios(
                workspace,
                fast_options(shape=Shape.SAM, type_configuration={"Fault": "DeleteReturnsModel"}),
                ("delete-read", "create-read"),
            )
        finally:
            workspace.close()
    assert set(good) == {s.name for s in SCENARIOS}
    assert {n: r.outcome for n, r in good.items() if r.outcome is not Outcome.PASSED} == {}
    assert all(r.actions[0].run.endpoint == url for r in good.values() if r.actions)
    assert faulty["delete-read"].outcome is Outcome.FAILED
    assert faulty["create-read"].outcome is Outcome.PASSED
    assert widgets(state) == []
