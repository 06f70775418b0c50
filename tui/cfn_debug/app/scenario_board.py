"""What the scenario stream said so far, scenario by scenario: plain data, no widgets.

:class:`ScenarioBoard` takes each event of :meth:`ScenarioRunner.run` in :meth:`ScenarioBoard.apply`
and keeps, for every scenario of the catalogue, its actions (with their steps as they complete),
verdicts, notes and result. The scenarios screen renders it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from cfn_debug.records import (
    DelayStarted,
    InvocationStarted,
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
)


class CatalogueEntry(Protocol):
    """A scenario of a catalogue, as the board lists it."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def description(self) -> str: ...


@dataclass
class ActionView:
    """One chain of a scenario, as far as it has run."""

    label: str
    purpose: Purpose
    waived: tuple[str, ...] = ()
    steps: list[Step] = field(default_factory=list)
    in_flight: InvocationStarted | None = None
    delay: DelayStarted | None = None
    run: RunRecord | None = None  # set when the chain ended


@dataclass
class ScenarioView:
    name: str
    title: str
    description: str
    state: str = "idle"  # idle, running, done
    actions: list[ActionView] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    notes: list[tuple[str, bool]] = field(default_factory=list)  # (message, warning)
    result: ScenarioResult | None = None

    @property
    def badge_key(self) -> Outcome | str:
        if self.result is not None:
            return self.result.outcome
        return "running" if self.state == "running" else "idle"

    def reset(self) -> None:
        self.state, self.result = "running", None
        self.actions, self.verdicts, self.notes = [], [], []


class ScenarioBoard:
    """Every scenario of the catalogue and what the latest run of each said. Plain data."""

    def __init__(self, catalogue: Sequence[CatalogueEntry] = SCENARIOS) -> None:
        """``catalogue``: a resource type's scenarios, or a hook's (``HOOK_SCENARIOS``)."""
        self.views: dict[str, ScenarioView] = {
            s.name: ScenarioView(s.name, s.title, s.description) for s in catalogue
        }
        self.current: str | None = None  # the scenario the stream is in

    def apply(self, event: object) -> str | None:
        """Take one event of the scenario stream; returns the scenario it changed."""
        if isinstance(event, ScenarioStarted):
            view = self.views.setdefault(
                event.name, ScenarioView(event.name, event.title, event.description)
            )
            view.reset()
            self.current = event.name
            return event.name
        if isinstance(event, ScenarioEnded):
            view = self.views.setdefault(
                event.result.name, ScenarioView(event.result.name, event.result.title, "")
            )
            view.result, view.state = event.result, "done"
            self.current = None
            return view.name
        if isinstance(event, (ActionStarted, VerdictReached, ScenarioNote)):
            view = self.views.get(event.scenario)
            if view is None:
                return None
            if isinstance(event, ActionStarted):
                view.actions.append(ActionView(event.label, event.purpose, event.waived))
            elif isinstance(event, VerdictReached):
                view.verdicts.append(event.verdict)
            else:
                view.notes.append((event.message, event.warning))
            return view.name
        # a ChainEvent: it belongs to the last action of the scenario being played
        view = self.views.get(self.current) if self.current else None
        if view is None or not view.actions:
            return None
        action = view.actions[-1]
        if isinstance(event, InvocationStarted):
            action.in_flight, action.delay = event, None
        elif isinstance(event, StepCompleted):
            action.steps.append(event.step)
            action.in_flight = None
        elif isinstance(event, DelayStarted):
            action.delay = event
        elif isinstance(event, RunEnded):
            action.run, action.in_flight, action.delay = event.run, None, None
            if len(event.run.steps) >= len(action.steps):
                action.steps = list(event.run.steps)
        return view.name

    def interrupt(self, why: str) -> None:
        """The run stopped before the scenario being played ended (cancelled, broken)."""
        view = self.views.get(self.current) if self.current else None
        if view is not None and view.state == "running":
            view.state = "idle"
            view.notes.append((why, True))
        self.current = None

    def counts(self) -> dict[Outcome, int]:
        found: dict[Outcome, int] = {}
        for view in self.views.values():
            if view.result is not None:
                found[view.result.outcome] = found.get(view.result.outcome, 0) + 1
        return found
