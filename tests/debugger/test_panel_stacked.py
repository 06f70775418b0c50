"""The Debugger panel when more is going on: a handler that stops while another screen is on
top of the main one, and two handlers stopped at once (a scenario's and a chain's), on a copy of
the demo whose READ handler has a breakpoint()."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.helpers import demo_config, select_event, wait_until
from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.screens.help import HelpScreen
from cfn_debug.app.widgets.debugger_panel import DebuggerPanel

from .test_panel import SIZE, command


def _panel(app: CfnDebugApp) -> DebuggerPanel | None:
    found = app.main.query(DebuggerPanel)
    return found.first() if found else None


@pytest.mark.slow  # about 4 s: the demo's endpoint starts
async def test_a_stop_under_another_screen_is_announced_on_it(
    demo_copy: Path, tmp_path: Path
) -> None:
    app = CfnDebugApp(demo_config(tmp_path / "state", project_dir=demo_copy))
    async with app.run_test(size=SIZE) as pilot:
        await select_event(pilot, "read")
        # Help goes on top first, then the chain starts (as `r` would): pressing `r` and then
        # opening help let a loaded machine stop the handler before help was up (no notice due).
        app.action_help()
        assert isinstance(app.screen, HelpScreen)
        app.main.action_run_event()
        await wait_until(pilot, lambda: (p := _panel(app)) and p.view.waiting, "the stop")
        await wait_until(pilot, lambda: app._notifications, "the notice")
        assert isinstance(app.screen, HelpScreen)
        notice = list(app._notifications)[-1]
        assert "stopped in pdb (read_handler line" in notice.message
        await pilot.press("escape")
        await command(pilot, app, "c")
        await wait_until(pilot, lambda: app.main.view.ended and not app.main.running, "the end")


@pytest.mark.slow  # about 6 s
async def test_two_handlers_stopped_at_once_are_each_shown(demo_copy: Path, tmp_path: Path) -> None:
    """A scenario's READ stops, then a chain's READ: the panel shows the newest; when that one
    runs on, the scenario's, still waiting, is shown again (it was left waiting unseen). The
    app then quits with pdb waiting."""
    app = CfnDebugApp(demo_config(tmp_path / "state", project_dir=demo_copy))
    async with app.run_test(size=SIZE) as pilot:
        await select_event(pilot, "read")
        app.screen.query_one("#timeline").focus()
        await pilot.press("S")
        await pilot.press("a")
        await wait_until(pilot, lambda: (p := _panel(app)) and p.view.waiting, "a scenario's stop")
        first = _panel(app).session  # type: ignore[union-attr]
        await pilot.press("escape")  # back to the main screen; the scenarios go on
        app.screen.query_one("#timeline").focus()  # not the pdb input: keys go to the screen
        await select_event(pilot, "read")
        await pilot.press("r")
        await wait_until(
            pilot,
            lambda: (p := _panel(app)) and p.session is not first and p.view.waiting,
            "the chain's stop",
        )
        await command(pilot, app, "c")
        await wait_until(pilot, lambda: app.main.view.ended, "the chain's end")
        await wait_until(
            pilot,
            lambda: (p := _panel(app)) and p.session is first and p.view.waiting,
            "the scenario's pdb shown again",
        )
        panel = _panel(app)
        assert panel is not None and panel.has_class("-stopped")
        assert panel.view.function == "read_handler"
