"""Pilot tests: the real dashboard, the real demo handlers, the real embedded endpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import TextArea

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.screens.json_editor import JsonEditor
from cfn_debug.app.widgets.events_panel import EventsPanel
from cfn_debug.app.widgets.header import SessionHeader
from cfn_debug.app.widgets.run_status import Countdown, InFlight, Prompt, RunStatus
from cfn_debug.app.widgets.step_detail import StepDetail
from cfn_debug.app.widgets.timeline import Timeline
from cfn_debug.records import Level, OutcomeKind

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


async def test_a_success_is_read_back_as_cfn_debugs_own_step(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state, read_back=True))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "create")
        run = app.main.view.run
        assert run is not None and run.final_status == "SUCCESS"
        shown = app.main.view.steps or []
        # the chain, then cfn-debug's own READ (cfn_debug.readback), marked origin "read-back"
        assert shown[-1].origin == "read-back" and shown[-1].action.value == "READ"
        assert all(s.origin is None for s in shown[:-1])
        assert app.query_one(Timeline).row_count == len(shown)
        assert [f for f in run.findings if f.level is Level.MUST] == []


async def test_good_create_chain_runs_to_success(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state, read_back=False))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "create")
        run = app.main.view.run
        assert run is not None
        assert run.final_status == "SUCCESS"
        steps = app.main.view.steps or []
        assert len(steps) >= 2, "create stabilizes over IN_PROGRESS steps"
        assert all(s.result.status == "IN_PROGRESS" for s in steps[:-1])
        assert [f for f in run.findings if f.level is Level.MUST] == []
        timeline = app.query_one(Timeline)
        assert timeline.row_count == len(steps)
        text = screen_text(app)
        assert "SUCCESS" in text and "IN_PROGRESS" in text
        prompt = status_prompt(app)
        assert prompt.tone in ("ok", "warn") and prompt.text.startswith("SUCCESS")
        # The last step is selected: its model diff shows the generated identifier.
        await pilot.press("2")
        assert "/WidgetId" in screen_text(app)
        # The whole chain against the limits.
        await pilot.press("7")
        assert "Chain total" in screen_text(app)


FAULTS = [
    ("fault-missing-primary-identifier", "primary-identifier-present"),
    ("fault-write-only-on-read", "write-only-not-returned"),
    ("fault-read-in-progress", "read-list-not-in-progress"),
    ("fault-unhandled-exception", "handler-exception"),
    ("fault-schema-violation", "model-conforms-to-schema"),
    ("fault-drop-requested-property", "requested-properties-returned"),
    ("fault-identifier-changes-mid-chain", "primary-identifier-stable"),
    ("fault-failed-without-error-code", "failed-error-code"),
    ("fault-delete-returns-model", "delete-success-no-model"),
    ("fault-update-upserts", "primary-identifier-matches-request"),
]


@pytest.mark.parametrize(("event", "rule_id"), FAULTS, ids=[f for f, _ in FAULTS])
async def test_each_fault_shows_its_finding(demo_state: Path, event: str, rule_id: str) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, event)
        run = app.main.view.run
        assert run is not None
        with_rule = [f for f in run.findings if f.rule_id == rule_id]
        assert with_rule, f"{event}: no {rule_id} finding in {[f.rule_id for f in run.findings]}"
        finding = with_rule[0]
        # Select the step the finding belongs to (chain findings show under every step).
        if finding.step is not None:
            app.query_one(Timeline).move_cursor(row=finding.step)
        await pilot.press("1")
        detail = app.query_one(StepDetail)
        assert detail.active == "findings"
        text = screen_text(app)
        assert rule_id in text
        assert finding.level.value in text
        # The finding is explained with the sentence of the contract it enforces, for the
        # step's action only (a rule's sentences about other actions are not quoted).
        from cfn_debug.contract import rule

        action = run.steps[finding.step].action if finding.step is not None else run.action
        entry = rule(rule_id)
        flat = " ".join(text.split())
        assert " ".join(entry.contract_for(action).split()[:4]) in flat
        assert "Contract:" in text
        for line in entry.contract.splitlines():
            if line not in entry.contract_for(action).splitlines():
                assert " ".join(line.split()[:6]) not in flat, line


async def test_crashing_handler_shows_the_traceback_in_logs(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "fault-unhandled-exception")
        last = (app.main.view.steps or [])[-1]
        assert any("Traceback" in line for line in last.result.logs)
        await pilot.press("5")
        text = screen_text(app)
        assert "Traceback (most recent call last)" in text
        assert status_prompt(app).tone == "error"


async def test_step_mode_one_invocation_per_key_with_editable_context(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("m")
        assert app.main.mode == "step"
        assert app.query_one(SessionHeader).mode == "step"
        await select_event(pilot, "create")
        await pilot.press("r")
        await wait_until(pilot, lambda: app.main.view.awaiting is not None, "step mode to wait")
        # One invocation has run and the chain waits: nothing more happens without a key.
        assert len(app.main.view.steps or []) == 1
        awaiting = app.main.view.awaiting
        assert awaiting is not None and awaiting.next_index == 1
        await pilot.pause(0.2)
        assert len(app.main.view.steps or []) == 1
        assert "s sends it" in screen_text(app)

        # Edit the callbackContext the next invocation sends.
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, JsonEditor), "the context editor")
        edited = dict(awaiting.callback_context or {})
        edited["editedInTest"] = True
        area = app.screen.query_one(TextArea)
        set_text(area, json.dumps(edited))
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, JsonEditor), "editor to close")
        assert app.main.pending_context == edited

        await pilot.press("s")
        await wait_until(
            pilot, lambda: len(app.main.view.steps or []) == 2, "the second invocation"
        )
        second = (app.main.view.steps or [])[1]
        assert second.request["callbackContext"] == edited

        # Keep stepping until the chain ends.
        while not app.main.view.ended:
            await wait_until(
                pilot,
                lambda: app.main.view.awaiting is not None or app.main.view.ended,
                "a step prompt",
            )
            if app.main.view.awaiting is not None:
                await pilot.press("s")
                await pilot.pause()
        assert app.main.view.run is not None and app.main.view.run.final_status == "SUCCESS"


async def test_skipping_a_delay(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state, max_delay=None))
    async with app.run_test(size=SIZE) as pilot:
        await select_event(pilot, "create")
        await pilot.press("r")
        status = app.query_one(RunStatus)
        await wait_until(pilot, lambda: isinstance(status.state, Countdown), "a countdown")
        countdown = status.state
        assert isinstance(countdown, Countdown)
        assert countdown.seconds >= 1, "the demo asks for a callback delay"
        assert "press d to skip" in screen_text(app)
        await pilot.press("d")
        invocations = app.main.view.invocations or []
        await wait_until(
            pilot,
            lambda: any(i.index == countdown.index + 1 for i in invocations) or app.main.view.ended,
            "the next invocation",
        )
        following = [i for i in invocations if i.index == countdown.index + 1]
        assert following, "the chain went on"
        waited = following[0].started_monotonic - countdown.started
        assert waited < countdown.seconds, f"waited {waited:.2f} s of a {countdown.seconds} s delay"
        # Skip every remaining delay too, so the test ends quickly.
        while not app.main.view.ended:
            if isinstance(status.state, Countdown):
                await pilot.press("d")
            await pilot.pause(0.02)
        assert app.main.view.run is not None and app.main.view.run.final_status == "SUCCESS"


async def test_editing_an_event_validates_as_you_type_and_runs_the_edit(demo_state: Path) -> None:
    # read_back off: the Request tab below shows the chain's last step, not cfn-debug's READ
    app = CfnDebugApp(demo_config(demo_state, read_back=False))
    async with app.run_test(size=SIZE) as pilot:
        index = await select_event(pilot, "create")
        original = app.main.listed_events[index].data
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, JsonEditor), "the event editor")
        editor = app.screen
        assert isinstance(editor, JsonEditor)
        area = editor.query_one(TextArea)
        secret = original["credentials"]["secretAccessKey"]
        assert secret not in area.text and secret not in screen_text(app)
        original = json.loads(area.text)  # what the editor shows: credentials redacted

        bad = json.loads(json.dumps(original))
        bad["request"]["desiredResourceState"]["Size"] = "big"
        set_text(area, json.dumps(bad, indent=2))
        await pilot.pause()
        assert any("/Size" in p for p in editor.problems), editor.problems
        assert "/Size" in screen_text(app)

        set_text(area, "{ not json")
        await pilot.pause()
        assert editor.problems and editor.problems[0].startswith("JSON: line 1")

        good = json.loads(json.dumps(original))
        good["request"]["desiredResourceState"]["Name"] = "edited-in-the-dashboard"
        set_text(area, json.dumps(good, indent=2))
        area.move_cursor(area.document.end)
        await pilot.press("space")  # typing keeps validating
        await pilot.pause()
        assert editor.problems == []
        assert "✓ valid" in screen_text(app)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, JsonEditor), "editor to close")

        assert index in app.main.edited
        # The credentials the editor hid are the file's own again.
        assert app.main.listed_events[index].data["credentials"]["secretAccessKey"] == secret
        assert "create *" in screen_text(app)
        await pilot.press("r")
        await wait_until(
            pilot, lambda: app.main.view.ended and not app.main.running, "the edited run"
        )
        first = (app.main.view.steps or [])[0]
        assert first.request["request"]["desiredResourceState"]["Name"] == (
            "edited-in-the-dashboard"
        )
        await pilot.press("3")
        assert "edited-in-the-dashboard" in screen_text(app)
        assert app.main.view.run is not None and app.main.view.run.final_status == "SUCCESS"


async def test_dead_endpoint_is_explained_in_place(demo_state: Path, unused_port: int) -> None:
    config = demo_config(demo_state, endpoint=f"http://127.0.0.1:{unused_port}")
    app = CfnDebugApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "create")
        steps = app.main.view.steps or []
        assert steps and steps[-1].result.kind is OutcomeKind.UNREACHABLE
        prompt = status_prompt(app)
        assert prompt.tone == "error"
        assert "could not be used" in prompt.text
        assert "press r" in prompt.hint
        assert app.is_running


async def test_workspace_that_cannot_open_is_explained_and_retried(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-project"
    app = CfnDebugApp(demo_config(tmp_path, project_dir=missing))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        assert app.workspace is None and app.workspace_error is not None
        prompt = status_prompt(app)
        assert prompt.tone == "error"
        assert "no-such-project" in prompt.text and "no such directory" in prompt.text
        assert "Press r to try again" in prompt.hint
        # Create it as a copy of the demo: r opens it.
        _copy_demo(missing)
        await pilot.press("r")
        await wait_until(pilot, lambda: app.workspace is not None, "the retried workspace")
        assert app.workspace_error is None
        assert app.query_one(SessionHeader).type_name == "CfnDebug::Demo::Widget"


async def test_a_broken_event_file_is_listed_with_its_error(tmp_path: Path) -> None:
    project = tmp_path / "project"
    _copy_demo(project)
    events = project / "sample_events"
    events.mkdir(exist_ok=True)
    (events / "broken.json").write_text('{"action": "CREATE", "request": {', encoding="utf-8")
    app = CfnDebugApp(demo_config(tmp_path / "state", project_dir=project))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        panel = app.query_one(EventsPanel)
        groups = [node for node in panel.root.children if "not loaded" in str(node.label)]
        assert len(groups) == 1, [str(node.label) for node in panel.root.children]
        messages = [str(leaf.label) for leaf in groups[0].children]
        assert len(messages) == 1
        assert "broken.json" in messages[0] and "line 1" in messages[0]
        # the status line is drawn after the tree (a slower machine shows the tree first)
        await wait_until(
            pilot, lambda: "1 event file(s) not loaded" in screen_text(app), "the status line"
        )


async def test_command_palette_runs_an_event_by_name(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"Run sample_events/read (READ)")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: app.main.view.ended and not app.main.running, "the read run"
        )
        assert app.main.view.event_index is not None
        assert app.main.listed_events[app.main.view.event_index].name == "sample_events/read"
        assert app.main.view.run is not None and app.main.view.run.final_status == "SUCCESS"


async def test_help_theme_and_cancel_keys(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("question_mark")
        assert "Replay modes" in screen_text(app)
        await pilot.press("escape")
        assert app.theme == "cfn-debug-dark"
        await pilot.press("t")
        assert app.theme == "cfn-debug-light"
        # Stop a chain that would otherwise wait out its delays.
        app.config.max_delay = None
        await select_event(pilot, "create")
        await pilot.press("r")
        status = app.query_one(RunStatus)
        await wait_until(
            pilot, lambda: isinstance(status.state, InFlight | Countdown), "the chain to start"
        )
        await pilot.press("x")
        await wait_until(pilot, lambda: app.main.view.ended, "the chain to stop")
        assert app.main.view.run is not None
        assert app.main.view.run.end_reason is not None
        assert app.main.view.run.end_reason.value == "cancelled"
        state = status.state
        assert isinstance(state, Prompt) and state.text.startswith("Stopped")


def _copy_demo(target: Path) -> None:
    import shutil

    from cfn_debug.demo import PROJECT_DIR, sample_events_dir

    shutil.copytree(
        PROJECT_DIR, target, ignore=shutil.ignore_patterns("__pycache__", "sample_events")
    )
    shutil.copytree(sample_events_dir(), target / "sample_events")


async def test_watch_mode_reruns_the_last_event_when_a_file_is_saved(tmp_path: Path) -> None:
    project = tmp_path / "project"
    _copy_demo(project)
    app = CfnDebugApp(demo_config(tmp_path / "state", project_dir=project, watch=True))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "read")
        assert app.query_one(SessionHeader).watch is True
        first = app.main.view.generation
        event = project / "sample_events" / "read.json"
        data = json.loads(event.read_text())
        data["request"]["logicalResourceIdentifier"] = "SavedWhileWatching"
        event.write_text(json.dumps(data, indent=2))
        await wait_until(
            pilot,
            lambda: (
                app.main.view.generation > first and app.main.view.ended and not app.main.running
            ),
            "the re-run after the save",
        )
        assert app.main.listed_events[app.main.view.event_index or 0].name.endswith("read")
        request = (app.main.view.steps or [])[0].request
        assert request["request"]["logicalResourceIdentifier"] == "SavedWhileWatching"


async def test_live_gauge_while_a_slow_read_is_in_flight(demo_state: Path) -> None:
    """SlowRead with its knob at 1 s: the gauge fills toward the 30 s read limit meanwhile."""
    app = CfnDebugApp(demo_config(demo_state, deterministic=False))
    async with app.run_test(size=SIZE) as pilot:
        index = await select_event(pilot, "fault-slow-read")
        data = json.loads(json.dumps(app.main.listed_events[index].data))
        data["request"]["typeConfiguration"]["ReadDelaySeconds"] = 1
        app.main.event_edited(index, data)
        await pilot.press("r")
        status = app.query_one(RunStatus)
        await wait_until(pilot, lambda: isinstance(status.state, InFlight), "the invocation")
        await wait_until(pilot, lambda: "in flight" in screen_text(app), "the gauge")
        text = screen_text(app)
        assert "READ in flight" in text and "/ 30 s" in text
        await wait_until(pilot, lambda: app.main.view.ended, "the read to finish")
        step = (app.main.view.steps or [])[0]
        assert step.duration_s >= 1.0
        assert step.result.status == "SUCCESS"


async def test_stop_mode_sends_a_single_invocation(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("m", "m")
        assert app.main.mode == "stop"
        await run_event(pilot, "create")
        steps = app.main.view.steps or []
        assert len(steps) == 1 and steps[0].result.status == "IN_PROGRESS"
        assert status_prompt(app).text.startswith("Stop mode: one invocation, IN_PROGRESS")
