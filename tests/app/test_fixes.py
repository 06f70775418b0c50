"""Issue 13 item 7: the editor's checks per action, the edited marker, app keys on every screen,
the read-only footer and header, broken event files, where screenshots go, `open` of a file that
is no transcript, and the journal's path on quit."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import TextArea

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.config import AppConfig
from cfn_debug.app.screens.export import ExportScreen
from cfn_debug.app.screens.json_editor import JsonEditor
from cfn_debug.app.screens.scenarios import ScenariosScreen
from cfn_debug.app.widgets.events_panel import EventsPanel

from .helpers import (
    demo_config,
    opened,
    run_event,
    screen_text,
    select_event,
    set_text,
    status_prompt,
    wait_until,
)

SIZE = (140, 45)


def _copy_demo(target: Path) -> None:
    from cfn_debug.demo import PROJECT_DIR, sample_events_dir

    shutil.copytree(
        PROJECT_DIR, target, ignore=shutil.ignore_patterns("__pycache__", "sample_events")
    )
    shutil.copytree(sample_events_dir(), target / "sample_events")


async def test_the_editor_checks_read_and_delete_for_the_identifier(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        for name in ("read", "delete"):
            await select_event(pilot, name)
            await pilot.press("e")
            await wait_until(pilot, lambda: isinstance(app.screen, JsonEditor), "the editor")
            editor = app.screen
            assert isinstance(editor, JsonEditor)
            area = editor.query_one(TextArea)
            await pilot.pause()
            # The sample event names only the identifier: valid for its action.
            assert editor.problems == [], (name, editor.problems)
            data = json.loads(area.text)
            del data["request"]["desiredResourceState"]["WidgetId"]
            set_text(area, json.dumps(data, indent=2))
            await pilot.pause()
            assert any("identifier" in p and "WidgetId" in p for p in editor.problems), (
                editor.problems
            )
            await pilot.press("escape", "escape")  # the first leaves the text area
            await wait_until(pilot, lambda: not isinstance(app.screen, JsonEditor), "closed")


async def test_the_edited_marker_clears_when_the_file_is_reloaded(
    demo_state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    # No terminal to hand to an editor here: the hand-over is a no-op and `true` the editor.
    monkeypatch.setattr(app, "suspend", contextlib.nullcontext)
    monkeypatch.setenv("EDITOR", "true")
    monkeypatch.delenv("VISUAL", raising=False)
    async with app.run_test(size=SIZE) as pilot:
        index = await select_event(pilot, "read")
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, JsonEditor), "the editor")
        area = app.screen.query_one(TextArea)
        area.move_cursor(area.document.end)
        await pilot.press("space", "ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, JsonEditor), "closed")
        assert index in app.main.edited and "read *" in screen_text(app)
        await pilot.press("E")
        await wait_until(pilot, lambda: index not in app.main.edited, "the reload")
        await pilot.pause()
        assert "read *" not in screen_text(app)
        assert "Reloaded" in status_prompt(app).text


@pytest.mark.slow
async def test_app_keys_work_over_every_screen(demo_state: Path, tmp_path: Path) -> None:
    shots = tmp_path / "shots"
    app = CfnDebugApp(demo_config(demo_state, screenshot_dir=shots))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "read")
        await pilot.press("S")
        await wait_until(pilot, lambda: isinstance(app.screen, ScenariosScreen), "scenarios")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: shots.exists() and list(shots.glob("*.svg")), "the SVG")
        theme = app.theme
        await pilot.press("t")
        assert app.theme != theme
        await pilot.press("ctrl+e")
        await wait_until(pilot, lambda: isinstance(app.screen, ExportScreen), "export")
        await pilot.press("enter")  # the first format: JSON
        await wait_until(
            pilot, lambda: app.last_export is not None and app.last_export.exists(), "the export"
        )
        assert isinstance(app.screen, ScenariosScreen)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: "Replay modes" in screen_text(app), "help")


@pytest.mark.slow
async def test_a_saved_session_shows_only_what_works_and_names_its_type(
    demo_state: Path,
) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "read")
    journal = demo_state / "session.jsonl"
    assert journal.exists()
    saved = CfnDebugApp(AppConfig(transcript=journal, deterministic=True))
    async with saved.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: saved.session_runs, "the saved session")
        await pilot.pause()
        text = screen_text(saved)
        footer = text.rstrip().splitlines()[-1]
        for hidden in ("Run", "Mode", "Step", "Watch", "Edit", "Scenarios"):
            assert hidden not in footer, footer
        assert "Quit" in footer and "Help" in footer
        assert "session journal" in text.splitlines()[0]


async def test_an_event_file_that_did_not_load_shows_its_error_when_selected(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    _copy_demo(project)
    (project / "sample_events" / "broken.json").write_text('{"action": "CREATE", "request": {')
    app = CfnDebugApp(demo_config(tmp_path / "state", project_dir=project))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        panel = app.query_one(EventsPanel)
        group = next(n for n in panel.root.children if "not loaded" in str(n.label))
        panel.move_cursor(group.children[0])
        await wait_until(
            pilot, lambda: "Not loaded" in status_prompt(app).text, "the error in the status"
        )
        assert "broken.json" in status_prompt(app).text


def test_open_of_a_file_that_is_no_transcript_exits_2(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.txt"
    bogus.write_text("hello\nnot a transcript\n")
    done = subprocess.run(
        [sys.executable, "-m", "cfn_debug.cli", "open", str(bogus)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "notes.txt" in lines[0], done.stderr


def test_the_dashboard_without_a_terminal_exits_2_with_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cfn_debug.cli", "ui", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, (done.stdout[-500:], done.stderr[-500:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs a terminal" in lines[0], done.stderr


def test_quitting_prints_the_journal_path(
    demo_state: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from textual.app import App

    from cfn_debug.app import command as launch

    async def drive(pilot: object) -> None:
        await run_event(pilot, "read")  # type: ignore[arg-type]
        await pilot.press("q")  # type: ignore[attr-defined]

    def run_headless(self: CfnDebugApp) -> None:
        App.run(self, headless=True, size=SIZE, auto_pilot=drive)  # type: ignore[arg-type]

    monkeypatch.setattr(CfnDebugApp, "run", run_headless)
    monkeypatch.setattr(launch, "_no_terminal", lambda: None)  # headless is the test's terminal
    assert launch._run(demo_config(demo_state)) == 0
    err = capsys.readouterr().err
    assert f"session journal: {demo_state / 'session.jsonl'}" in err
