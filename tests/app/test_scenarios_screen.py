"""Pilot tests of the contract scenarios screen: the real dashboard, the real demo handlers on
the real embedded endpoint, a fresh demo state directory per test, callback delays capped at 0.

What must fail where comes from the handler contract and the demo's fault descriptions (the
same specification as tests/scenarios/test_demo_scenarios.py): FailedWithoutErrorCode answers
the second create with FAILED and no errorCode, so create-create must fail
scenario-create-already-exists and failed-error-code; ReadInProgress answers read with
IN_PROGRESS, so create-read must fail read-list-not-in-progress.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Select, Static

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.screens.scenarios import ScenariosScreen
from cfn_debug.app.widgets.progress import WorkProgress
from cfn_debug.contract import rule
from cfn_debug.demo_hook import DEMO_HOOK_DIR
from cfn_debug.hooks.scenarios import HOOK_SCENARIOS
from cfn_debug.scenarios import SCENARIOS, Outcome, VerdictStatus

from .helpers import demo_config, opened, project_config, screen_text, wait_until

SIZE = (150, 50)
#: what Run all (`scenario all`) runs on the demo, which has example_inputs/
ALL_BUT_GENERATED = [s.name for s in SCENARIOS if s.name != "generated-inputs"]


async def open_scenarios(pilot: Pilot) -> ScenariosScreen:
    app = await opened(pilot)
    assert app.workspace_error is None, app.workspace_error
    app.push_screen(ScenariosScreen.for_app(app))
    await wait_until(pilot, lambda: isinstance(app.screen, ScenariosScreen), "the screen")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ScenariosScreen)
    return screen


async def run_one(pilot: Pilot, screen: ScenariosScreen, name: str) -> None:
    """Move the list's cursor to ``name`` with the keyboard, press r, wait for the end."""
    table = screen.query_one("#sc-list", DataTable)
    table.focus()
    names = [s.name for s in screen.catalogue]
    await pilot.press("home", *(["down"] * names.index(name)))
    assert screen.selected_name() == name
    generation = screen.generation
    await pilot.press("r")
    await wait_until(
        pilot,
        lambda: screen.generation > generation and not screen.running,
        f"scenario {name} to end",
    )
    await pilot.pause()


def row_text(text: str, name: str) -> str:
    """The line of the scenario list that shows ``name``."""
    for line in text.splitlines():
        if f" {name} " in line or line.rstrip().endswith(f" {name}"):
            return line
    raise AssertionError(f"no row for {name} in\n{text}")


def detail_text(screen: ScenariosScreen) -> str:
    """The selected scenario's detail as plain text, unwrapped (no panel borders in between)."""
    console = Console(width=400, file=io.StringIO(), record=True)
    console.print(screen.query_one("#sc-body", Static).content)
    return console.export_text()


def progress(screen: ScenariosScreen) -> str:
    return str(screen.query_one("#sc-progress", Static).render())


async def test_create_read_passes_and_cleans_up(demo_state: Path) -> None:
    # an empty store: the demo seeds a state directory only when it has no .seeded marker
    (demo_state / ".seeded").write_text("seeded\n", encoding="utf-8")
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_scenarios(pilot)
        text = screen_text(app)
        for entry in SCENARIOS:
            assert "·" in row_text(text, entry.name), f"{entry.name} shows as run already"

        await run_one(pilot, screen, "create-read")

        result = screen.board.views["create-read"].result
        assert result is not None and result.outcome is Outcome.PASSED, result
        text = screen_text(app)
        assert "✔" in row_text(text, "create-read")
        assert "·" in row_text(text, "create-list"), "only the selected scenario ran"
        assert "✔ passed" in text
        # each action with its steps, the cleanup marked, the verdicts with their rule ids
        assert "» create" in text and "» read" in text
        assert "CREATE" in text and "SUCCESS" in text and "0 findings" in text
        assert "(cleanup, not counted)" in text
        assert "PASS MUST scenario-read-after-create" in text
        assert "PASS MUST scenario-read-back-equal" in text
        assert "cleanup: deleted" in text
        assert "1 passed" in progress(screen)
    assert list((demo_state / "widgets").glob("wdg-*.json")) == [], "a widget was left behind"


