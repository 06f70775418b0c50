"""Run scenarios against a Workspace, as an async stream of ScenarioEvents.

::

    runner = ScenarioRunner(workspace, ScenarioOptions(type_configuration={"Fault": "..."}))
    async for event in runner.run(["create-read", "delete-list"]):
        ...  # ScenarioStarted, ActionStarted, ChainEvents, VerdictReached, ScenarioEnded, ...

Scenarios that claim nothing in common run at once, up to ``ScenarioOptions.concurrency``
(default 1: one after another). A scenario's claim is what its create input sets among the
primary and additional identifiers and createOnly properties (a name a second create of the
same values would find taken): scenarios with the same claim run one after another in one lane,
each deleting what it created before the next starts; values sent as written are one claim for
every scenario, values made unique per scenario (generated, --unique) or identifiers the handler
names (readOnly) are not. Scenarios that judge what a listing shows beyond their own resources
(list-empty, create-idempotent, update-list, generated-inputs: ``Scenario.alone``) run while
nothing else does, and so does the first scenario that plays (one that ends every other, a
function that cannot load, ends them before they start). Events are passed on in catalogue
order whatever the order the scenarios end in: the first unfinished scenario's as they come, the
others' once every scenario before them has ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from cfn_debug.chain import ChainControl, ChainOptions
from cfn_debug.errors import CfnDebugError
from cfn_debug.events import Shape
from cfn_debug.infrastructure import NOT_LOADED, infrastructure_error
from cfn_debug.records import RunRecord
from cfn_debug.scenarios.catalogue import SCENARIOS, Scenario, select
from cfn_debug.scenarios.generate import example_update
from cfn_debug.scenarios.inputs import ScenarioInputs, resolve_inputs
from cfn_debug.scenarios.play import EndpointUnusable, Play
from cfn_debug.scenarios.results import (
    Outcome,
    ScenarioEnded,
    ScenarioEvent,
    ScenarioResult,
    ScenarioStarted,
)
from cfn_debug.schema import MISSING, ResourceSchema, resolve_pointer
from cfn_debug.workspace import Workspace


@dataclass
class ScenarioOptions:
    chain: ChainOptions = field(default_factory=ChainOptions)
    #: sent as request.typeConfiguration with every request (the demo's faults live there)
    type_configuration: dict[str, Any] | None = None
    #: the payload shape, when the workspace cannot tell (the emulator's "function")
    shape: Shape | None = None
    examples: int = 20  # generated-inputs: inputs to try
    shrink_budget: int = 150  # generated-inputs: further runs allowed to shrink a failure
    seed: int | None = None  # generated-inputs: Hypothesis seed, for a reproducible search
    max_list_pages: int = 100
    #: a per-run suffix on identifiers the handler names: None sends what the user wrote as
    #: written (generated values get one; a create answered AlreadyExists is retried once with
    #: one), True always (--unique), False never (--no-unique)
    unique: bool | None = None
    #: model pointers whose values came from an export or --export: never made unique
    unique_exempt: frozenset[str] = frozenset()
    #: run generated-inputs with ``all`` even when the project has input files (--generate)
    generate: bool = False
    #: scenarios played at once, at most (the module docstring says which may be)
    concurrency: int = 1


class ScenarioRunner:
    def __init__(
        self,
        workspace: Workspace,
        options: ScenarioOptions | None = None,
        inputs: ScenarioInputs | None = None,
    ) -> None:
        if workspace.schema is None:
            raise CfnDebugError(
                "scenarios need the resource schema (its primary identifier, createOnly and "
                "writeOnly properties): none found in the project; give --schema FILE",
                path=workspace.project.root,
                field="--schema",
            )
        self.workspace = workspace
        self.schema: ResourceSchema = workspace.schema
        self.options = options or ScenarioOptions()
        self.inputs = inputs or resolve_inputs(workspace.project, self.schema)
        self.control = ChainControl()
        self.results: list[ScenarioResult] = []
        #: (scenario, identifier) of every resource a cleanup could not delete: reported once,
        #: where it happened; a later AlreadyExists it explains is not judged
        self.leaked: list[tuple[str, dict[str, Any]]] = []
        self._default_update: dict[str, Any] | None = None
        #: how the scenarios' creates ended so far: whether any succeeded, and the first that
        #: failed (describe(run)), for the verdicts a correct handler that cannot work here at
        #: all (no type configuration, no service) would fail too
        self.create_succeeded = False
        self.create_failed: str | None = None
        #: the first update of a resource that exists that ended SUCCESS or FAILED: whether the
        #: handler takes the update input at all (scenarios/update.py, refused_anyway)
        self.update_outcome: RunRecord | None = None

    def cancel(self) -> None:
        """Stop: the running chain is abandoned; what was created is reported, not deleted."""
        self.control.cancel()

    def default_update(self) -> dict[str, Any]:
        """An update input when none was given: the create input with generated updatable
        values over it."""
        if self._default_update is None:
            self._default_update = {**self.inputs.create, **example_update(self.schema)}
        return self._default_update

    def chosen(self, names: Sequence[str]) -> list[Scenario]:
        """The scenarios ``names`` asks for, in catalogue order. generated-inputs runs when named
        or with ``generate``; ``all`` leaves it out when the project has input files (`cfn test`
        uses those alone, and the handler may rightly reject what the schema cannot express)."""
        chosen = select(names)
        everything = not names or "all" in names
        generated = next(s for s in SCENARIOS if s.name == "generated-inputs")
        if self.options.generate and generated not in chosen:
            chosen = [s for s in SCENARIOS if s in chosen or s is generated]
        elif everything and not self.options.generate and self.inputs.from_files:
            chosen = [s for s in chosen if s is not generated]
        return chosen

    async def run(self, names: Sequence[str] = ("all",)) -> AsyncIterator[ScenarioEvent]:
        """Run the named scenarios ("all" for every one) in catalogue order."""
        chosen = self.chosen(names)
        queue: asyncio.Queue[Any] = asyncio.Queue()
        done = object()

        async def produce() -> None:
            try:
                await self._schedule(chosen, queue.put_nowait)
            finally:
                queue.put_nowait(done)

        task = asyncio.ensure_future(produce())
        try:
            while True:
                item = await queue.get()
                if item is done:
                    break
                yield item
            await task
        finally:
            if not task.done():
                self.control.cancel()
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _schedule(self, chosen: list[Scenario], emit: Any) -> None:
        """Play ``chosen``: alone first, then in lanes of one claim each, then alone again (the
        module docstring); every event reaches ``emit`` in catalogue order."""
        total = len(chosen)
        first_result = len(self.results)
        ordered = _InOrder(emit, total)
        plays = [
            Play(self, s.name, s.title, ordered.emitter(i), rules=s.rules)
            for i, s in enumerate(chosen)
        ]
        stopped: list[str] = []

        async def one(index: int) -> None:
            scenario = chosen[index]
            try:
                applies = all(self.schema.has_handler(a) for a in scenario.needs)
                if stopped and applies:
                    self._not_run(scenario, index, total, stopped[0], plays[index].emit)
                    return
                result = await self.play(scenario, index, total, plays[index].emit, plays[index])
                if _cannot_load(result):  # every other scenario would end the same way
                    stopped.append(
                        f"not run: the function could not be loaded (see {scenario.name})"
                    )
                elif (why := _ends_every_scenario(result)) is not None:
                    stopped.append(f"not run: {why} (see {scenario.name})")
            finally:
                ordered.ended(index)

        alone_first, lanes, alone_last = self._lanes(chosen, plays)
        for index in alone_first:
            await one(index)
        slots = asyncio.Semaphore(max(1, self.options.concurrency))

        async def lane(indices: list[int]) -> None:
            for index in indices:
                async with slots:
                    await one(index)

        if lanes:
            await asyncio.gather(*(lane(indices) for indices in lanes))
        for index in alone_last:
            await one(index)
        rank = {s.name: i for i, s in enumerate(chosen)}
        self.results[first_result:] = sorted(
            self.results[first_result:], key=lambda r: rank.get(r.name, total)
        )

    def _lanes(
        self, chosen: list[Scenario], plays: list[Play]
    ) -> tuple[list[int], list[list[int]], list[int]]:
        """(played alone first, lanes of one claim each, played alone last), as indices."""
        if self.options.concurrency <= 1:
            return [], [list(range(len(chosen)))], []
        alone_first: list[int] = []
        alone_last: list[int] = []
        lanes: dict[str, list[int]] = {}
        probed = False
        for index, scenario in enumerate(chosen):
            if not probed:  # list-empty (nothing may exist), then the first that plays
                alone_first.append(index)
                applies = all(self.schema.has_handler(a) for a in scenario.needs)
                probed = applies and not scenario.alone
            elif scenario.alone:  # listings that would show the other scenarios' resources
                alone_last.append(index)
            else:
                key = self._claim(plays[index].create_input) or f"#{index}"
                lanes.setdefault(key, []).append(index)
        return alone_first, list(lanes.values()), alone_last

    def _claim(self, model: dict[str, Any]) -> str:
        """What a create of ``model`` claims that another create could find taken: the values
        it sets among the identifiers and createOnly properties ("" for none: the handler
        names the resource)."""
        schema = self.schema
        pointers = {
            *schema.primary_identifier,
            *(p for group in schema.additional_identifiers for p in group),
            *schema.create_only,
        }
        claimed = {}
        for pointer in sorted(pointers - set(schema.read_only)):
            value = resolve_pointer(model, pointer)
            if value is not MISSING:
                claimed[pointer] = value
        return json.dumps(claimed, sort_keys=True, default=str) if claimed else ""

    def _not_run(self, scenario: Scenario, index: int, total: int, why: str, emit: Any) -> None:
        """A scenario left out because the function cannot load: an error, played not at all."""
        emit(ScenarioStarted(scenario.name, scenario.title, scenario.description, index, total))
        result = ScenarioResult(scenario.name, scenario.title, error=why)
        result.outcome = result.decide()
        self.results.append(result)
        emit(ScenarioEnded(result))

    async def play(
        self, scenario: Scenario, index: int, total: int, emit: Any, play: Play | None = None
    ) -> ScenarioResult:
        """One scenario, start to cleanup; its events go to ``emit``."""
        if play is None:
            play = Play(self, scenario.name, scenario.title, emit, rules=scenario.rules)
        emit(ScenarioStarted(scenario.name, scenario.title, scenario.description, index, total))
        started = time.monotonic()
        missing = [a.value for a in scenario.needs if not self.schema.has_handler(a)]
        if play.unique_values:
            play.note(
                "unique values for this run: "
                + ", ".join(f"{k}={v}" for k, v in play.unique_values.items())
            )
        try:
            if missing:
                for rule_id in scenario.rules:
                    play.skip(rule_id, f"the schema declares no {'/'.join(missing)} handler")
            else:
                await scenario.play(play)
        except asyncio.CancelledError:
            play.abandon("cancelled")
            raise
        except EndpointUnusable as gone:
            play.result.error = str(gone)
            play.abandon("the endpoint could not be used")
        except CfnDebugError as error:
            play.result.error = str(error)
        if play.live or play.unknown_creations:  # after an infrastructure limit too
            try:
                await play.cleanup()
            except (EndpointUnusable, CfnDebugError) as gone:
                play.abandon(str(gone))
        result = play.result
        result.total_s = time.monotonic() - started
        result.outcome = result.decide()
        if result.outcome is Outcome.ERROR and result.error is None:
            result.error = "the endpoint could not be used"
        self.results.append(result)
        emit(ScenarioEnded(result))
        return result


class _InOrder:
    """The events of scenarios played at once, passed on in catalogue order: the first
    unfinished scenario's as they come, each other's once every scenario before it has ended."""

    def __init__(self, emit: Any, total: int) -> None:
        self._emit = emit
        self._head = 0
        self._held: list[list[Any]] = [[] for _ in range(total)]
        self._ended = [False] * total

    def emitter(self, index: int) -> Any:
        def put(event: Any) -> None:
            if index == self._head:
                self._emit(event)
            else:
                self._held[index].append(event)

        return put

    def ended(self, index: int) -> None:
        self._ended[index] = True
        while self._head < len(self._ended) and self._ended[self._head]:
            self._head += 1
            if self._head < len(self._held):
                held, self._held[self._head] = self._held[self._head], []
                for event in held:
                    self._emit(event)


def _ends_every_scenario(result: ScenarioResult) -> str | None:
    """What stopped ``result`` that every later scenario would meet the same way: a service or
    operation the local AWS lacks, an AWS nobody answers on, or the handler's library refusing
    the request (the same create input, the same library)."""
    if result.outcome is not Outcome.ERROR:
        return None

    for action in result.actions:
        steps = action.run.steps
        if not steps:
            continue
        why = infrastructure_error(steps[-1].result)
        if why is None:
            continue
        if why.startswith("the local AWS could not serve "):
            return why.split(" (", 1)[0]
        if why.startswith("the handler could not reach"):  # nobody answers there
            return why.split(" (", 1)[0]
        if "cloudformation-cli-python-lib" in why:
            return "the handler's library refused the request"
    return None


def _cannot_load(result: ScenarioResult) -> bool:
    """Whether a run of ``result`` ended because the Lambda runtime could not load the function
    (a missing module, a syntax error, no such handler): every other scenario would too."""
    for action in result.actions:
        steps = action.run.steps
        if steps and steps[-1].result.error_type in NOT_LOADED:
            return True
    return False


__all__ = ["SCENARIOS", "ScenarioOptions", "ScenarioRunner"]
