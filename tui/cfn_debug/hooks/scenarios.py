"""The CLI's nine hook contract tests as scenarios, plus stack and change-set targets.

``contract_pre_{create,update,delete}_{success,failed,failed_unsupported_target}``, as
cloudformation-cli's ``suite/hook`` runs them, for each invocation point the hook has a handler
for (the others are skipped, as `cfn test`'s markers skip them):

- ``_success``: every target of the point, with its ``inputs_N_pre_<x>`` model (else a generated
  one); the CLI asserts SUCCESS. A refusal of the project's own compliant input is a SHOULD
  (hook-allows-compliant-input); a refusal of a generated model is the hook's verdict, shown.
- ``_failed``: every target of ``inputs_N_invalid_pre_<x>`` (else ``inputs_N_invalid``); the hook
  must refuse it (hook-refuses-invalid-input, MUST). Without such an input nothing is known to be
  non-compliant, so the scenario is skipped (the CLI would send a valid model and expect FAILED).
- ``_failed_unsupported_target``: when the point's targetNames hold a wildcard, a target no hook
  handles; FAILED UnsupportedTarget is required (hook-unsupported-target, MUST).

``stack_pre_*`` and ``change_set_pre_*`` send the stack-level and change-set targets (a template
in ``targetModel``) to a hook that declares ``STACK`` or ``CHANGE_SET`` among its targets.

Every step's own findings count as in a single run. Scenarios share nothing and create nothing, so
there is no cleanup.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cfn_debug.chain import ChainControl, ChainOptions
from cfn_debug.errors import CfnDebugError
from cfn_debug.hooks.events import HookEventSpec, make_event
from cfn_debug.hooks.rules import hook_rule
from cfn_debug.hooks.schema import CHANGE_SET_TARGET, POINT_HANDLERS, POINT_SHORT, STACK_TARGET
from cfn_debug.hooks.targets import UNSUPPORTED_TARGET, unsupported_model
from cfn_debug.records import Level, RunEnded
from cfn_debug.scenarios.results import (
    ActionStarted,
    Outcome,
    Purpose,
    ScenarioAction,
    ScenarioEnded,
    ScenarioEvent,
    ScenarioNote,
    ScenarioResult,
    ScenarioStarted,
    Verdict,
    VerdictReached,
    VerdictStatus,
)

_KINDS = ("success", "failed", "failed_unsupported_target")


@dataclass(frozen=True)
class HookScenario:
    name: str
    point: str
    kind: str  # success, failed, failed_unsupported_target, stack, change_set
    title: str
    description: str
    rules: tuple[str, ...]


def _catalogue() -> tuple[HookScenario, ...]:
    out: list[HookScenario] = []
    for point, short in POINT_SHORT.items():
        verb = short.removeprefix("pre_")
        out.append(
            HookScenario(
                f"contract_{short}_success",
                point,
                "success",
                f"pre-{verb}: compliant targets are allowed",
                f"every target of the {point} handler, from inputs_N_{short} or generated; the "
                "CLI asserts SUCCESS",
                ("hook-allows-compliant-input",),
            )
        )
        out.append(
            HookScenario(
                f"contract_{short}_failed",
                point,
                "failed",
                f"pre-{verb}: non-compliant targets are refused",
                f"every target of inputs_N_invalid_{short} (or inputs_N_invalid): FAILED with an "
                "error code and a message",
                ("hook-refuses-invalid-input",),
            )
        )
        out.append(
            HookScenario(
                f"contract_{short}_failed_unsupported_target",
                point,
                "failed_unsupported_target",
                f"pre-{verb}: an unsupported target is answered UnsupportedTarget",
                "when the handler's targetNames hold a wildcard: a target it does not handle gets "
                "FAILED UnsupportedTarget",
                ("hook-unsupported-target",),
            )
        )
    for point, short in POINT_SHORT.items():
        verb = short.removeprefix("pre_")
        out.append(
            HookScenario(
                f"stack_{short}",
                point,
                "stack",
                f"pre-{verb} of a whole stack",
                "the stack-level target (targetName STACK, the template in targetModel), for a "
                "hook that declares STACK",
                (),
            )
        )
    out.append(
        HookScenario(
            "change_set_pre_create",
            "CREATE_PRE_PROVISION",
            "change_set",
            "a change set before it is created",
            "the change-set target (targetName CHANGE_SET, the template and the changed "
            "resources), for a hook that declares CHANGE_SET",
            (),
        )
    )
    return tuple(out)


HOOK_SCENARIOS = _catalogue()


def select_hook_scenarios(names: Sequence[str]) -> list[HookScenario]:
    if not names or "all" in names:
        return list(HOOK_SCENARIOS)
    by_name = {s.name: s for s in HOOK_SCENARIOS}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise CfnDebugError(
            f"no hook scenario {unknown[0]!r}; known: all, {', '.join(by_name)}", field="NAME"
        )
    return [s for s in HOOK_SCENARIOS if s.name in names]


_TEMPLATE = (
    '{"AWSTemplateFormatVersion": "2010-09-09", "Resources": {"LogsBucket": {"Type": '
    '"AWS::S3::Bucket", "Properties": {"BucketName": "cfn-debug-logs"}}}}'
)


def _stack_model(point: str) -> dict[str, Any]:
    model: dict[str, Any] = {"template": _TEMPLATE}
    if point == "UPDATE_PRE_PROVISION":
        model["previousTemplate"] = '{"AWSTemplateFormatVersion": "2010-09-09", "Resources": {}}'
    return model


def _change_set_model() -> dict[str, Any]:
    return {
        "template": _TEMPLATE,
        "changedResources": [
            {
                "action": "CREATE",
                "beforeContext": None,
                "afterContext": '{"Properties": {"BucketName": "cfn-debug-logs"}}',
                "lineNumber": 1,
                "logicalResourceId": "LogsBucket",
                "resourceType": "AWS::S3::Bucket",
            }
        ],
    }


@dataclass
class HookInputs:
    """What the scenarios send: the workspace's hook events grouped by point and expectation."""

    events: list[HookEventSpec]
    source: str = "inputs/"

    def of(self, point: str, expect: str) -> list[HookEventSpec]:
        return [
            e
            for e in self.events
            if e.point == point
            and e.expect == expect
            and e.path is not None
            and e.path.parent.name == "inputs"
        ]

    def generated(self, point: str) -> list[HookEventSpec]:
        return [
            e
            for e in self.events
            if e.point == point and e.name.startswith("generated/") and e.name.endswith(" full")
        ]


