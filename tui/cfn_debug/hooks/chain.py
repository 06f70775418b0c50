"""The replay engine for hook invocations: one hook event, re-invoked while IN_PROGRESS.

``run_hook_chain`` yields the same :data:`cfn_debug.records.ChainEvent` stream as a resource
chain (RunStarted, InvocationStarted, StepCompleted, DelayStarted, AwaitingStep, RunEnded), so
the console, the journal, the exports, watch mode and the dashboard follow it unchanged. The
callbackContext a hook returns is sent back in the next request (``requestContext`` in
CloudFormation's request, ``callbackContext`` in the test event), with the same
clientRequestToken and an ``invocation`` count, as CloudFormation does. Each step is checked
against the hook contract (:mod:`cfn_debug.hooks.rules`); the run ends with the hook's verdict
(allowed, refused, ...), which is never a finding.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from cfn_debug.chain import (
    ChainControl,
    ChainOptions,
    _delay_of,
    _invoke,
    _now_iso,
    _race,
    _redact_result,
    internal_error_finding,
    new_run,
)
from cfn_debug.events import Shape
from cfn_debug.hooks.events import EXPECT_REFUSED, HookEventSpec
from cfn_debug.hooks.payload import build_hook_payload, hook_status
from cfn_debug.hooks.rules import (
    LAMBDA_HOOK_LIMIT_S,
    check_hook_chain,
    check_hook_step,
    verdict_of,
)
from cfn_debug.infrastructure import infrastructure_error
from cfn_debug.invoke.base import Invoker
from cfn_debug.records import (
    AwaitingStep,
    ChainEvent,
    DelayStarted,
    EndReason,
    InvocationStarted,
    InvokeResult,
    OutcomeKind,
    RunEnded,
    RunRecord,
    RunStarted,
    Step,
    StepCompleted,
)
from cfn_debug.step_calls import step_calls
from cfn_debug.text.redact import credential_values, redact

#: A registry hook's per-invocation limit (see the hook-invocation-time-limit rule).
HOOK_LIMIT_S = 60.0
#: How long a hook chain may run at most (CloudFormation's hook timeout is far shorter; this
#: only stops a chain that never ends).
HOOK_CHAIN_TIMEOUT_S = 30 * 60.0


@dataclass
class HookTarget:
    """Who the requests are for: the hook's type name, its settings and where it runs."""

    type_name: str
    hook_model: dict[str, Any] | None = None
    credentials: dict[str, str] | None = None
    account: str = "123456789012"
    region: str | None = None
    lambda_hook: bool = False
    #: The setup stack's resources the local AWS did not create ("Logical (Type)"): what a hook
    #: that reads AWS allows may depend on them.
    setup_missing: tuple[str, ...] = ()


