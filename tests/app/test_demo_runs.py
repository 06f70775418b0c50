"""Issue 13 item 4: the demo reproduces. Every run is a fresh request unless the event pins it,
R resets the demo's state, and an AlreadyExists a previous run caused says so and how to reset."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import TextArea

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.screens.json_editor import JsonEditor
from cfn_debug.demo.runs import requested_name

from .helpers import (
    demo_config,
    run_event,
    screen_text,
    select_event,
    status_prompt,
    wait_until,
)

SIZE = (140, 45)


def token_of(request: dict) -> str:
    return request["request"]["clientRequestToken"]


@pytest.mark.slow
async def test_every_demo_run_is_a_fresh_request(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        runs = []
        for _ in range(2):
            await run_event(pilot, "create")
            run = app.main.view.run
            assert run is not None and run.final_status == "SUCCESS", status_prompt(app).text
            runs.append(run)
        first, second = (r.steps[0].request for r in runs)
        assert token_of(first) != token_of(second)
        assert requested_name(first) != requested_name(second)
        assert requested_name(first).startswith("my-first-widget-")  # type: ignore[union-attr]
        # Within one chain the token stays the same (the contract's idempotency key).
        # (cfn-debug's own read-back READ is another request, with its own token.)
        chain = [s for s in runs[0].steps if s.origin is None]
        assert {token_of(s.request) for s in chain} == {token_of(first)}


@pytest.mark.slow
async def test_already_exists_from_an_earlier_run_says_so_and_r_resets(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        # An edited event is sent as written: it pins its Name.
        await select_event(pilot, "inputs_1_create")
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, JsonEditor), "the event editor")
        area = app.screen.query_one(TextArea)
        area.move_cursor(area.document.end)
        await pilot.press("space")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, JsonEditor), "editor to close")
        for _ in range(2):
            generation = app.main.view.generation
            await pilot.press("r")
            await wait_until(
                pilot,
                lambda g=generation: (
                    app.main.view.generation > g and app.main.view.ended and not app.main.running
                ),
                "the run",
            )
        run = app.main.view.run
        assert run is not None and run.final_status == "FAILED"
        prompt = status_prompt(app)
        assert "AlreadyExists" in prompt.text
        assert "Run #1 of this session created 'contract-widget'" in prompt.hint
        assert "R resets the demo's state" in prompt.hint
        assert "R resets the demo" in screen_text(app)

        await pilot.press("R")
        assert "Demo state reset" in status_prompt(app).text
        assert (
            not list((demo_state / "names").glob("*")) if (demo_state / "names").exists() else True
        )
        generation = app.main.view.generation
        await pilot.press("r")
        await wait_until(
            pilot,
            lambda: (
                app.main.view.generation > generation
                and app.main.view.ended
                and not app.main.running
            ),
            "the run after the reset",
        )
        assert app.main.view.run is not None and app.main.view.run.final_status == "SUCCESS"
