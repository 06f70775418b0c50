"""The run the dashboard shows: what the engine has streamed of it so far (one source of truth for
the timeline, the status line and the detail).

Plain data, no widgets: :meth:`RunView.apply` takes one event of the chain's stream and changes
the state; the main screen then tells its widgets what to show.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cfn_debug.records import (
    AwaitingStep,
    InvocationStarted,
    RunEnded,
    RunRecord,
    RunStarted,
    Step,
    StepCompleted,
)


@dataclass
class RunView:
    """The run the dashboard shows: what the engine has streamed so far."""

    generation: int
    event_index: int | None
    mode: str = "auto"
    run: RunRecord | None = None
    steps: list[Step] = field(default_factory=list)
    awaiting: AwaitingStep | None = None
    ended: bool = False
    invocations: list[InvocationStarted] = field(default_factory=list)
    #: Watch mode: the save that started this re-run (None for a run the user started).
    rerun: Any = None
    #: Its findings against the previous run of the same event (cfn_debug.watch.Comparison).
    comparison: Any = None
    event_name: str | None = None
    #: The handler's limit for the chain's action (timeoutInMinutes), once a step told it.
    limit_s: float | None = None
    #: The Findings tab's Changes section (watch mode: the save, the build, the comparison).
    changes: Any = None

    @property
    def shown_run(self) -> RunRecord | None:
        """The run's record once it ended (while it runs, its steps are the truth)."""
        return self.run if self.ended else None

    def apply(self, event: object) -> None:
        """Take one event of the chain's stream (a ``ChainEvent``); any other event, and a
        ``DelayStarted`` (the status line's alone), changes nothing."""
        match event:
            case RunStarted(run=run):
                self.run = run
            case InvocationStarted():
                self.awaiting = None
                self.invocations.append(event)
            case StepCompleted(step=step):
                self.steps.append(step)
            case AwaitingStep():
                self.awaiting = event
            case RunEnded(run=run):
                self.run, self.ended, self.awaiting = run, True, None
                # the record has every step; the streamed ones stay if it somehow has fewer
                if len(run.steps) >= len(self.steps):
                    self.steps = list(run.steps)

    def fail(self) -> None:
        """The chain stopped on an error before it ended."""
        self.ended = True

    def worker_done(self) -> None:
        """The chain's worker returned: a run that never started (a save's re-run or another
        run took its place) is over too."""
        if not self.ended and self.run is None:
            self.ended = True