@dataclass
class HookScenarioRunner:
    """Runs hook scenarios against a workspace whose project is a hook (``workspace.hook``)."""

    workspace: Any
    options: ChainOptions = field(default_factory=ChainOptions)
    control: ChainControl = field(default_factory=ChainControl)
    results: list[ScenarioResult] = field(default_factory=list)
    leaked: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        events = [e for e in self.workspace.events if isinstance(e, HookEventSpec)]
        has_inputs = any(e.path is not None and e.path.parent.name == "inputs" for e in events)
        self.inputs = HookInputs(
            events, "inputs/" if has_inputs else "generated from the target schemas"
        )

    def cancel(self) -> None:
        self.control.cancel()

    def chosen(self, names: Sequence[str]) -> list[HookScenario]:
        return select_hook_scenarios(names)

    async def run(self, names: Sequence[str] = ("all",)) -> AsyncIterator[ScenarioEvent]:
        chosen = self.chosen(names)
        queue: asyncio.Queue[Any] = asyncio.Queue()
        done = object()

        async def produce() -> None:
            try:
                for index, scenario in enumerate(chosen):
                    await self.play(scenario, index, len(chosen), queue.put_nowait)
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

    def _events_for(self, scenario: HookScenario) -> tuple[list[HookEventSpec], str | None]:
        """The events a scenario sends, or why it is skipped."""
        hook = self.workspace.hook
        point, kind = scenario.point, scenario.kind
        if point not in hook.schema.points:
            return [], f"the hook has no {POINT_HANDLERS[point]} handler"
        if not hook.schema.targets.get(point) and kind not in ("stack", "change_set"):
            # "targetNames": [] (as `cfn init` writes a handler the hook does not use): an
            # input file would not make CloudFormation invoke it
            return [], (
                f"the hook's {POINT_HANDLERS[point]} handler declares no targetNames: "
                "CloudFormation invokes it for no target"
            )
        if kind == "success":
            events = self.inputs.of(point, "allowed")
            covered = {e.target_name for e in events}
            events += [e for e in self.inputs.generated(point) if e.target_name not in covered]
            return events, None if events else "no target to send (no inputs, no generated model)"
        if kind == "failed":
            events = self.inputs.of(point, "refused")
            return events, None if events else (
                "no target known to be non-compliant: add "
                f"inputs/inputs_1_invalid_{POINT_SHORT[point]}.json (or inputs_1_invalid.json)"
            )
        if kind == "failed_unsupported_target":
            if hook.lambda_hook:
                return [], "a Lambda Hook answers NonCompliant or InternalFailure only"
            if not hook.schema.has_wildcards(point):
                return [], "no wildcard among the handler's targetNames (the CLI skips it too)"

            model: dict[str, Any] = {"resourceProperties": unsupported_model()}
            if point == "UPDATE_PRE_PROVISION":
                model["previousResourceProperties"] = {**unsupported_model(), "property2": 7}
            return [
                make_event(
                    point, UNSUPPORTED_TARGET, model, name=f"{scenario.name} {UNSUPPORTED_TARGET}"
                )
            ], None
        target = STACK_TARGET if kind == "stack" else CHANGE_SET_TARGET
        if not hook.schema.handles(point, target):
            return [], f"the hook does not declare {target} among the {point} handler's targets"
        model = _stack_model(point) if kind == "stack" else _change_set_model()
        event = make_event(
            point,
            target,
            model,
            name=f"{scenario.name} {target}",
            target_type=target,
            logical_id="cfn-debug-hook-stack",
            change_set_id=(
                "arn:aws:cloudformation:us-east-1:123456789012:changeSet/cfn-debug/"
                "00000000-0000-0000-0000-000000000000"
                if kind == "change_set"
                else None
            ),
        )
        return [event], None

    async def play(
        self, scenario: HookScenario, index: int, total: int, emit: Callable[[Any], None]
    ) -> ScenarioResult:
        emit(ScenarioStarted(scenario.name, scenario.title, scenario.description, index, total))
        started = time.monotonic()
        result = ScenarioResult(scenario.name, scenario.title)
        events, skipped = self._events_for(scenario)
        if skipped is not None:
            result.outcome = Outcome.SKIPPED
            result.notes.append(skipped)
            emit(ScenarioNote(scenario.name, skipped))
            for rule_id in scenario.rules:
                self._verdict(result, emit, rule_id, VerdictStatus.SKIP, skipped, None)
        for event in events:
            label = event.name
            emit(ActionStarted(scenario.name, label, Purpose.SCENARIO))

            run = None
            async for chain_event in self.workspace.run(
                _without_expectation(event), self.options, self.control, as_written=True
            ):
                emit(chain_event)
                if isinstance(chain_event, RunEnded):
                    run = chain_event.run
            if run is None:
                break
            result.actions.append(ScenarioAction(label, Purpose.SCENARIO, run))
            self._judge(scenario, event, run, result, emit)
        result.total_s = time.monotonic() - started
        result.outcome = result.decide() if skipped is None else Outcome.SKIPPED
        self.results.append(result)
        emit(ScenarioEnded(result))
        return result

    def _verdict(
        self,
        result: ScenarioResult,
        emit: Callable[[Any], None],
        rule_id: str,
        status: VerdictStatus,
        message: str,
        action: str | None,
    ) -> None:
        level = hook_rule(rule_id).level
        verdict = Verdict(rule_id, level, status, message, action)
        result.verdicts.append(verdict)
        emit(VerdictReached(result.name, verdict))

    def _setup_dependent(self, run: Any) -> str | None:
        """Why an allowed target of an invalid input may be the local AWS's doing: the hook
        read AWS and the setup stack lacks a resource the local AWS did not create (what the
        input's author expected the hook to find, such as the rules a custom resource
        registers), or None."""
        missing = self.workspace.setup_missing
        calls = [f"{c.service} {c.operation}" for step in run.steps for c in step.aws_calls]
        if not missing or not calls:
            return None
        return (
            f"the hook read AWS ({', '.join(dict.fromkeys(calls))}) and the setup stack lacks "
            f"{', '.join(missing)}, which the local AWS did not create: what the hook allows "
            "may depend on it"
        )

    def _judge(
        self,
        scenario: HookScenario,
        event: HookEventSpec,
        run: Any,
        result: ScenarioResult,
        emit: Callable[[Any], None],
    ) -> None:
        verdict = run.verdict or run.final_status or "no answer"
        label = event.target_name
        says = f"{label}: the hook's verdict: {verdict}"
        if any(f.level is Level.MUST for f in run.findings) or run.verdict is None:
            if scenario.rules:  # a broken answer is judged by its own findings
                self._verdict(
                    result,
                    emit,
                    scenario.rules[0],
                    VerdictStatus.SKIP,
                    f"{label}: no verdict to judge ({verdict})",
                    label,
                )
            return
        if scenario.kind == "success":
            generated = event.path is None or event.path.parent.name != "inputs"
            if generated and run.verdict != "allowed":
                emit(ScenarioNote(scenario.name, f"{says} (a generated model: shown, not judged)"))
                self._verdict(
                    result,
                    emit,
                    "hook-allows-compliant-input",
                    VerdictStatus.SKIP,
                    f"{says}; a generated model may rightly be refused",
                    label,
                )
                return
            ok = run.verdict == "allowed"
            self._verdict(
                result,
                emit,
                "hook-allows-compliant-input",
                VerdictStatus.PASS if ok else VerdictStatus.FAIL,
                says if ok else f"{says}, but inputs/ says it is compliant",
                label,
            )
        elif scenario.kind == "failed":
            ok = run.final_status == "FAILED"
            unsure = None if ok else self._setup_dependent(run)
            if unsure is not None:
                self._verdict(
                    result,
                    emit,
                    "hook-refuses-invalid-input",
                    VerdictStatus.SKIP,
                    f"{says}, but inputs/ says it is non-compliant: not judged, {unsure}",
                    label,
                )
                return
            self._verdict(
                result,
                emit,
                "hook-refuses-invalid-input",
                VerdictStatus.PASS if ok else VerdictStatus.FAIL,
                says if ok else f"{says}, but inputs/ says it is non-compliant",
                label,
            )
        elif scenario.kind == "failed_unsupported_target":
            ok = run.verdict == "unsupported target"
            self._verdict(
                result,
                emit,
                "hook-unsupported-target",
                VerdictStatus.PASS if ok else VerdictStatus.FAIL,
                says if ok else f"{says}, not FAILED UnsupportedTarget",
                label,
            )
        else:
            emit(ScenarioNote(scenario.name, says))


def _without_expectation(event: HookEventSpec) -> HookEventSpec:
    """The scenario judges the verdict itself (its verdicts), so the run carries no expectation
    finding of its own."""
    return dataclasses.replace(event, expect=None, normalized=event.normalized)
