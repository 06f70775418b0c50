"""Issue 13: what the engine already reports, shown by the dashboard. The setup stack's progress
(--local-aws: moto's real server, the table-note fixture's real test/setup.yml) and the handlers'
environment build (the needs_deps fixture, the real pip) as a bar while the project opens; the
schema's warnings and the workspace's notices in a line that stays, and in full with `!`; the
READ cfn-debug sends after a SUCCESS marked as its own in the timeline."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from textual.pilot import Pilot

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.config import AppConfig
from cfn_debug.app.screens.notices import NoticesScreen
from cfn_debug.app.widgets.notices import Notices
from cfn_debug.app.widgets.progress import WorkProgress
from cfn_debug.app.widgets.timeline import READ_BACK_MARK, Timeline
from cfn_debug.demo import PROJECT_DIR as DEMO_DIR

from .helpers import demo_config, opened, run_event, screen_text, wait_until

TESTS = Path(__file__).resolve().parents[1]
TABLE_NOTE = TESTS / "aws" / "projects" / "table-note"
NEEDS_DEPS = TESTS / "endpoint" / "projects" / "needs_deps"
SIZE = (140, 40)


async def open_watching_the_bar(pilot: Pilot, timeout: float = 240.0) -> list[str]:
    """Wait for the project to open; return every progress line the screen showed meanwhile."""
    app = pilot.app
    assert isinstance(app, CfnDebugApp)
    bar = app.query_one(WorkProgress)
    seen: list[str] = []

    def look() -> bool:
        if bar.display:
            line = bar.line().plain
            if not seen or seen[-1] != line:
                seen.append(line)
        return app.workspace is not None or app.workspace_error is not None

    await wait_until(pilot, look, "the project to open", timeout=timeout)
    await pilot.pause()
    assert app.workspace_error is None, app.workspace_error
    return seen


@pytest.mark.slow
async def test_the_setup_stack_shows_a_bar_with_counts_while_the_project_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cfn_debug.aws.session import AwsOptions

    for name in [k for k in os.environ if k.startswith("AWS_")]:
        monkeypatch.delenv(name)
    config = AppConfig(
        project_dir=TABLE_NOTE,
        aws=AwsOptions(local=True),
        journal=tmp_path / "session.jsonl",
        max_delay=0.0,
    )
    app = CfnDebugApp(config)
    async with app.run_test(size=SIZE) as pilot:
        seen = await open_watching_the_bar(pilot)
        bar = app.query_one(WorkProgress)
        setup = [line for line in seen + bar.history if "Setting up the local AWS" in line]
        assert setup, f"no setup-stack progress shown: {seen} {bar.history}"
        # done/total of the stack's resources, the last one complete
        finished = [line for line in bar.history if "Setting up the local AWS" in line]
        assert finished, bar.history
        counts = finished[-1].split("  ")[-2].split()[-1]
        done, total = (int(n) for n in counts.split("/"))
        assert total >= 1 and done == total, finished[-1]
        assert not bar.display  # gone once the project is open


@pytest.mark.slow
async def test_the_environment_build_shows_a_bar_while_the_project_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a state directory of its own: no environment was built before, so pip runs
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    config = AppConfig(project_dir=NEEDS_DEPS, journal=tmp_path / "session.jsonl", max_delay=0.0)
    app = CfnDebugApp(config)
    async with app.run_test(size=SIZE) as pilot:
        seen = await open_watching_the_bar(pilot)
        bar = app.query_one(WorkProgress)
        building = [line for line in seen if "Building the handlers' Python environment" in line]
        assert building, f"the build was not shown: {seen}"
        assert any("Building the handlers' Python environment" in line for line in bar.history), (
            bar.history
        )
        assert not bar.display


def demo_with_a_schema_warning(tmp_path: Path) -> Path:
    """The demo, its schema naming a read-only property that does not exist (a warning: the
    pointer is ignored)."""
    project = tmp_path / "demo"
    shutil.copytree(DEMO_DIR, project, ignore=shutil.ignore_patterns("__pycache__", ".seeded"))
    schema_path = project / "cfndebug-demo-widget.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    schema["readOnlyProperties"].append("/properties/NoSuchProperty")
    schema_path.write_text(json.dumps(schema, indent=2), encoding="utf-8")
    return project


async def test_schema_warnings_stay_in_view_and_show_in_full(
    tmp_path: Path, demo_state: Path
) -> None:
    project = demo_with_a_schema_warning(tmp_path)
    app = CfnDebugApp(demo_config(demo_state, project_dir=project))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        notices = app.query_one(Notices)
        await wait_until(pilot, lambda: notices.display, "the notices line")
        # drawn on a later frame than the one that shows it (under load, several frames later)
        await wait_until(pilot, lambda: "1 notice" in screen_text(app), "the notices line drawn")
        text = screen_text(app)
        assert "1 notice" in text and "NoSuchProperty" in text, text

        await run_event(pilot, "inputs_1_create")  # a run does not push it away
        assert notices.display and "NoSuchProperty" in screen_text(app)

        await pilot.press("exclamation_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, NoticesScreen), "the notices")
        await pilot.pause()
        full = screen_text(app)
        assert "schema warning" in full and "/readOnlyProperties/" in full, full
        assert "resolves to nothing" in full
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, NoticesScreen), "closed")


async def test_the_demo_has_no_notices_line(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.pause()
        assert not app.query_one(Notices).display
        assert "notice" not in screen_text(app)


async def test_the_read_back_step_is_marked_as_cfn_debugs_own_read(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state, read_back=True))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "create")
        steps = app.main.view.steps
        assert steps[-1].origin == "read-back", [s.origin for s in steps]
        assert all(s.origin != "read-back" for s in steps[:-1])
        timeline = app.query_one(Timeline)
        text = screen_text(app)
        rows = [line for line in text.splitlines() if f"{READ_BACK_MARK}{steps[-1].index}" in line]
        assert len(rows) == 1 and "READ read-back" in rows[0], text
        # the legend says whose READ it is
        assert "cfn-debug's own READ" in str(timeline.border_subtitle)
        assert "cfn-debug's own READ" in text
        # the chain's own steps carry no mark: only the read-back's row and the legend do
        marked = [line for line in text.splitlines() if READ_BACK_MARK in line]
        assert len(marked) == 2, marked


async def test_no_read_back_no_legend(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state, read_back=False))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "create")
        assert READ_BACK_MARK not in screen_text(app)
        assert not app.query_one(Timeline).border_subtitle