async def test_fault_from_the_select_fails_create_create_with_its_rules(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_scenarios(pilot)
        fault = screen.query_one("#sc-fault", Select)
        # the select offers the schema's typeConfiguration Fault enum
        demo_faults = app.workspace.schema.raw["typeConfiguration"]["properties"]["Fault"]["enum"]
        assert screen.faults == demo_faults
        fault.value = "FailedWithoutErrorCode"
        await pilot.pause()

        await run_one(pilot, screen, "create-create")

        result = screen.board.views["create-create"].result
        assert result is not None and result.outcome is Outcome.FAILED, result
        failed = {v.rule_id for v in result.verdicts if v.status is VerdictStatus.FAIL}
        assert "scenario-create-already-exists" in failed
        text = screen_text(app)
        assert "✖" in row_text(text, "create-create")
        assert "✖ failed" in text
        assert "FAIL MUST scenario-create-already-exists" in text
        assert "MUST failed-error-code" in text, "the step finding is named in the action"
        sentence = rule("scenario-create-already-exists").contract.splitlines()[0]
        assert sentence in detail_text(screen), "the contract sentence is shown"
        assert "1 failed" in progress(screen)


async def test_typed_type_configuration_is_sent_and_checked(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_scenarios(pilot)
        config = screen.query_one("#sc-config", Input)

        # not a valid type configuration: a typed error in place, nothing runs
        config.value = '{"Fault": "NoSuchFault"}'
        screen.query_one("#sc-list", DataTable).focus()
        await pilot.press("r")
        await pilot.pause()
        assert not screen.running and screen.generation == 0
        shown = progress(screen)
        assert "Not started" in shown and "Fault" in shown and "NoSuchFault" in shown

        config.value = '{"Fault": "ReadInProgress", "CallbackDelaySeconds": 0}'
        await run_one(pilot, screen, "create-read")

        result = screen.board.views["create-read"].result
        assert result is not None and result.outcome is Outcome.FAILED, result
        text = screen_text(app)
        assert "read-list-not-in-progress" in text
        assert "FAIL MUST scenario-read-after-create" in text


async def test_cancel_stops_after_the_scenario_in_play(demo_state: Path) -> None:
    # The demo's callback delays are honoured (up to 1 s) so that the run is still going when
    # the key is pressed: with every delay skipped the fork server finishes all 16 first.
    app = CfnDebugApp(demo_config(demo_state, max_delay=1.0))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_scenarios(pilot)
        await pilot.press("a")
        await wait_until(
            pilot,
            lambda: any(v.actions for v in screen.board.views.values()),
            "the first action to start",
        )
        # Long work shows a progress bar with counts (and, outside snapshots, elapsed time).
        bar = screen.query_one(WorkProgress)
        # Run all runs what `scenario all` runs: the demo has example_inputs/, so every
        # scenario but generated-inputs
        assert bar.display and bar.total == len(ALL_BUT_GENERATED)
        # (done/total: on a fast machine several scenarios are already done when this looks)
        assert re.search(rf"\b\d+/{len(ALL_BUT_GENERATED)}\b", bar.line().plain), bar.line().plain
        await pilot.press("x")
        await wait_until(pilot, lambda: not screen.running, "the run to stop")
        await pilot.pause()
        ran = [v.name for v in screen.board.views.values() if v.result is not None]
        assert 1 <= len(ran) < len(ALL_BUT_GENERATED), ran
        assert progress(screen).startswith("Cancelled.")
        assert not bar.display
        # Esc goes back to the dashboard
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ScenariosScreen), "closing")


async def test_run_all_on_the_demo_every_scenario_passes(demo_state: Path) -> None:
    (demo_state / ".seeded").write_text("seeded\n", encoding="utf-8")  # list-empty needs none
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_scenarios(pilot)
        await pilot.press("a")
        await wait_until(
            pilot, lambda: screen.generation == 1 and not screen.running, "every scenario"
        )
        await pilot.pause()
        text = screen_text(app)
        # what `scenario all` runs: generated-inputs is left out (the demo has example_inputs/;
        # it runs when chosen, tests/scenarios/test_generated_patterns.py covers its inputs)
        for name in ALL_BUT_GENERATED:
            assert "✔" in row_text(text, name), row_text(text, name)
        assert "✔" not in row_text(text, "generated-inputs")


async def test_capital_s_opens_the_screen_from_the_dashboard(demo_state: Path) -> None:
    app = CfnDebugApp(demo_config(demo_state))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        assert not isinstance(app.screen, ScenariosScreen)
        await pilot.press("S")
        await wait_until(pilot, lambda: isinstance(app.screen, ScenariosScreen), "the screen")
        await pilot.pause()
        assert "create-read" in screen_text(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ScenariosScreen), "closing")


@pytest.mark.slow
async def test_a_hook_project_lists_and_runs_the_hook_contract_scenarios(tmp_path: Path) -> None:
    """`cfn-debug --demo hook`: the screen lists the hook's scenarios (as `cfn-debug scenario`
    runs them), not a resource type's, and runs the selected one against the hook."""
    app = CfnDebugApp(project_config(DEMO_HOOK_DIR, tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_scenarios(pilot)
        assert list(screen.board.views) == [s.name for s in HOOK_SCENARIOS]
        text = screen_text(app)
        assert "hook contract scenarios" in progress(screen)
        assert "create-read" not in text

        await run_one(pilot, screen, "contract_pre_update_success")

        result = screen.board.views["contract_pre_update_success"].result
        assert result is not None and result.outcome is Outcome.PASSED, result
        assert "✔" in row_text(screen_text(app), "contract_pre_update_success")
        assert "UPDATE_PRE_PROVISION" in detail_text(screen) or "pre_update" in detail_text(screen)
        assert "1 passed" in progress(screen)
