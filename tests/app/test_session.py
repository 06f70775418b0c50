"""The dashboard's session: the crash-safe journal, exports, `cfn-debug open` read-only, errors
shown in place, and screenshots without credentials. Real app, real demo, real endpoint."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from textual.message import Message
from textual.widgets import OptionList

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.command import open_command
from cfn_debug.app.config import AppConfig
from cfn_debug.app.screens.export import ExportScreen
from cfn_debug.app.widgets.events_panel import EventsPanel
from cfn_debug.app.widgets.header import SessionHeader
from cfn_debug.app.widgets.timeline import Timeline
from cfn_debug.cli import COMMANDS, _resolve, build_parser
from cfn_debug.errors import JournalError
from cfn_debug.export import load_transcript
from cfn_debug.journal.session import load_journal

from .helpers import demo_config, opened, run_event, screen_text, status_prompt, wait_until

SIZE = (140, 45)


async def test_every_run_is_journalled_with_all_its_steps(demo_state: Path) -> None:
    config = demo_config(demo_state)
    app = CfnDebugApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "create")
        shown = list(app.main.view.steps or [])
        # Read while the app still runs: every line is on disk as it happens.
        session = load_journal(config.journal)  # type: ignore[arg-type]
        assert len(session.runs) == 1
        run = session.runs[0]
        assert run.event_name.endswith("create")
        assert run.final_status == "SUCCESS"
        assert [s.index for s in run.steps] == [s.index for s in shown]
        assert [s.result.status for s in run.steps] == [s.result.status for s in shown]
        assert session.project is not None and Path(session.project).name == "demo"
        assert session.endpoint is not None and session.endpoint.startswith("embedded")
        # The help screen says where the journal is.
        await pilot.press("question_mark")
        assert "Session journal: …/session.jsonl" in screen_text(app)


async def test_export_key_and_palette_write_each_format_beside_the_journal(
    demo_state: Path,
) -> None:
    config = demo_config(demo_state)
    app = CfnDebugApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "fault-write-only-on-read")
        journal = config.journal
        assert journal is not None
        # The key asks for the format.
        await pilot.press("ctrl+e")
        await wait_until(pilot, lambda: isinstance(app.screen, ExportScreen), "the chooser")
        options = app.screen.query_one(OptionList)
        options.highlighted = 0  # JSON
        await pilot.press("enter")
        target = journal.with_suffix(".json")
        await wait_until(pilot, lambda: app.last_export == target, "the JSON export")
        assert str(target) in status_prompt(app).text
        runs = load_transcript(target).runs
        assert len(runs) == 1 and runs[0].event_name.endswith("fault-write-only-on-read")
        assert any(f.rule_id == "write-only-not-returned" for f in runs[0].findings)
        assert len(runs[0].steps) == len(app.main.view.steps or [])
        # The palette names each format.
        await pilot.press("ctrl+p")
        await pilot.press(*"Export session as Markdown")
        await pilot.pause(0.3)
        await pilot.press("enter")
        markdown = journal.with_suffix(".md")
        await wait_until(pilot, lambda: app.last_export == markdown, "the Markdown export")
        assert "write-only-not-returned" in markdown.read_text(encoding="utf-8")
        app.action_export("junit")
        junit = journal.with_suffix(".xml")
        await wait_until(pilot, lambda: app.last_export == junit, "the JUnit export")
        root = ET.parse(junit).getroot()
        failures = [c for c in root.iter("testcase") if c.find("failure") is not None]
        assert failures, "a MUST finding is a failed testcase"


async def test_open_shows_a_saved_session_read_only(tmp_path: Path) -> None:
    state = tmp_path / "state"
    config = demo_config(state)
    app = CfnDebugApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "create")
        await run_event(pilot, "fault-missing-primary-identifier")
        app.action_export("json")
        transcript = (config.journal or Path()).with_suffix(".json")
        await wait_until(pilot, lambda: app.last_export == transcript, "the export")
        saved_steps = [len(r.steps) for r in app.session_runs]

    for path in (transcript, config.journal):
        assert path is not None
        viewer = CfnDebugApp(AppConfig(transcript=path, deterministic=True))
        async with viewer.run_test(size=SIZE) as pilot:
            await wait_until(
                pilot,
                lambda v=viewer: v.saved is not None or v.workspace_error is not None,
                "the saved session",
            )
            assert viewer.workspace is None, "no endpoint, no project"
            timeline = viewer.query_one(Timeline)
            await wait_until(pilot, lambda t=timeline: t.row_count, "the first run's steps")
            assert [len(r.steps) for r in viewer.session_runs] == saved_steps
            panel = viewer.query_one(EventsPanel)
            assert panel.root.children and "Runs (2)" in str(panel.root.children[-1].label)
            kind = "session journal" if path.suffix == ".jsonl" else "JSON transcript"
            assert viewer.query_one(SessionHeader).mode == f"read-only {kind}"
            # The first run is shown: its steps in the timeline.
            assert viewer.query_one(Timeline).row_count == saved_steps[0]
            assert "SUCCESS" in screen_text(viewer)
            # The second run: its finding in the Findings tab.
            panel.select_index(1)
            await wait_until(
                pilot,
                lambda t=timeline: t.row_count == saved_steps[1],
                "the second run's steps",
            )
            run = viewer.session_runs[1]
            finding = next(f for f in run.findings if f.rule_id == "primary-identifier-present")
            if finding.step is not None:
                viewer.query_one(Timeline).move_cursor(row=finding.step)
            await pilot.press("1")
            assert "primary-identifier-present" in screen_text(viewer)
            # Running is off: the key does nothing and the footer does not offer it.
            shown = viewer.main.view
            await pilot.press("r")
            await pilot.pause()
            prompt = status_prompt(viewer)  # the run's outcome, and that nothing runs here
            assert "read-only" in prompt.text + prompt.hint
            assert viewer.main.view is shown and viewer.main.view.ended
            assert " r Run" not in screen_text(viewer).splitlines()[-1]
            assert viewer.workspace is None


def test_open_command_and_ui_options(tmp_path: Path) -> None:
    assert _resolve(COMMANDS["open"]) is open_command
    args = build_parser().parse_args(["open", str(tmp_path / "t.json")])
    with pytest.raises(JournalError) as raised:
        open_command(args)
    assert "t.json" in str(raised.value) and "transcript" in str(raised.value)
    args = build_parser().parse_args(["ui", "--journal", "j.jsonl", "--build", "make", "--watch"])
    config = AppConfig.from_args(args)
    assert config.journal == Path("j.jsonl") and config.build == "make" and config.watch


class Boom(Message):
    """Test-only: the app below fails while handling it."""


class FailingApp(CfnDebugApp):
    def on_boom(self, _message: Boom) -> None:
        raise RuntimeError("boom-in-a-handler")


async def test_an_error_in_a_handler_is_shown_and_the_app_goes_on(demo_state: Path) -> None:
    config = demo_config(demo_state)
    app = FailingApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        # at once: the "N events found" prompt may still be on its way (by message, once the
        # tree has the events); it must not cover the error
        app.post_message(Boom())
        await wait_until(pilot, lambda: app.ui_errors, "the error to be caught")
        assert app.is_running
        # the status line takes the error by message: wait for it to be drawn
        await wait_until(
            pilot, lambda: status_prompt(app).tone == "error", "the error on the status line"
        )
        await pilot.pause(0.3)
        prompt = status_prompt(app)
        assert "RuntimeError: boom-in-a-handler" in prompt.text
        assert "Internal error" in screen_text(app)
        log = (config.journal or Path()).with_suffix(".errors.log")
        assert "boom-in-a-handler" in log.read_text(encoding="utf-8")
        # It still works, and still journals.
        await run_event(pilot, "read")
        assert app.main.view.run is not None and app.main.view.run.final_status == "SUCCESS"
        assert len(load_journal(config.journal).runs) == 1  # type: ignore[arg-type]
    assert app.return_code in (0, None)


async def test_screenshot_never_shows_credentials(
    demo_state: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shots = tmp_path / "shots"
    project_dir = tmp_path / "cwd"
    project_dir.mkdir()
    monkeypatch.chdir(project_dir)  # Ctrl+S never writes into the current directory
    secrets = {
        "accessKeyId": "AKIAZZSCREENSHOT0001",
        "secretAccessKey": "ScreenshotSecretKey/abcdefghijklmnopqrst+",
        "sessionToken": "ScreenshotSessionTokenValue123456",
    }
    app = CfnDebugApp(demo_config(demo_state, screenshot_dir=shots))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        index = next(i for i, e in enumerate(app.main.listed_events) if e.name.endswith("/create"))
        data = json.loads(json.dumps(app.main.listed_events[index].data))
        data["credentials"] = dict(secrets)
        app.main.event_edited(index, data)
        assert app.main.listed_events[index].data["credentials"] == secrets
        await run_event(pilot, "create")
        await pilot.press("3")  # the Request tab: the request as sent
        assert "REDACTED" in screen_text(app)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.last_screenshot is not None, "the screenshot")
    svg = (app.last_screenshot or Path()).read_text(encoding="utf-8")
    assert svg.startswith("<svg") and "REDACTED" in svg
    for value in secrets.values():
        assert value not in svg
        assert value[:12] not in svg
    assert [p.name for p in shots.iterdir()] == [(app.last_screenshot or Path()).name]
    assert list(project_dir.iterdir()) == []
