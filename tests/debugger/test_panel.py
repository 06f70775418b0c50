"""The dashboard's Debugger panel through the Pilot, on a copy of the demo whose READ handler
has a breakpoint(): stop, step, inspect a local, continue; the run's findings are unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import RichLog

from app.helpers import demo_config, screen_text, select_event, wait_until
from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.widgets.debugger_panel import DebuggerPanel, PdbInput

SIZE = (140, 50)


def output_text(app: CfnDebugApp) -> str:
    log = app.screen.query_one("#dbg-output", RichLog)
    return "\n".join(line.text for line in log.lines)


async def stopped_panel(pilot, app: CfnDebugApp, what: str) -> DebuggerPanel:  # type: ignore[no-untyped-def]
    """The Debugger panel once pdb waits (the screen mounts it on the first pdb event)."""
    await wait_until(
        pilot,
        lambda: (
            app.screen.query(DebuggerPanel) and app.screen.query_one(DebuggerPanel).view.waiting
        ),
        what,
    )
    return app.screen.query_one(DebuggerPanel)


async def command(pilot, app: CfnDebugApp, text: str) -> None:  # type: ignore[no-untyped-def]
    panel = app.screen.query_one(DebuggerPanel)
    await wait_until(pilot, lambda: panel.view.waiting, f"pdb waiting before {text!r}")
    asked = panel.view.prompts
    field = app.screen.query_one(PdbInput)
    field.value = text
    await pilot.press("enter")
    await wait_until(
        pilot, lambda: panel.view.prompts > asked or not panel.view.stopped, f"after {text!r}"
    )


@pytest.mark.slow
async def test_stop_step_inspect_continue(demo_copy: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    app = CfnDebugApp(demo_config(state, project_dir=demo_copy))
    async with app.run_test(size=SIZE) as pilot:
        await select_event(pilot, "read")
        assert not app.screen.query(DebuggerPanel)  # mounted when a handler first stops
        await pilot.press("r")
        panel = await stopped_panel(pilot, app, "the handler to stop")
        assert panel.display and panel.has_class("-stopped")
        assert app.screen.focused is app.screen.query_one(PdbInput)
        assert panel.view.function == "read_handler"
        first_line = panel.view.line
        source = str(app.screen.query_one("#dbg-source").render())
        assert "→" in source and "LOG.info" in source
        await command(pilot, app, "n")
        assert panel.view.line is not None and first_line is not None
        assert panel.view.line > first_line
        await command(pilot, app, "p widget_id")
        await wait_until(pilot, lambda: "'wdg-demo0001'" in output_text(app), "the local")
        assert app.main.running  # the rest of the dashboard is live: the run is in flight
        await command(pilot, app, "c")
        await wait_until(
            pilot, lambda: app.main.view.ended and not app.main.running, "the run's end"
        )
        run = app.main.view.run
        assert run is not None and run.final_status == "SUCCESS"
        assert not run.must_failures and not run.findings
        assert run.debugger_s > 0
        await wait_until(pilot, lambda: not panel.has_class("-stopped"), "the panel to hide")
        app.screen.query_one("#timeline").focus()
        await pilot.press("7")  # Timing: the time stopped is shown apart
        await wait_until(
            pilot, lambda: "stopped in the debugger" in screen_text(app), "the Timing tab"
        )


@pytest.mark.slow
async def test_b_on_a_failed_step_stops_at_the_raising_line(
    demo_copy: Path, tmp_path: Path
) -> None:
    handlers = demo_copy / "src" / "cfndebug_demo_widget" / "handlers.py"
    handlers.write_text(handlers.read_text().replace("    breakpoint()\n", "", 1))
    bug = '        model["Color"] = stored["Colour"]  # The bug: a typo, a KeyError nobody '
    raising = handlers.read_text().splitlines().index(bug + "catches.") + 1
    state = tmp_path / "state"
    state.mkdir()
    app = CfnDebugApp(demo_config(state, project_dir=demo_copy))
    async with app.run_test(size=SIZE) as pilot:
        await select_event(pilot, "fault-unhandled-exception")
        await pilot.press("r")
        await wait_until(pilot, lambda: app.main.view.ended and not app.main.running, "the run")
        original = app.main.view.run
        assert original is not None and original.must_failures
        app.screen.query_one("#timeline").focus()
        await pilot.press("b")
        panel = await stopped_panel(pilot, app, "the replay to stop")
        assert panel.view.line == raising
        assert str(handlers.resolve()) == panel.view.file
        await command(pilot, app, "c")
        await wait_until(
            pilot, lambda: app.main.view.ended and not app.main.running, "the replay's end"
        )
        replay = app.main.view.run
        assert replay is not None and replay.replay_of == f"{original.run_id}#0"
        await wait_until(pilot, lambda: app.main.view.comparison is not None, "the comparison")
        comparison = app.main.view.comparison
        assert not comparison.new and not comparison.fixed and comparison.still
