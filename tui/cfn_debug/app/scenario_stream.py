"""What the scenarios screen's worker does with each event of the scenario stream: it journals it
(``journal``) and posts it to the screen as its own typed message (``scenario_message``)."""

from __future__ import annotations

from typing import Any

from textual.message import Message

from cfn_debug.app.chain_runs import CHAIN_MESSAGES
from cfn_debug.app.messages import (
    EngineMessage,
    ScenarioActionBegan,
    ScenarioBegan,
    ScenarioFinished,
    ScenarioJudged,
    ScenarioMessage,
    ScenarioNoted,
)
from cfn_debug.records import ChainEvent
from cfn_debug.scenarios import (
    ActionStarted,
    ScenarioEnded,
    ScenarioNote,
    ScenarioStarted,
    VerdictReached,
)
from cfn_debug.scenarios.summary import ENTRY_TYPE, scenario_summary

#: The message of each event of the scenario stream (a scenario's chain events: the chain's).
SCENARIO_MESSAGES: dict[type, type[ScenarioMessage | EngineMessage]] = {
    ScenarioStarted: ScenarioBegan,
    ActionStarted: ScenarioActionBegan,
    VerdictReached: ScenarioJudged,
    ScenarioNote: ScenarioNoted,
    ScenarioEnded: ScenarioFinished,
    **CHAIN_MESSAGES,
}


def scenario_message(generation: int, event: object) -> Message | None:
    """The typed message that carries ``event`` of the scenario stream of the screen's run
    ``generation``; None for an event the screen does not show."""
    kind = SCENARIO_MESSAGES.get(type(event))
    return kind(generation, event) if kind is not None else None  # type: ignore[call-arg]


def journal(log: Any, event: object, write_only: Any) -> None:
    """A scenario's chain events, and its result when it ends, in the session journal."""
    if isinstance(event, ChainEvent):
        log.record(event)
    elif isinstance(event, ScenarioEnded):
        log.record_entry(
            {"type": ENTRY_TYPE, "scenario": scenario_summary(event.result, write_only)}
        )
