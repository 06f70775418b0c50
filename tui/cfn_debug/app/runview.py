"""The run the dashboard shows: what the engine has streamed of it so far (one source of truth for
the timeline, the status line and the detail)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cfn_debug.records import AwaitingStep, InvocationStarted, RunRecord, Step


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
