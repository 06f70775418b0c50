"""Issue 13 item 6: search in a tab, copy a step (masked as exports are), log lines without the
repeated RequestId, highlighted tracebacks whose wrapped lines keep their indent."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.screens.copy import CopyScreen
from cfn_debug.app.widgets.step_detail import StepDetail
from cfn_debug.app.widgets.timeline import Timeline

from .helpers import demo_config, run_event, screen_text, wait_until

SIZE = (120, 36)


async def test_slash_searches_the_current_tab_with_next_and_previous(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "create")
        await pilot.press("3")  # Request
        await pilot.press("slash")
        detail = app.query_one(StepDetail)
        await wait_until(
            pilot, lambda: isinstance(app.focused, Input), "the search field to take focus"
        )
        for key in "widget":
            await pilot.press(key)
        await pilot.pause()
        assert detail.matches >= 3, detail.matches
        assert f"1/{detail.matches}" in screen_text(app)
        await pilot.press("enter")
        await pilot.press("n")
        assert detail.match_index == 1
        assert f"2/{detail.matches}" in screen_text(app)
        await pilot.press("N", "N")
        assert detail.match_index == detail.matches - 1
        await pilot.press("escape")
        await pilot.pause()
        assert detail.query_text == "" and "n next" not in screen_text(app)


async def test_y_copies_the_steps_request_masked_as_exports_are(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "create")
        app.query_one(Timeline).move_cursor(row=0)  # the first request carries the Secret
        await pilot.pause()
        await pilot.press("3")
        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, CopyScreen), "the copy chooser")
        await pilot.press("enter")  # the Request tab offers the request first
        await wait_until(pilot, lambda: app.main.last_copied is not None, "the copy")
        copied = app.main.last_copied or ""
        assert '"desiredResourceState"' in copied
        assert "fake-secret-access-key-for-local-testing-only" not in copied  # credentials
        assert "not-a-real-secret-0001" not in copied  # the writeOnly Secret
        assert "***WRITE-ONLY***" in copied

        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, CopyScreen), "the copy chooser")
        await pilot.press("up", "up", "enter")  # callbackContext
        await wait_until(pilot, lambda: app.main.last_copied != copied, "the second copy")
        # The first step's answer carries the context of the second invocation.
        assert '"stage": 1' in (app.main.last_copied or "")


async def test_logs_drop_the_repeated_request_id_and_highlight_the_traceback(
    demo_state: Path,
) -> None:
    app = CfnDebugApp(demo_config(demo_state, deterministic=False))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "fault-unhandled-exception")
        step = app.main.view.steps[-1]
        request_id = step.result.request_id
        assert request_id and any(request_id in line for line in step.result.logs)
        await pilot.press("5")
        await pilot.pause()
        text = screen_text(app)
        assert text.count(request_id) == 1, "named once, in the tab's title"
        assert "Traceback (most recent call last)" in text
        # A wrapped traceback line keeps its indent: no line of the tab starts at column 0
        # with the middle of a path.
        body = [line.split("│")[-1] if "│" in line else line for line in text.splitlines()]
        assert not any(line.startswith(' "/') or line.startswith(" ource") for line in body)
        svg = app.export_screenshot()
        # highlighted: the traceback's file names and the error use more than one colour
        assert svg.count("fill=") > 20
