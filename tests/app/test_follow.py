"""Issue 13 items 1 and 2: the dashboard follows the work, and a click never runs anything.

Real app, real embedded endpoint: the demo's 3-step create, a generated 101-step chain, and a demo
fault whose MUST finding sits on a middle step.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.widgets.events_panel import EventsPanel
from cfn_debug.app.widgets.step_detail import StepDetail
from cfn_debug.app.widgets.timeline import Timeline
from cfn_debug.records import Level

from .helpers import demo_config, opened, run_event, screen_text, status_prompt, wait_until
from .projects import counting_project

SIZE = (140, 45)


def expected_row(app: CfnDebugApp) -> int:
    run = app.main.view.run
    assert run is not None
    for step in run.steps:
        if any(f.level is Level.MUST for f in step.findings):
            return step.index
    return len(run.steps) - 1


async def assert_agreement(app: CfnDebugApp, pilot: object) -> None:
    """Cursor row, detail, status line and Findings tab all tell the same story."""
    run = app.main.view.run
    assert run is not None
    row = expected_row(app)
    timeline = app.query_one(Timeline)
    assert timeline.row_count == len(run.steps)
    assert timeline.cursor_row == row, f"cursor on {timeline.cursor_row}, expected {row}"
    detail = app.query_one(StepDetail)
    assert detail.step is not None and detail.step.index == row
    detail.active = "findings"
    await pilot.pause()  # type: ignore[attr-defined]
    text = screen_text(app)
    musts = len(run.must_failures)
    prompt = status_prompt(app)
    said = re.search(r"\((\d+) MUST\)", prompt.text)
    assert (int(said.group(1)) if said else 0) == musts, prompt.text
    # The Findings tab states the run's count from the same record.
    assert f"{musts} MUST" in text
    for finding in run.steps[row].findings:
        assert finding.rule_id in text
    if musts:
        assert "No findings." not in text.split("Whole chain")[0]


@pytest.mark.slow
async def test_three_step_chain_ends_on_its_last_step(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "create")
        assert app.main.view.run is not None and len(app.main.view.run.steps) == 3
        await assert_agreement(app, pilot)


@pytest.mark.slow
async def test_hundred_and_one_step_chain_ends_on_its_last_step(tmp_path: Path) -> None:
    project = counting_project(tmp_path / "project", 101)
    config = demo_config(tmp_path, project_dir=project, env_vars=None, max_reinvoke=200)
    app = CfnDebugApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "create")
        run = app.main.view.run
        assert run is not None and len(run.steps) == 101 and run.final_status == "SUCCESS"
        await assert_agreement(app, pilot)


@pytest.mark.slow
async def test_chain_with_a_must_finding_ends_on_that_step(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "fault-identifier-changes-mid-chain")
        run = app.main.view.run
        assert run is not None and run.must_failures
        row = expected_row(app)
        assert row < len(run.steps) - 1, "the fault's MUST finding is on a middle step"
        await assert_agreement(app, pilot)


@pytest.mark.slow
async def test_the_timeline_stays_where_the_user_put_it(tmp_path: Path) -> None:
    project = counting_project(tmp_path / "project", 101, pause_s=0.03)
    config = demo_config(tmp_path, project_dir=project, env_vars=None, max_reinvoke=200)
    app = CfnDebugApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("r")
        timeline = app.query_one(Timeline)
        await wait_until(pilot, lambda: timeline.row_count >= 3, "three rows")
        timeline.focus()
        await wait_until(pilot, lambda: app.focused is timeline, "the timeline to take focus")
        await pilot.press("ctrl+home")
        assert app.main.running and not app.main.view.ended, (
            "the key was pressed while the chain ran"
        )
        await wait_until(
            pilot, lambda: app.main.view.ended and not app.main.running, "the chain to end"
        )
        await pilot.pause()
        assert timeline.cursor_row == 0, "the user's row is kept"
        assert app.query_one(StepDetail).step is not None
        assert app.query_one(StepDetail).step.index == 0  # type: ignore[union-attr]


async def test_the_cursor_starts_on_the_first_event_and_a_click_only_selects(
    demo_state: Path,
) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.pause()
        panel = app.query_one(EventsPanel)
        node = panel.cursor_node
        assert node is not None and node.data is not None, "the cursor is on an event"
        assert app.main.selected_event == node.data
        first_leaf = next(n for n in panel.root.children[0].children if n.data is not None)
        assert node is first_leaf
        # A click on another event selects it and sends nothing.
        target = panel.root.children[1].children[0]
        assert target.data is not None
        # (+1: the panel's border)
        await pilot.click(EventsPanel, offset=(6, target.line - panel.scroll_offset.y + 1))
        await pilot.pause(0.3)
        assert app.main.selected_event == target.data
        assert app.main.view.run is None and not app.main.running and not app.main.view.steps
        # Enter runs it.
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: app.main.view.ended and not app.main.running, "the chain to end"
        )
        assert app.main.view.run is not None
        assert app.main.view.run.event_name == app.main.listed_events[target.data].name


async def test_running_from_the_palette_selects_the_event(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        for key in "Run read (READ)":
            await pilot.press("space" if key == " " else key)
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: app.main.view.ended and not app.main.running, "the chain to end"
        )
        panel = app.query_one(EventsPanel)
        assert panel.cursor_node is not None
        assert panel.cursor_node.data == app.main.selected_event
        assert app.main.listed_events[app.main.selected_event].name == "sample_events/read"


async def test_a_runs_first_step_is_shown_before_the_timeline_draws_its_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 14: the first step's findings do not wait for the timeline's batch of rows (held
    back here: 30 s) and its Selected through the screen; the timeline lands on that same row."""
    from cfn_debug.app.widgets import timeline

    monkeypatch.setattr(timeline, "FLUSH_S", 30.0)
    monkeypatch.setattr(timeline, "STREAM_FLUSH_S", 30.0)
    project = counting_project(tmp_path / "project", 3)
    config = demo_config(
        tmp_path, project_dir=project, env_vars=None, mode="step", deterministic=False
    )
    app = CfnDebugApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("r")
        await wait_until(pilot, lambda: app.main.view.awaiting is not None, "step mode to wait")
        detail = app.query_one(StepDetail)
        await wait_until(pilot, lambda: detail.step is not None, "the first step in the detail")
        assert detail.step is app.main.view.steps[0] and detail.row == 0
        assert app.query_one(Timeline).row_count == 0  # its row is still in the batch
        await pilot.press("x")
        await wait_until(
            pilot, lambda: app.main.view.ended and not app.main.running, "the chain to end"
        )
        timeline_widget = app.query_one(Timeline)
        assert timeline_widget.row_count == len(app.main.view.steps)
