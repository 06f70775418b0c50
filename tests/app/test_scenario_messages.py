"""What the scenarios screen's worker posts: one typed message per event of the scenario stream,
each with its handler on the screen (a message without one would be dropped silently)."""

from __future__ import annotations

import dataclasses
from typing import get_args

from cfn_debug.app.messages import ScenarioBegan
from cfn_debug.app.scenario_stream import SCENARIO_MESSAGES, scenario_message
from cfn_debug.app.screens.scenarios import ScenariosScreen
from cfn_debug.scenarios import ScenarioEvent, ScenarioStarted


def test_every_event_of_the_scenario_stream_has_its_own_message_and_handler() -> None:
    events = set(get_args(ScenarioEvent))
    assert len(events) == 11  # 5 of the scenario, 6 of its chain (ChainEvent)
    assert set(SCENARIO_MESSAGES) == events
    kinds = [SCENARIO_MESSAGES[event] for event in events]
    assert len(set(kinds)) == len(kinds)  # one message type per event type
    for kind in kinds:
        assert dataclasses.is_dataclass(kind) and not kind.bubble
        handler = getattr(ScenariosScreen, kind.handler_name, None)
        assert callable(handler), f"ScenariosScreen has no {kind.handler_name}"


def test_a_message_carries_its_event_and_the_run_it_belongs_to() -> None:
    event = ScenarioStarted("create-read", "t", "d", 0, 3)
    message = scenario_message(7, event)
    assert isinstance(message, ScenarioBegan)
    assert message.generation == 7 and message.event is event
    assert scenario_message(7, object()) is None
