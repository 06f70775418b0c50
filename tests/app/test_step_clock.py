"""Issue 13 item 3: in step mode the user's thinking time is shown, and is not the chain's."""

from __future__ import annotations

import time
from pathlib import Path

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.records import EndReason

from .helpers import demo_config, opened, screen_text, wait_until
from .projects import counting_project

SIZE = (140, 45)
#: How long the "user" thinks before each s (longer than the whole chain's handler time).
THINK_S = 0.6


async def test_time_waiting_for_the_user_is_not_the_chains(tmp_path: Path) -> None:
    project = counting_project(tmp_path / "project", 3)
    config = demo_config(tmp_path, project_dir=project, env_vars=None, mode="step")
    app = CfnDebugApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        pressed = time.monotonic()
        await pilot.press("r")
        for step in (1, 2):
            await wait_until(
                pilot,
                lambda step=step: (
                    app.main.view.awaiting is not None and app.main.view.awaiting.next_index == step
                ),
                f"step mode to wait before #{step}",
            )
            await pilot.pause(THINK_S)
            await pilot.press("s")
        await wait_until(
            pilot, lambda: app.main.view.ended and not app.main.running, "the chain to end"
        )
        wall = time.monotonic() - pressed
        run = app.main.view.run
        assert run is not None and run.end_reason is EndReason.TERMINAL
        assert run.user_wait_s >= 2 * THINK_S
        # The chain's own time excludes the user's: both together fit in the time the test saw
        # pass from "r" to the end (counted twice, they would exceed it by the wait, >= 1.2 s).
        # Not "less than the wait": on a loaded machine the handler's own time can be longer.
        assert run.total_s + run.user_wait_s <= wall
        assert not [f for f in run.chain_findings if f.rule_id == "chain-timeout"]
        await pilot.press("7")
        text = screen_text(app)
        assert "for you (not counted in the chain total nor against timeoutInMinutes)" in text
