"""`cfn-debug open` shows a saved run's outcome and why it stopped, as the live run said it."""

from __future__ import annotations

from pathlib import Path

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.config import AppConfig
from cfn_debug.app.widgets.events_panel import EventsPanel
from cfn_debug.app.widgets.timeline import Timeline
from cfn_debug.journal.session import Journal
from cfn_debug.records import (
    Action,
    EndReason,
    InvokeResult,
    OutcomeKind,
    RunEnded,
    RunRecord,
    RunStarted,
    Step,
    StepCompleted,
)

from .helpers import status_prompt, wait_until

SIZE = (140, 45)


async def test_a_saved_run_shows_its_outcome_and_stop_reason(tmp_path: Path) -> None:
    progress = {"status": "IN_PROGRESS", "callbackContext": {}, "callbackDelaySeconds": 0}
    steps = [
        Step(i, Action.CREATE, "f", {}, InvokeResult(OutcomeKind.PROGRESS, 0.1, progress), "t", 60)
        for i in range(2)
    ]
    create = RunRecord("r1", "create", None, Action.CREATE, "f", "e", "t", steps=steps)
    create.end_reason = EndReason.MAX_REINVOKE  # stopped by the cap while still IN_PROGRESS
    create.final_status = "IN_PROGRESS"
    path = tmp_path / "saved.jsonl"
    journal = Journal(path, project="/p", endpoint="e")
    journal.record(RunStarted(create))
    for step in create.steps:
        journal.record(StepCompleted(create.run_id, step))
    journal.record(RunEnded(create))
    journal.close()

    viewer = CfnDebugApp(AppConfig(transcript=path, deterministic=True))
    async with viewer.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: viewer.saved is not None, "the saved session")
        timeline = viewer.query_one(Timeline)
        await wait_until(pilot, lambda: timeline.row_count == 2, "the run's steps")
        viewer.query_one(EventsPanel).select_index(0)
        await pilot.pause()
        await wait_until(
            pilot, lambda: "nconclusive" in status_prompt(viewer).text, "the run's outcome"
        )
        prompt = status_prompt(viewer)
        assert "re-invoke cap" in prompt.text
        assert "max_reinvoke" in prompt.hint or "--max-reinvoke" in prompt.hint
