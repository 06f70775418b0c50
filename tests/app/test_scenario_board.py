"""What the scenarios screen holds of the scenario stream: ``ScenarioBoard.apply`` is plain data,
tested here without Textual (the Pilot tests check what the screen then shows)."""

from __future__ import annotations

from cfn_debug.app.scenario_board import ScenarioBoard
from cfn_debug.hooks.scenarios import HOOK_SCENARIOS
from cfn_debug.records import (
    Action,
    InvocationStarted,
    InvokeResult,
    Level,
    OutcomeKind,
    RunEnded,
    RunRecord,
    Step,
    StepCompleted,
)
from cfn_debug.scenarios import (
    SCENARIOS,
    ActionStarted,
    Outcome,
    Purpose,
    ScenarioEnded,
    ScenarioNote,
    ScenarioResult,
    ScenarioStarted,
    Verdict,
    VerdictReached,
    VerdictStatus,
)

NAME = "contract_pre_create_success"


def _step(index: int) -> Step:
    result = InvokeResult(OutcomeKind.PROGRESS, 0.01, progress={"status": "SUCCESS"})
    return Step(index, Action.CREATE, "F", {}, result, "2026-01-01T00:00:00+00:00", 30.0)


def test_a_hook_board_lists_the_hook_catalogue_and_follows_a_scenario() -> None:
    board = ScenarioBoard(HOOK_SCENARIOS)
    assert list(board.views) == [s.name for s in HOOK_SCENARIOS]
    assert list(ScenarioBoard().views) == [s.name for s in SCENARIOS]
    view = board.views[NAME]
    assert view.badge_key == "idle"

    assert board.apply(ScenarioStarted(NAME, "t", "d", 0, 9)) == NAME
    assert board.current == NAME and view.badge_key == "running"
    board.apply(ActionStarted(NAME, "pre-create", Purpose.SCENARIO))
    board.apply(InvocationStarted("r1", 0, Action.CREATE, 30.0, 0.0))
    assert view.actions[0].in_flight is not None
    step = _step(0)
    board.apply(StepCompleted("r1", step))
    assert view.actions[0].steps == [step] and view.actions[0].in_flight is None
    run = RunRecord("r1", "e", None, Action.CREATE, "F", "http://127.0.0.1:1", "t0", [step])
    board.apply(RunEnded(run))
    assert view.actions[0].run is run
    verdict = Verdict("hook-success", Level.MUST, VerdictStatus.PASS, "allowed")
    board.apply(VerdictReached(NAME, verdict))
    board.apply(ScenarioNote(NAME, "a note", warning=True))
    assert view.verdicts == [verdict] and view.notes == [("a note", True)]

    result = ScenarioResult(NAME, "t", Outcome.PASSED)
    assert board.apply(ScenarioEnded(result)) == NAME
    assert view.result is result and view.state == "done" and board.current is None
    assert board.counts() == {Outcome.PASSED: 1}


def test_an_interrupted_scenario_is_idle_again_with_the_reason() -> None:
    board = ScenarioBoard(HOOK_SCENARIOS)
    board.apply(ScenarioStarted(NAME, "t", "d", 0, 9))
    assert board.apply(ScenarioNote("not-a-scenario", "lost")) is None
    board.interrupt("cancelled before it ended")
    view = board.views[NAME]
    assert view.state == "idle" and view.notes == [("cancelled before it ended", True)]
    assert board.current is None and board.counts() == {}
