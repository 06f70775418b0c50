"""Contract scenarios: named sequences of actions with sequence-level checks between them.

``ScenarioRunner(workspace, ScenarioOptions(...)).run(names)`` is an async stream of
:data:`~cfn_debug.scenarios.results.ScenarioEvent`; the catalogue is :data:`SCENARIOS`, the
rules they judge are :data:`cfn_debug.contract.sequence_rules.SEQUENCE_RULES`.

The names below are imported on first use: `cfn-debug scenario` imports its command module
(command.py) at start-up, and the engine behind these names only once the embedded endpoint's
fork server is preloading (see command.scenario_command).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

#: Each exported name and the module that defines it.
_MODULES = {
    **dict.fromkeys(("SCENARIOS", "Scenario", "scenario", "select"), "catalogue"),
    **dict.fromkeys(("ScenarioOptions", "ScenarioRunner"), "runner"),
    **dict.fromkeys(
        (
            "ActionStarted",
            "Outcome",
            "Purpose",
            "ScenarioEnded",
            "ScenarioEvent",
            "ScenarioNote",
            "ScenarioResult",
            "ScenarioStarted",
            "Verdict",
            "VerdictReached",
            "VerdictStatus",
        ),
        "results",
    ),
}

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


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'cfn_debug.scenarios' has no attribute {name!r}")
    value = getattr(import_module(f"cfn_debug.scenarios.{module}"), name)
    globals()[name] = value
    return value
