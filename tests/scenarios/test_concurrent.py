"""Scenarios played at once (ScenarioOptions.concurrency): which may share the endpoint at the
same time, and that their events and results still come in catalogue order."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cfn_debug.records import RunEnded
from cfn_debug.scenarios import ScenarioRunner
from cfn_debug.scenarios.inputs import ScenarioInputs
from cfn_debug.scenarios.play import Play
from cfn_debug.scenarios.results import Outcome, ScenarioEnded, ScenarioStarted
from cfn_debug.schema import ResourceSchema
from cfn_debug.workspace import Workspace
from conftest import fast_options

TICKET = Path(__file__).parent / "projects" / "ticket"
SCHEMA = ResourceSchema(
    {
        "typeName": "Corpus::Test::Lanes",
        "properties": {"Id": {"type": "string"}, "Name": {"type": "string"}},
        "additionalProperties": False,
        "readOnlyProperties": ["/properties/Id"],
        "primaryIdentifier": ["/properties/Id"],
        "handlers": {a: {"permissions": []} for a in ("create", "read", "delete", "list")},
    }
)


def lanes(schema: ResourceSchema, create: dict[str, Any], *, concurrency: int = 2) -> Any:
    workspace = SimpleNamespace(schema=schema, project=None)
    inputs = ScenarioInputs(create=create, update=None, source="test")
    options = fast_options(concurrency=concurrency, generate=False)
    runner = ScenarioRunner(workspace, options, inputs)  # type: ignore[arg-type]
    chosen = runner.chosen(["all"])
    plays = [Play(runner, s.name, s.title, lambda _e: None) for s in chosen]
    first, middle, last = runner._lanes(chosen, plays)
    names = [s.name for s in chosen]
    return (
        [names[i] for i in first],
        [[names[i] for i in lane] for lane in middle],
        [names[i] for i in last],
    )


def test_identifiers_the_handler_names_claim_nothing_so_every_scenario_has_its_own_lane() -> None:
    first, middle, last = lanes(SCHEMA, {"Name": "as-written"})
    assert first == ["list-empty", "create-read"]  # nothing may exist; then the probe
    assert all(len(lane) == 1 for lane in middle) and len(middle) > 3
    # their listings would show the other scenarios' resources
    assert last == ["create-idempotent", "update-list", "generated-inputs"]


def test_a_create_only_value_sent_as_written_puts_every_scenario_in_one_lane() -> None:
    """The demo's case: Name is createOnly and its store's natural key; every scenario's create
    claims Name=as-written, so they run one after another."""
    schema = ResourceSchema(dict(SCHEMA.raw, createOnlyProperties=["/properties/Name"]))
    _, middle, _ = lanes(schema, {"Name": "as-written"})
    assert len(middle) == 1 and "update-read" in middle[0]


def test_one_at_a_time_is_one_lane_in_catalogue_order() -> None:
    first, middle, last = lanes(SCHEMA, {"Name": "as-written"}, concurrency=1)
    assert first == [] and last == [] and middle[0][:2] == ["list-empty", "create-read"]


@pytest.mark.slow
def test_scenarios_of_a_handler_named_identifier_play_at_once_in_catalogue_order(
    tmp_path: Path,
) -> None:
    """Corpus::Test::Ticket names its tickets: invocations overlap, every scenario passes as
    it does one by one, and each scenario's events come together, in catalogue order."""
    state = tmp_path / "state"
    env = {"Parameters": {"CORPUS_STATE": str(state)}}
    with Workspace.open(TICKET, env_vars=env) as workspace:
        invoker = workspace.invoker
        plain = invoker.invoke
        busy = {"now": 0, "most": 0}

        async def counted(function_name: str, payload: dict[str, Any]) -> Any:
            busy["now"] += 1
            busy["most"] = max(busy["most"], busy["now"])
            try:
                return await plain(function_name, payload)
            finally:
                busy["now"] -= 1

        invoker.invoke = counted  # type: ignore[method-assign]
        runner = ScenarioRunner(workspace, fast_options(concurrency=2, generate=False))

        async def go() -> list[Any]:
            return [event async for event in runner.run(["all"])]

        events = asyncio.run(go())
    assert busy["most"] >= 2
    order = [e.name for e in events if isinstance(e, ScenarioStarted)]
    ended = [e.result.name for e in events if isinstance(e, ScenarioEnded)]
    assert order == ended == [s.name for s in runner.chosen(["all"])]
    current = None
    for event in events:  # no event of one scenario between another's start and end
        if isinstance(event, ScenarioStarted):
            current = event.name
        elif isinstance(event, RunEnded):
            assert event.run.event_name.split(": ", 1)[0] == current
    assert [r.name for r in runner.results] == order
    others = [r for r in runner.results if r.outcome not in (Outcome.PASSED, Outcome.SKIPPED)]
    assert others == [], [(r.name, r.outcome, r.error, r.notes, r.verdicts) for r in others]
    assert list((state / "tickets").glob("*.json")) == []
