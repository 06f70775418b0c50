"""The scenarios screen's Run all runs what `cfn-debug scenario all` runs (generated-inputs left
out when the project has input files), and each result goes to the session journal, where
`cfn-debug export` finds it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfn_debug.scenarios.summary import ENTRY_TYPE

from .helpers import demo_config, wait_until
from .test_scenarios_screen import open_scenarios

SIZE = (150, 50)


@pytest.mark.slow
async def test_run_all_matches_headless_and_is_journaled(demo_state: Path) -> None:
    from cfn_debug.app.app import CfnDebugApp

    config = demo_config(demo_state)
    app = CfnDebugApp(config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_scenarios(pilot)
        generation = screen.generation
        await pilot.press("a")
        await wait_until(
            pilot,
            lambda: screen.generation > generation and not screen.running,
            "every scenario to end",
            timeout=240,
        )
        ran = [name for name, view in screen.board.views.items() if view.result is not None]
    assert "generated-inputs" not in ran  # the demo has example_inputs/, as headless `all`
    assert "create-read" in ran
    entries = [json.loads(line) for line in Path(config.journal).read_text().splitlines()]
    journaled = {e["scenario"]["name"] for e in entries if e.get("type") == ENTRY_TYPE}
    assert journaled == set(ran)
