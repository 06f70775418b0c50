"""What a scenario run produces: verdicts, the chains it ran, its cleanup, and the stream of
events a consumer (console printer, dashboard) follows while it runs.

Every chain of a scenario is a :class:`cfn_debug.records.RunRecord` from ``Workspace.run``, so
its steps carry the same findings as a single run; the chain's own ChainEvents pass through the
scenario stream unchanged, between :class:`ActionStarted` and the next scenario event.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from cfn_debug.contract import rule
from cfn_debug.records import ChainEvent, EndReason, Finding, Level, RunRecord


class Outcome(str, Enum):
    PASSED = "passed"
    WARNED = "warned"  # only SHOULD findings or SHOULD verdicts failed
    FAILED = "failed"  # a MUST finding in a scenario step, or a MUST verdict failed
    BLOCKED = (
        "blocked"  # a setup step did not get where the scenario needs, and no finding says why
    )
    SKIPPED = "skipped"  # does not apply (no createOnly property, resources already exist, ...)
    ERROR = "error"  # the endpoint could not be used


class VerdictStatus(str, Enum):
    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"


class Purpose(str, Enum):
    SCENARIO = "scenario"  # a step of the scenario itself: its findings count
    CLEANUP = "cleanup"  # deleting what the scenario created: shown, not counted


@dataclass(frozen=True)
class Verdict:
    """One sequence-level check: a rule of contract.sequence_rules, passed, failed or skipped."""

    rule_id: str
    level: Level
    status: VerdictStatus
    message: str
    action: str | None = None  # label of the action whose response was judged
    pointer: str | None = None

    @property
    def failed(self) -> bool:
        return self.status is VerdictStatus.FAIL

    def to_dict(self) -> dict[str, Any]:
        entry = rule(self.rule_id)
        return {
            "rule_id": self.rule_id,
            "level": self.level.value,
            "status": self.status.value,
            "message": self.message,
            "action": self.action,
            "pointer": self.pointer,
            "title": entry.title,
            "contract": entry.contract,
        }


@dataclass
class ScenarioAction:
    """One chain a scenario ran, with the label that says what it was for."""

    label: str
    purpose: Purpose
    run: RunRecord
    #: rule ids whose findings the scenario provokes on purpose (an update that changes a
    #: createOnly property breaks input-create-only-unchanged by design): shown, not counted
    waived: tuple[str, ...] = ()

    @property
    def counted_must(self) -> list[Finding]:
        if self.purpose is not Purpose.SCENARIO:
            return []
        return [f for f in self.run.must_failures if f.rule_id not in self.waived]

    @property
    def counted_should(self) -> list[Finding]:
        if self.purpose is not Purpose.SCENARIO:
            return []
        return [
            f for f in self.run.findings if f.level is Level.SHOULD and f.rule_id not in self.waived
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "purpose": self.purpose.value,
            "waived": list(self.waived),
            "run": self.run.to_dict(),
        }


@dataclass
class ScenarioResult:
    name: str
    title: str
    outcome: Outcome = Outcome.PASSED
    actions: list[ScenarioAction] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    cleanup: list[str] = field(default_factory=list)  # what was deleted, or why it could not be
    leaked: list[dict[str, Any]] = field(default_factory=list)  # identifiers left behind
    notes: list[str] = field(default_factory=list)  # blocked/skipped reasons, input notes
    minimal_input: dict[str, Any] | None = None  # generated-inputs: the shrunk failing input
    examples_run: int | None = None  # generated-inputs: distinct inputs tried
    total_s: float = 0.0
    error: str | None = None

    @property
    def must_findings(self) -> int:
        return sum(len(a.counted_must) for a in self.actions)

    def decide(self) -> Outcome:
        """The outcome from the scenario's own steps and its verdicts (cleanup not counted)."""
        own = [a.run for a in self.actions if a.purpose is Purpose.SCENARIO]
        if self.error is not None or any(r.end_reason is EndReason.ERROR for r in own):
            return Outcome.ERROR
        failed = [v for v in self.verdicts if v.failed]
        if self.must_findings or any(v.level is Level.MUST for v in failed):
            return Outcome.FAILED
        if self.outcome is Outcome.BLOCKED:
            return Outcome.BLOCKED
        if failed or any(a.counted_should for a in self.actions):
            return Outcome.WARNED
        if self.outcome is Outcome.SKIPPED:
            return Outcome.SKIPPED
        return Outcome.PASSED

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "outcome": self.outcome.value,
            "must_findings": self.must_findings,
            "verdicts": [v.to_dict() for v in self.verdicts],
            "actions": [a.to_dict() for a in self.actions],
            "cleanup": list(self.cleanup),
            "leaked": list(self.leaked),
            "notes": list(self.notes),
            "minimal_input": self.minimal_input,
            "examples_run": self.examples_run,
            "total_s": self.total_s,
            "error": self.error,
        }


# --- the stream -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScenarioStarted:
    name: str
    title: str
    description: str
    index: int  # 0-based position among the scenarios of this run
    total: int


@dataclass(frozen=True)
class ActionStarted:
    """A chain of the scenario is about to run; its ChainEvents follow."""

    scenario: str
    label: str
    purpose: Purpose
    waived: tuple[str, ...] = ()  # rule ids the scenario provokes on purpose (not counted)


@dataclass(frozen=True)
class VerdictReached:
    scenario: str
    verdict: Verdict


@dataclass(frozen=True)
class ScenarioNote:
    """Something to say that is no verdict: cleanup done or impossible, a skip, a block."""

    scenario: str
    message: str
    warning: bool = False


@dataclass(frozen=True)
class ScenarioEnded:
    result: ScenarioResult


ScenarioEvent = (
    ScenarioStarted | ActionStarted | VerdictReached | ScenarioNote | ScenarioEnded | ChainEvent
)
