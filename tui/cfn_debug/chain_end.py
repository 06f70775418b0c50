"""How a chain's end reads: the handler's own clock, and whether the run decided anything.

CloudFormation's clock for a handler is the time its invocations take plus the
callbackDelaySeconds it asks for between them. ``--max-delay`` shortens the waits here, not that
clock: :func:`handler_clock_s` counts every requested delay, waited or not, so a chain that would
outlive ``timeoutInMinutes`` is the ``chain-timeout`` MUST whatever was waited.

A chain the re-invoke cap stopped while still IN_PROGRESS, with no MUST finding, decided
nothing: :func:`inconclusive` says so, and every consumer (``run``, ``--json``, scenarios, the
dashboard) shows it as an infrastructure-like stop (exit 2), never as a pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cfn_debug.records import EndReason, OutcomeKind, RunRecord, Step

#: What to do about a chain the re-invoke cap stopped.
INCONCLUSIVE_HINT = "raise --max-reinvoke or check the handler"
#: The most of one callbackDelaySeconds the clock counts: the top of the range the SHOULD rule
#: callback-delay-range allows (Lambda's longest run). A larger value is that finding, and no
#: contract sentence says CloudFormation would wait all of it, so it never makes a MUST alone.
MAX_COUNTED_DELAY_S = 900.0


def requested_delay_s(progress: Any) -> float:
    """The callbackDelaySeconds an IN_PROGRESS answer asked for (0 for anything else)."""
    if not isinstance(progress, dict) or progress.get("status") != "IN_PROGRESS":
        return 0.0
    value = progress.get("callbackDelaySeconds")
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return 0.0
    return max(0.0, float(value))


def handler_clock_s(steps: Sequence[Step]) -> tuple[float, float]:
    """(the chain's time on CloudFormation's clock, the part of it that is requested delays):
    the handler's invocations (cfn-debug's own read-backs excluded) and every callbackDelaySeconds
    it asked for, waited or not (each at most :data:`MAX_COUNTED_DELAY_S`)."""
    clock = HandlerClock()
    return clock.of(steps), clock.delays_s


class HandlerClock:
    """:func:`handler_clock_s` of a chain's steps while they are appended: each step is counted
    once, so a chain checking its clock after every step does not walk every earlier step again
    (the checks of a long chain stay linear in its length)."""

    def __init__(self) -> None:
        self.counted = 0
        self.run_s = 0.0
        self.delays_s = 0.0

    def of(self, steps: Sequence[Step]) -> float:
        """The chain's time on CloudFormation's clock, for ``steps`` that grew only at their end
        since the last call (the steps counted before are not read again)."""
        for step in steps[self.counted :]:
            if step.origin is not None:
                continue
            self.run_s += step.duration_s
            if step.result.kind is OutcomeKind.PROGRESS:
                self.delays_s += min(requested_delay_s(step.result.progress), MAX_COUNTED_DELAY_S)
        self.counted = len(steps)
        return self.run_s + self.delays_s


def inconclusive(run: RunRecord) -> str | None:
    """Why ``run`` decided nothing about the handler, or None when it did: the re-invoke cap
    stopped it while the handler still answered IN_PROGRESS, and no MUST finding had shown the
    handler wrong already (a chain with one decided: that finding is its verdict)."""
    if run.end_reason is not EndReason.MAX_REINVOKE or run.must_failures:
        return None
    own = sum(1 for step in run.steps if step.origin is None)
    return (
        f"still IN_PROGRESS after {own} invocation(s) when the re-invoke cap stopped the chain: "
        f"no verdict on the handler; {INCONCLUSIVE_HINT}"
    )


def inconclusive_runs(runs: Sequence[RunRecord]) -> list[tuple[RunRecord, str]]:
    """Every run of ``runs`` that decided nothing, with why."""
    out = []
    for run in runs:
        why = inconclusive(run)
        if why is not None:
            out.append((run, why))
    return out