async def run_hook_chain(
    invoker: Invoker,
    event: HookEventSpec,
    *,
    function_name: str,
    shape: Shape,
    target: HookTarget,
    options: ChainOptions,
    control: ChainControl | None = None,
    endpoint_label: str = "",
) -> AsyncIterator[ChainEvent]:
    """Run ``event`` against ``function_name`` (see the module docstring)."""
    control = control or ChainControl()
    action = event.action
    run = new_run(event, action, function_name, endpoint_label or getattr(invoker, "label", ""))
    yield RunStarted(run=dataclasses.replace(run, steps=[]))
    limit_s = LAMBDA_HOOK_LIMIT_S if target.lambda_hook else HOOK_LIMIT_S
    token = event.normalized.client_request_token or str(uuid.uuid4())
    context = event.normalized.callback_context
    hook_model = event.hook_model if event.hook_model is not None else target.hook_model
    t0 = time.monotonic()
    end_reason: EndReason | None = None
    index = 0
    while True:
        payload = build_hook_payload(
            event,
            shape,
            hook_type_name=target.type_name,
            hook_model=hook_model,
            token=token,
            callback_context=context,
            invocation=index + 1,
            credentials=target.credentials,
            account=target.account,
            region=target.region,
            lambda_hook=target.lambda_hook,
        )
        started_at = _now_iso()
        yield InvocationStarted(run.run_id, index, action, limit_s, time.monotonic())
        outcome = await _race(_invoke(invoker, function_name, payload), control)
        if not isinstance(outcome, tuple):
            end_reason = EndReason.CANCELLED
            break
        result = outcome[0]  # a hook step's line is written without build_step's encodings
        status = hook_status(result.progress) if result.kind is OutcomeKind.PROGRESS else None
        reinvoke = status == "IN_PROGRESS"
        requested = _delay_of(result) if reinvoke else 0.0
        wait = requested if options.max_delay_s is None else min(requested, options.max_delay_s)
        step = _build_step(
            index,
            event,
            function_name,
            payload,
            result,
            started_at,
            shape,
            limit_s,
            wait,
            target.lambda_hook,
        )
        run.steps.append(step)
        yield StepCompleted(run.run_id, step)
        if result.kind in (OutcomeKind.UNREACHABLE, OutcomeKind.HTTP_ERROR):
            end_reason = EndReason.ERROR
            break
        if infrastructure_error(result) is not None:
            end_reason = EndReason.ERROR
            break
        if not reinvoke:
            end_reason = EndReason.TERMINAL
            break
        if control.cancelled:
            end_reason = EndReason.CANCELLED
            break
        if index >= options.max_reinvoke:
            end_reason = EndReason.MAX_REINVOKE
            break
        if time.monotonic() - t0 >= HOOK_CHAIN_TIMEOUT_S:
            end_reason = EndReason.HANDLER_TIMEOUT
            break
        if wait > 0:
            control._skip.clear()
            yield DelayStarted(run.run_id, index, wait, requested, time.monotonic())
            won = await _race(asyncio.sleep(wait), control, control._skip)
            if won is control._cancel or control.cancelled:
                end_reason = EndReason.CANCELLED
                break
        next_context = (result.progress or {}).get("callbackContext")
        if options.step_mode:
            control._advance.clear()
            control._next_context = ...
            yield AwaitingStep(run.run_id, index + 1, next_context)
            paused = time.monotonic()
            won = await _race(control._advance.wait(), control)
            waited = time.monotonic() - paused
            run.user_wait_s += waited
            t0 += waited
            if won is control._cancel or control.cancelled:
                end_reason = EndReason.CANCELLED
                break
            if control._next_context is not ...:
                next_context = control._next_context
        context = next_context if isinstance(next_context, dict) else None
        index += 1

    run.end_reason = end_reason
    run.total_s = time.monotonic() - t0
    if run.steps:
        last = run.steps[-1].result
        run.final_status = hook_status(last.progress) or last.kind.value
    run.verdict = verdict_of(run.steps)
    # an expectation is judged on a verdict the hook reached, not on a run that ended for
    # another reason (an AWS it could not reach, a cap, a cancel)
    expect = event.expect if end_reason is EndReason.TERMINAL else None
    if expect == EXPECT_REFUSED and target.setup_missing and _read_aws(run):
        # an allowed target of an invalid input may be the partial setup's doing: the rule the
        # hook would have found is in what the local AWS did not create (scenarios say SKIP)
        expect = None
    try:
        run.chain_findings = check_hook_chain(
            run.steps,
            lambda_hook=target.lambda_hook,
            expect=expect,
            verdict=run.verdict,
        )
    except Exception as error:  # a bug in cfn-debug's checks: the run still ends, and says so
        run.chain_findings = [internal_error_finding(error, None)]
    yield RunEnded(run=run)


def _read_aws(run: RunRecord) -> bool:
    return any(step.aws_calls for step in run.steps)


def _build_step(
    index: int,
    event: HookEventSpec,
    function_name: str,
    payload: dict[str, Any],
    result: InvokeResult,
    started_at: str,
    shape: Shape,
    limit_s: float,
    wait: float,
    lambda_hook: bool = False,
) -> Step:
    values = tuple(
        v
        for v in (*credential_values(payload), *(_creds(payload)))
        if isinstance(v, str) and len(v) >= 16
    )
    if result.aws_calls:
        crash = result.error_message if result.kind is OutcomeKind.CRASH else None
        result = dataclasses.replace(
            result,
            aws_calls=step_calls(result.aws_calls, logs=result.logs, crash=crash, values=values),
        )
    try:
        findings = check_hook_step(
            result,
            index,
            expects_hook_status=shape is Shape.HANDLER_REQUEST,
            target_type=event.target_type,
            limit_s=limit_s,
            lambda_hook=lambda_hook,
        )
    except Exception as error:  # a bug in cfn-debug's checks: keep the step, blame no one
        findings = [internal_error_finding(error, index)]
    return Step(
        index=index,
        action=event.action,
        function_name=function_name,
        request=redact(payload),
        result=_redact_result(result, values),
        started_at=started_at,
        limit_s=limit_s,
        callback_delay_s=wait,
        findings=findings,
        aws_calls=list(result.aws_calls),
    )


def _creds(payload: dict[str, Any]) -> tuple[str, ...]:
    """The secret values of the JSON text ``callerCredentials`` (CloudFormation's shape)."""
    text = (payload.get("requestData") or {}).get("callerCredentials")
    if not isinstance(text, str):
        return ()
    try:
        data = json.loads(text)
    except ValueError:
        return ()
    return tuple(v for v in data.values() if isinstance(v, str)) if isinstance(data, dict) else ()
