"""Snapshots of the main states at a fixed terminal size, against the real demo and endpoint.

The app runs with ``deterministic=True``: measured durations hidden, ids, clock times and ports
masked, animations off. Update with ``pytest tests/app --snapshot-update`` and review the SVGs.
"""

from __future__ import annotations

import json
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import TextArea

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.screens.json_editor import JsonEditor

from .helpers import demo_config, opened, run_event, select_event, set_text, wait_until

SIZE = (120, 36)


def test_start_screen(snap_compare, demo_state: Path) -> None:
    async def ready(pilot: Pilot) -> None:
        await opened(pilot)
        await pilot.pause()

    assert snap_compare(CfnDebugApp(demo_config(demo_state)), terminal_size=SIZE, run_before=ready)


def test_good_create_chain(snap_compare, demo_state: Path) -> None:
    async def run(pilot: Pilot) -> None:
        await run_event(pilot, "create")

    # read_back off: this snapshot is the chain itself (the read-back step is shown elsewhere)
    config = demo_config(demo_state, read_back=False)
    assert snap_compare(CfnDebugApp(config), terminal_size=SIZE, run_before=run)


def test_fault_findings(snap_compare, demo_state: Path) -> None:
    async def run(pilot: Pilot) -> None:
        await run_event(pilot, "fault-missing-primary-identifier")

    assert snap_compare(CfnDebugApp(demo_config(demo_state)), terminal_size=SIZE, run_before=run)


def test_light_theme_model_diff(snap_compare, demo_state: Path) -> None:
    async def run(pilot: Pilot) -> None:
        await run_event(pilot, "fault-drop-requested-property")
        await pilot.press("t", "2")

    config = demo_config(demo_state, read_back=False)  # the model diff of the chain's last step
    assert snap_compare(CfnDebugApp(config), terminal_size=SIZE, run_before=run)


def test_help_screen(snap_compare, demo_state: Path) -> None:
    async def run(pilot: Pilot) -> None:
        await opened(pilot)
        await pilot.press("question_mark")

    assert snap_compare(CfnDebugApp(demo_config(demo_state)), terminal_size=SIZE, run_before=run)


def test_event_editor_with_a_schema_problem(snap_compare, demo_state: Path) -> None:
    async def run(pilot: Pilot) -> None:
        app = pilot.app
        assert isinstance(app, CfnDebugApp)
        await select_event(pilot, "create")
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, JsonEditor), "the editor")
        area = app.screen.query_one(TextArea)
        data = json.loads(area.text)  # credentials redacted
        data["request"]["desiredResourceState"]["Color"] = "plaid"
        set_text(area, json.dumps(data, indent=2))
        area.move_cursor((0, 0))
        await pilot.pause()

    assert snap_compare(CfnDebugApp(demo_config(demo_state)), terminal_size=SIZE, run_before=run)


def test_project_that_cannot_open(snap_compare, tmp_path: Path) -> None:
    config = demo_config(tmp_path, project_dir=Path("/nonexistent/cfn-debug-project"))

    async def ready(pilot: Pilot) -> None:
        await opened(pilot)
        await pilot.pause()

    assert snap_compare(CfnDebugApp(config), terminal_size=SIZE, run_before=ready)


def test_fault_findings_80x24(snap_compare, demo_state: Path) -> None:
    async def run(pilot: Pilot) -> None:
        await run_event(pilot, "fault-identifier-changes-mid-chain")

    app = CfnDebugApp(demo_config(demo_state))
    assert snap_compare(app, terminal_size=(80, 24), run_before=run)


def test_timing_220x60(snap_compare, demo_state: Path) -> None:
    async def run(pilot: Pilot) -> None:
        await run_event(pilot, "create")
        await pilot.press("7")

    app = CfnDebugApp(demo_config(demo_state))
    assert snap_compare(app, terminal_size=(220, 60), run_before=run)


def test_notices_and_read_back(snap_compare, tmp_path: Path, demo_state: Path) -> None:
    """The notices line (a schema warning) and the read-back READ with its legend."""
    from .test_engine_work import demo_with_a_schema_warning

    project = demo_with_a_schema_warning(tmp_path)

    async def run(pilot: Pilot) -> None:
        await run_event(pilot, "inputs_1_create")

    config = demo_config(demo_state, project_dir=project, read_back=True)
    assert snap_compare(CfnDebugApp(config), terminal_size=SIZE, run_before=run)
