"""Fixtures of the scenario tests: the real demo behind the embedded endpoint, real stores."""

from __future__ import annotations

import asyncio
from pathlib import Path

from cfn_debug.chain import ChainOptions
from cfn_debug.scenarios import ScenarioEnded, ScenarioOptions, ScenarioResult, ScenarioRunner
from cfn_debug.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "tui" / "cfn_debug" / "demo"


def empty_state(directory: Path) -> Path:
    """A demo state directory with no widgets: the store seeds a directory once, and the
    ``.seeded`` marker says it already has (demo README, "The state directory")."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / ".seeded").write_text("seeded\n", encoding="utf-8")
    return directory


def widgets(state: Path) -> list[str]:
    return sorted(p.stem for p in (state / "widgets").glob("wdg-*.json"))


def open_demo(state: Path, **kwargs: object) -> Workspace:
    return Workspace.open(
        DEMO, env_vars={"Parameters": {"CFN_DEBUG_DEMO_STATE": str(state)}}, **kwargs
    )


def fast_options(**kwargs: object) -> ScenarioOptions:
    values: dict[str, object] = {
        "chain": ChainOptions(max_delay_s=0),
        "examples": 3,
        "shrink_budget": 30,
        "seed": 6,
        "generate": True,  # the demo has example_inputs/: `all` would leave generated-inputs out
    }
    values.update(kwargs)
    return ScenarioOptions(**values)  # type: ignore[arg-type]


def run_scenarios(
    workspace: Workspace, options: ScenarioOptions, names: tuple[str, ...] = ("all",)
) -> dict[str, ScenarioResult]:
    runner = ScenarioRunner(workspace, options)

    async def go() -> dict[str, ScenarioResult]:
        found: dict[str, ScenarioResult] = {}
        async for event in runner.run(names):
            if isinstance(event, ScenarioEnded):
                found[event.result.name] = event.result
        return found

    return asyncio.run(go())
