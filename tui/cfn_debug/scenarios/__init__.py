"""Contract scenarios: named sequences of actions with sequence-level checks between them.

``ScenarioRunner(workspace, ScenarioOptions(...)).run(names)`` is an async stream of
:data:`~cfn_debug.scenarios.results.ScenarioEvent`; the catalogue is :data:`SCENARIOS`, the
rules they judge are :data:`cfn_debug.contract.sequence_rules.SEQUENCE_RULES`.
"""

from __future__ import annotations

from cfn_debug.scenarios.catalogue import SCENARIOS, Scenario, scenario, select
from cfn_debug.scenarios.results import (
    ActionStarted,
    Outcome,
    Purpose,
    ScenarioEnded,
    ScenarioEvent,
    ScenarioNote,
    ScenarioResult,
    ScenarioStarted,
    Verdict,
    VerdictReached,
    VerdictStatus,
)
from cfn_debug.scenarios.runner import ScenarioOptions, ScenarioRunner

__all__ = [
    "SCENARIOS",
    "ActionStarted",
    "Outcome",
    "Purpose",
    "Scenario",
    "ScenarioEnded",
    "ScenarioEvent",
    "ScenarioNote",
    "ScenarioOptions",
    "ScenarioResult",
    "ScenarioRunner",
    "ScenarioStarted",
    "Verdict",
    "VerdictReached",
    "VerdictStatus",
    "scenario",
    "select",
]
