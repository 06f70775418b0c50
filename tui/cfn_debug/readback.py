"""Read-back: after a CREATE or UPDATE chain ends SUCCESS, READ the resource by the identifier
the handler returned, and hold the SUCCESS model against what the READ says.

The READ is cfn-debug's own step, not the user's: it is appended to the same run as one more
:class:`~cfn_debug.records.Step` with ``action`` READ and ``origin`` :data:`READ_BACK`, and its
findings are the usual READ findings. What the comparison finds goes onto the CREATE/UPDATE's
SUCCESS step (rules ``read-back-succeeds``, ``read-back-complete`` and
``read-back-keeps-requested``, which also holds the READ against the event's desired state),
which the stream delivers after the READ has run, so every consumer sees it with its findings:

    ... StepCompleted(SUCCESS step, with the read-back findings)
        StepCompleted(the READ, origin "read-back")
        RunEnded(run, whose steps end with the READ; final_status stays the SUCCESS)

No InvocationStarted is sent for the READ (the SUCCESS step is held back while it runs).
An endpoint that cannot be used for the READ ends the run with EndReason.ERROR, not a finding.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import AsyncIterator
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from cfn_debug.chain import _invoke, build_step
from cfn_debug.contract.expectations import expected_failure
from cfn_debug.contract.model_checks import echoes_dropped
from cfn_debug.contract.read_back import read_back_findings
from cfn_debug.diff import Encodings, diff_models
from cfn_debug.events import build_payload
from cfn_debug.records import (
    Action,
    ChainEvent,
    EndReason,
    OutcomeKind,
    RunEnded,
    RunRecord,
    Step,
    StepCompleted,
)
from cfn_debug.schema import split_pointer

if TYPE_CHECKING:
    from cfn_debug.chain import ChainControl
    from cfn_debug.events import EventSpec, PayloadDefaults, Shape
    from cfn_debug.invoke.base import Invoker
    from cfn_debug.schema import ResourceSchema

#: Step.origin of the READ cfn-debug sends on its own.
READ_BACK = "read-back"


def identifier_to_read(step: Step, schema: ResourceSchema | None) -> dict[str, Any] | None:
    """The primary identifier (as a model) to read back after ``step``, or None when there is
    nothing to read: not a CREATE/UPDATE SUCCESS, no schema, no read handler, or a model
    without the identifier (primary-identifier-present says so)."""
    if schema is None or step.action not in (Action.CREATE, Action.UPDATE):
        return None
    result = step.result
    if result.kind is not OutcomeKind.PROGRESS or result.status != "SUCCESS":
        return None
    if schema.raw.get("handlers") and not schema.has_handler(Action.READ):
        return None
    model = (result.progress or {}).get("resourceModel")
    identifier = schema.identifier_of(model) if isinstance(model, dict) else None
    if not identifier:
        return None
    return _model_of(identifier)


def _model_of(identifier: dict[str, Any]) -> dict[str, Any]:
    model: dict[str, Any] = {}
    for pointer, value in identifier.items():
        tokens = split_pointer(pointer)
        node = model
        for token in tokens[:-1]:
            node = node.setdefault(token, {})
        node[tokens[-1]] = value
    return model


async def read_step(
    invoker: Invoker,
    event: EventSpec,
    identifier: dict[str, Any],
    *,
    index: int,
    function_name: str,
    shape: Shape,
    schema: ResourceSchema | None,
    defaults: PayloadDefaults | None,
    success: Step,
) -> tuple[Step, Encodings]:
    """Send the READ and build its Step (origin read-back, index ``index``); with the step, the
    encodings of its models made on the way, for its journal line (StepCompleted.encodings)."""
    norm = dataclasses.replace(
        event.normalized,
        action=Action.READ,
        desired=identifier,
        previous=None,
        callback_context=None,
        next_token=None,
        previous_tags=None,
        previous_system_tags=None,
    )
    token = str(uuid.uuid4())
    payload = build_payload(
        norm,
        shape,
        defaults=defaults,
        desired=identifier,
        callback_context=None,
        client_request_token=token,
    )
    started_at = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
    result, encodings = await _invoke(invoker, function_name, payload)
    step = build_step(
        index=index,
        action=Action.READ,
        function_name=function_name,
        request=payload,
        result=result,
        started_at=started_at,
        schema=schema,
        desired=identifier,
        previous=None,
        original_desired=None,  # a READ's request is the identifier: no diff against it
        previous_steps=(),
        encodings=encodings,
    )
    step.origin = READ_BACK
    if step.findings:  # a value that echoes the user's invalid input was reported there
        read_model = (step.result.progress or {}).get("resourceModel")
        if schema is not None and isinstance(read_model, dict):
            step.findings = echoes_dropped(
                schema, event.normalized.desired, read_model, step.findings
            )
    before = (success.result.progress or {}).get("resourceModel")
    after = (step.result.progress or {}).get("resourceModel") if step.result.progress else None
    if isinstance(before, dict) and isinstance(after, dict):
        # what the READ says against what the SUCCESS said
        step.diff_previous = list(diff_models(before, after, schema))
    return step, encodings


async def with_read_back(
    stream: AsyncIterator[ChainEvent],
    invoker: Invoker,
    event: EventSpec,
    *,
    function_name: str,
    shape: Shape,
    schema: ResourceSchema | None,
    defaults: PayloadDefaults | None,
    control: ChainControl,
) -> AsyncIterator[ChainEvent]:
    """``stream`` (one chain) with the read-back step added; see the module docstring."""
    held: StepCompleted | None = None
    async for item in stream:
        if isinstance(item, StepCompleted) and identifier_to_read(item.step, schema) is not None:
            held = item
            continue
        if held is not None and isinstance(item, RunEnded):
            run = item.run
            read: Step | None = None
            encodings: Encodings | None = None
            identifier = identifier_to_read(held.step, schema)
            terminal = run.end_reason is EndReason.TERMINAL
            if identifier is not None and terminal and not control.cancelled:
                read, encodings = await read_step(
                    invoker,
                    event,
                    identifier,
                    index=len(run.steps),
                    function_name=function_name,
                    shape=shape,
                    schema=schema,
                    defaults=defaults,
                    success=held.step,
                )
            if read is not None:
                if read.result.kind in (OutcomeKind.UNREACHABLE, OutcomeKind.HTTP_ERROR):
                    run.end_reason = EndReason.ERROR
                else:
                    requested = requested_state(event, run)
                    found = read_back_findings(schema, held.step, read, requested)
                    add_findings(held.step, found)
            yield held
            held = None
            if read is not None:
                run.steps.append(read)
                yield StepCompleted(run.run_id, read, encodings)
            yield item
            continue
        if held is not None:
            yield held
            held = None
        yield item
    if held is not None:
        yield held


def requested_state(event: EventSpec, run: RunRecord) -> dict[str, Any] | None:
    """The event's desired state, which the READ is held against (read-back-keeps-requested),
    or None when it is invalid: an inputs_N_invalid event, or a first step with an input-valid
    finding (the invalid input is the cause of what the handler makes of it)."""
    if expected_failure(event) is not None:
        return None
    if run.steps and any(f.rule_id == "input-valid" for f in run.steps[0].findings):
        return None
    desired = event.normalized.desired
    return desired if isinstance(desired, dict) else None


def add_findings(step: Step, found: list[Any]) -> None:
    """Add the read-back findings to ``step``; a SHOULD read-only-properties-present finding
    at a pointer the read-back proves (a MUST now) is dropped: one finding per cause."""
    proven = {f.pointer for f in found if f.rule_id == "read-back-complete"}
    step.findings = [
        f
        for f in step.findings
        if not (f.rule_id == "read-only-properties-present" and f.pointer in proven)
    ] + list(found)
