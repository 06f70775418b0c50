"""The run the dashboard shows, as the chain's stream changes it: ``RunView.apply`` is plain
data, tested here without Textual (the Pilot tests check what the widgets then show)."""

from __future__ import annotations

from cfn_debug.app.runview import RunView
from cfn_debug.records import (
    Action,
    AwaitingStep,
    DelayStarted,
    InvocationStarted,
    InvokeResult,
    OutcomeKind,
    RunEnded,
    RunRecord,
    RunStarted,
    Step,
    StepCompleted,
)


def _step(index: int, status: str = "IN_PROGRESS") -> Step:
    result = InvokeResult(OutcomeKind.PROGRESS, 0.01, progress={"status": status})
    return Step(index, Action.CREATE, "F", {}, result, "2026-01-01T00:00:00+00:00", 60.0)


def _run(steps: list[Step] | None = None) -> RunRecord:
    return RunRecord(
        "r1", "create", None, Action.CREATE, "F", "http://127.0.0.1:1", "t0", steps or []
    )


def _invocation(index: int) -> InvocationStarted:
    return InvocationStarted("r1", index, Action.CREATE, 60.0, 0.0)


def test_a_chain_streamed_step_by_step_builds_the_view() -> None:
    view = RunView(generation=1, event_index=0)
    started = _run()
    view.apply(RunStarted(started))
    assert view.run is started and not view.ended and view.shown_run is None

    view.apply(_invocation(0))
    assert view.invocations == [_invocation(0)]
    first = _step(0)
    view.apply(StepCompleted("r1", first))
    assert view.steps == [first]

    view.apply(DelayStarted("r1", 0, 1.0, 1.0, 0.0))  # the status line's alone
    assert view.steps == [first] and view.awaiting is None

    awaiting = AwaitingStep("r1", 1, {"n": 1})
    view.apply(awaiting)
    assert view.awaiting is awaiting
    view.apply(_invocation(1))  # sending the next invocation ends the wait
    assert view.awaiting is None and len(view.invocations) == 2
    second = _step(1, "SUCCESS")

    view.apply(StepCompleted("r1", second))
    ended = _run([first, second])
    view.apply(RunEnded(ended))
    assert view.ended and view.run is ended and view.shown_run is ended
    assert view.steps == [first, second] and view.steps is not ended.steps


def test_the_record_of_an_ended_run_replaces_the_streamed_steps_unless_it_has_fewer() -> None:
    view = RunView(generation=1, event_index=0)
    streamed = [_step(0), _step(1)]
    for step in streamed:
        view.apply(StepCompleted("r1", step))
    view.apply(AwaitingStep("r1", 2, None))
    view.apply(RunEnded(_run([streamed[0]])))  # a record with fewer steps keeps what streamed
    assert view.steps == streamed and view.awaiting is None and view.ended

    fuller = RunView(generation=2, event_index=0)
    fuller.apply(StepCompleted("r1", streamed[0]))
    record = _run([_step(0, "IN_PROGRESS"), _step(1, "SUCCESS")])
    fuller.apply(RunEnded(record))
    assert fuller.steps == record.steps


def test_a_failed_or_never_started_run_is_over_and_other_events_change_nothing() -> None:
    failed = RunView(generation=1, event_index=0)
    failed.apply(RunStarted(_run()))
    failed.fail()
    assert failed.ended

    replaced = RunView(generation=2, event_index=0)
    replaced.apply(object())
    assert replaced == RunView(generation=2, event_index=0)
    replaced.worker_done()  # its worker returned before the chain started: over
    assert replaced.ended

    running = RunView(generation=3, event_index=0)
    running.apply(RunStarted(_run()))
    running.worker_done()  # the chain started: only RunEnded or fail() ends it
    assert not running.ended
