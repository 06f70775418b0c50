"""Issue 13 item 5: the layout follows the terminal; \\ hides the sidebar, z maximises
the detail."""

from __future__ import annotations

from pathlib import Path

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.widgets.events_panel import EventsPanel, short_name
from cfn_debug.app.widgets.header import SessionHeader
from cfn_debug.app.widgets.step_detail import StepDetail
from cfn_debug.app.widgets.timeline import Timeline

from .helpers import demo_config, opened, run_event, screen_text


async def test_80x24_keeps_every_column_the_header_and_a_whole_footer(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=(80, 24)) as pilot:
        await run_event(pilot, "fault-identifier-changes-mid-chain")
        lines = screen_text(app).rstrip("\n").splitlines()
        # the header keeps mode and watch state, and says which AWS (cut last, if at all)
        assert "mode auto" in lines[0] and "watch off" in lines[0], lines[0]
        assert app.query_one(SessionHeader).aws == "none"
        header = next(line for line in lines if "#  Status" in line)
        for column in ("Status", "Time", "Find", "Delay", "Chg", "Action"):
            assert column in header, header
        row = next(line for line in lines if "IN_PROGRESS" in line)
        assert "CREATE" in row, row  # the Action cell itself, not only its label
        footer = lines[-1]
        assert "q Quit" in footer and footer.rstrip().endswith("palette"), footer
        assert "MUST" in "\n".join(lines)


async def test_220x60_cuts_no_event_name(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=(220, 60)) as pilot:
        await opened(pilot)
        await pilot.pause()
        text = screen_text(app)
        for event in app.main.listed_events:
            assert f" {short_name(event)} " in text, short_name(event)
        # The sidebar is not a fixed strip: it is as wide as its longest name.
        assert app.query_one(EventsPanel).outer_size.width > 36  # was a fixed 36


async def test_backslash_hides_the_sidebar_and_z_maximises_the_detail(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=(120, 36)) as pilot:
        await run_event(pilot, "create")
        timeline_width = app.query_one(Timeline).size.width
        await pilot.press("backslash")
        await pilot.pause()
        assert not app.query_one(EventsPanel).display
        assert "Events" not in screen_text(app).splitlines()[1]
        assert app.query_one(Timeline).size.width > timeline_width
        await pilot.press("backslash")
        await pilot.pause()
        assert app.query_one(EventsPanel).display

        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is app.query_one(StepDetail)
        assert "Timeline" not in screen_text(app)
        await pilot.press("z")
        await pilot.pause()
        assert app.screen.maximized is None
        assert "Timeline" in screen_text(app)


async def test_engine_progress_shows_a_bar_with_counts(demo_state: Path) -> None:
    """The hook other parts of the engine report long work through (setup stack, environment
    build, generated inputs): an event with label, done and total on the stream the dashboard
    consumes."""
    from dataclasses import dataclass

    from cfn_debug.app.chain_runs import engine_message
    from cfn_debug.app.widgets.progress import WorkProgress

    @dataclass(frozen=True)
    class Progress:
        label: str
        done: int
        total: int | None
        finished: bool = False

    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(pilot)
        app.main.post_message(engine_message(Progress("Deploying the setup stack", 2, 5), None))
        await pilot.pause()
        bar = app.query_one(WorkProgress)
        assert bar.display
        assert "Deploying the setup stack" in screen_text(app) and "2/5" in screen_text(app)
        done = engine_message(Progress("Deploying the setup stack", 5, 5, True), None)
        app.main.post_message(done)
        await pilot.pause()
        assert not bar.display
