"""The replay engine: one event's action, re-invoked while IN_PROGRESS, as an async stream.

``run_chain`` yields ``records.ChainEvent``s: RunStarted; per invocation InvocationStarted and
StepCompleted; DelayStarted while it honours callbackDelaySeconds; AwaitingStep in step mode; and
RunEnded with the complete RunRecord. The consumer steers it through a ``ChainControl`` (skip a
delay, cancel, advance in step mode).

``build_step`` turns one invocation's result into a Step (redaction, contract checks, diffs) and
touches no network, so benchmarks can feed it results directly. The exact encodings of the step's
models it makes on the way (``diff.Encodings``, seeded with the request body's, see
``invoke.base.encode_request``) go with the step's StepCompleted to the journal, which writes the
step's line from them: each large model is encoded once per step.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from cfn_debug.chain_end import HandlerClock
from cfn_debug.crash import one_line, write_crash_report
from cfn_debug.diff import Encodings, diff_models
from cfn_debug.events import EventSpec, PayloadDefaults, Shape, build_payload
from cfn_debug.infrastructure import infrastructure_error
from cfn_debug.invoke.base import Invoker, encode_request
from cfn_debug.pylib.refusal import library_refusal
from cfn_debug.records import (
    Action,
    AwaitingStep,
    ChainEvent,
    Change,
    ChangeKind,
    DelayStarted,
    EndReason,
    Finding,
    InvocationStarted,
    InvokeResult,
    Level,
    OutcomeKind,
    RunEnded,
    RunRecord,
    RunStarted,
    Step,
    StepCompleted,
)
from cfn_debug.step_calls import step_calls
from cfn_debug.text.redact import (
    credential_values,
    redact_large,
    redact_lines,
    redact_text,
)
from cfn_debug.text.samejson import same_json

if TYPE_CHECKING:
    from cfn_debug.schema import ResourceSchema

#: The handler timeout of a chain run without a schema: the schema's default timeoutInMinutes
#: (120), so a handler's callbackDelaySeconds of 10^9 cannot hold a chain for 31 years.
DEFAULT_HANDLER_TIMEOUT_S = 120 * 60.0
#: "Keep the returned callbackContext" (ChainControl.advance without an edited one).
_KEEP: Any = ...


@dataclass
class ChainOptions:
    max_reinvoke: int = 100  # re-invocations after the first invocation
    max_delay_s: float | None = None  # cap on each callbackDelaySeconds wait
    step_mode: bool = False  # wait for ChainControl.advance() before every re-invocation
    #: Workspace.run: READ the resource after a CREATE/UPDATE SUCCESS (cfn_debug.readback)
    read_back: bool = True


class ChainControl:
    """How a consumer steers a running chain. Call it from the loop the chain runs in."""

    def __init__(self) -> None:
        self._cancel = asyncio.Event()
        self._skip = asyncio.Event()
        self._advance = asyncio.Event()
        self._next_context: Any = _KEEP

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def skip_delay(self) -> None:
        """End the current callbackDelaySeconds wait now."""
        self._skip.set()

    def cancel(self) -> None:
        """Stop the chain: an in-flight invocation or delay is abandoned at once."""
        self._cancel.set()

    def advance(self, callback_context: dict[str, Any] | None = _KEEP) -> None:
        """Step mode: go on, with ``callback_context`` instead of the returned one if given."""
        self._next_context = callback_context
        self._advance.set()


def _now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def new_run(event: Any, action: Action, function_name: str, endpoint: str) -> RunRecord:
    """The record a chain starts with: a fresh run id, the event's name and path, now."""
    return RunRecord(
        run_id=uuid.uuid4().hex[:12],
        event_name=event.name,
        event_path=str(event.path) if event.path is not None else None,
        action=action,
        function_name=function_name,
        endpoint=endpoint,
        started_at=_now_iso(),
    )


def _returned_model(result: InvokeResult) -> dict[str, Any] | None:
    if result.progress is None:
        return None
    model = result.progress.get("resourceModel")
    return model if isinstance(model, dict) else None


def _checks() -> tuple[Any, Any, Any]:
    # lazy: the contract checks (~30 ms of imports) are first needed after the first answer
    from cfn_debug.contract import StepContext, check_chain, check_step

    return StepContext, check_step, check_chain


def _redact_result(
    result: InvokeResult,
    values: tuple[str, ...] = (),
    encode: Callable[[Any], bytes | None] | None = None,
) -> InvokeResult:
    """The result with credentials scrubbed from its text (logs, messages, stack, body).

    ``values`` are the credentials the request carried: a handler that prints one alone (no key
    beside it for the patterns to recognise) is caught by value. ``encode``: see redact_large.
    """
    progress = (
        redact_large(result.progress, split_depth=2, encode=encode, scan_min=0)
        if result.progress is not None
        else None
    )
    if values and progress is not None and isinstance(progress.get("message"), str):
        progress = {**progress, "message": redact_text(progress["message"], values)}
    return dataclasses.replace(
        result,
        progress=progress,
        body_excerpt=redact_text(result.body_excerpt, values),
        error_message=redact_text(result.error_message, values) if result.error_message else None,
        stack_trace=redact_lines(result.stack_trace, values),
        logs=redact_lines(result.logs, values),
    )


def build_step(
    *,
    index: int,
    action: Action,
    function_name: str,
    request: dict[str, Any],
    result: InvokeResult,
    started_at: str,
    schema: ResourceSchema | None,
    desired: dict[str, Any] | None,
    previous: dict[str, Any] | None,
    original_desired: dict[str, Any] | None,
    previous_steps: Sequence[Step],
    callback_delay_s: float = 0.0,
    encodings: Encodings | None = None,
) -> Step:
    """One invocation as a Step: redacted request and result, findings and model diffs.

    ``encodings``: the memo of this step's exact encodings its secret scan, checks and diffs
    share (:func:`_invoke` makes it, seeded with the request body's); the caller hands it on
    with the step's StepCompleted, for its journal line. A fresh one when not given.

    An answer nested too deep to walk (redaction, checks and diffs recurse) becomes a
    NOT_PROGRESS_EVENT step saying so, instead of a RecursionError that would end the session.
    """
    memo = encodings if encodings is not None else Encodings()

    # the attempts differ only in the answer, request and models; the rest is this step's
    def attempt(
        result: InvokeResult,
        request: dict[str, Any],
        desired: dict[str, Any] | None,
        previous: dict[str, Any] | None,
        original_desired: dict[str, Any] | None,
    ) -> Step:
        step_context, check_step, _ = _checks()
        # one encoding per large model (memo) for this step's three diffs (request, previous,
        # requested) and its journal line (the same model objects, unchanged since); those of
        # the request body's large members were made as it was sent. Redacted first: the
        # models' members are encoded once for the secret scan and the diffs, and the scan's
        # single pass over each also tells whether it holds null, which the checks and diffs
        # would otherwise search it for (scan_min 0: a part found clean by a scan of its
        # encoding is not walked)
        redacted_request = redact_large(request, split_depth=3, encode=memo.of, scan_min=0)
        redacted_result = _redact_result(result, credential_values(request), memo.of)
        findings: list[Finding] = []
        diff_request: list[Change] = []
        diff_previous: list[Change] = []
        try:
            findings = list(
                check_step(
                    step_context(
                        schema=schema,
                        action=action,
                        index=index,
                        desired=desired,
                        previous=previous,
                        original_desired=original_desired,
                        result=result,
                        previous_steps=list(previous_steps),
                        encodings=memo,
                    )
                )
            )
            model = _returned_model(result)
            if model is not None:
                if original_desired is not None:
                    diff_request = list(
                        diff_models(original_desired, model, schema, encodings=memo)
                    )
                    if action is Action.READ:  # its request is the identifier: all else "added"
                        diff_request = [c for c in diff_request if c.kind is not ChangeKind.ADDED]
                before = _returned_model(previous_steps[-1].result) if previous_steps else None
                if before is not None:
                    diff_previous = list(diff_models(before, model, schema, encodings=memo))
        except RecursionError:
            raise  # too deep: handled below by recording the answer as such
        except Exception as error:  # a bug in the checks: keep the step, say so, blame no one
            findings.append(internal_error_finding(error, index))
        if findings and _refused(result):
            # the library refused the request: the handler never saw it, so nothing is the
            # handler's; what the schema says of the input stays (which field is invalid)
            findings = [f for f in findings if f.rule_id in _INPUT_RULES]
        return Step(
            index=index,
            action=action,
            function_name=function_name,
            request=redacted_request,
            result=redacted_result,
            started_at=started_at,
            limit_s=action.limit_s,
            callback_delay_s=callback_delay_s,
            findings=findings,
            diff_request=diff_request,
            diff_previous=diff_previous,
            aws_calls=list(result.aws_calls),
        )

    if result.aws_calls:  # redacted, and the call that raised marked, before the checks cite it
        crash = (
            ": ".join(p for p in (result.error_type, result.error_message) if p)
            if result.kind is OutcomeKind.CRASH
            else None
        )
        calls = step_calls(
            result.aws_calls, logs=result.logs, crash=crash, values=credential_values(request)
        )
        result = dataclasses.replace(result, aws_calls=calls)
    try:
        return attempt(result, request, desired, previous, original_desired)
    except RecursionError:
        pass
    flat = too_deep(result)
    try:
        return attempt(flat, request, desired, previous, original_desired)
    except RecursionError:  # the request itself (the user's event) is too deep to walk
        return attempt(flat, _TOO_DEEP_REQUEST, None, None, None)


#: The rule id of a finding that says cfn-debug itself failed (never the handler's fault).
INTERNAL_ERROR_RULE = "cfn-debug-internal-error"


def internal_error_finding(error: BaseException, index: int | None) -> Finding:
    """A finding about cfn-debug, not the handler: its checks raised ``error`` on this step. It is
    SHOULD-level (never a MUST, which would blame the handler and exit 1); `run` exits 2 for it."""
    report = write_crash_report(error)
    where = f"; traceback in {report}" if report is not None else ""
    return Finding(
        INTERNAL_ERROR_RULE,
        Level.SHOULD,
        "cfn-debug could not check this step (a bug in cfn-debug, not a finding on the "
        f"handler): {one_line(f'{type(error).__name__}: {error}')}{where}",
        None,
        index,
    )


#: The findings on the request itself (the user's input), kept when the library refused it.
_INPUT_RULES = frozenset({"input-valid"})


def _refused(result: InvokeResult) -> bool:
    """Whether cloudformation-cli-python-lib refused the request before the handler ran."""
    return library_refusal(result.progress, result.logs) is not None


_TOO_DEEP_REQUEST = {"note": "the request is nested too deep to record"}


def too_deep(result: InvokeResult) -> InvokeResult:
    """``result`` as a NOT_PROGRESS_EVENT that says its JSON is nested too deep to inspect."""
    return dataclasses.replace(
        result,
        kind=OutcomeKind.NOT_PROGRESS_EVENT,
        progress=None,
        error_message="the answer is JSON nested too deep to inspect (deeper than about "
        f"{sys.getrecursionlimit() // 2} levels): a ProgressEvent's models are shallow objects",
        body_excerpt="",
    )


async def _race(awaitable: Any, control: ChainControl, *extra: asyncio.Event) -> Any:
    """Await ``awaitable`` unless the chain is cancelled (or an ``extra`` event is set) first.

    Returns the awaitable's result, or the event that won.
    """
    task = asyncio.ensure_future(awaitable)
    waiters = {asyncio.ensure_future(e.wait()): e for e in (control._cancel, *extra)}
    try:
        done, _ = await asyncio.wait({task, *waiters}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
        if not task.done():
            task.cancel()
    if task in done and not control.cancelled:
        return task.result()
    for waiter, event in waiters.items():
        if waiter in done:
            return event
    return control._cancel


async def _invoke(
    invoker: Invoker, function_name: str, payload: dict[str, Any]
) -> tuple[InvokeResult, Encodings]:
    """Send ``payload`` (encoded: ``encode_request``); the result, and the memo of the step's
    encodings (for build_step) seeded with those the body was made of."""
    started = time.perf_counter()
    try:
        body, members = encode_request(payload)
        return await invoker.invoke(function_name, body), Encodings(members)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # an invoker bug must end the run with a reason, not a traceback
        failed = InvokeResult(
            OutcomeKind.HTTP_ERROR,
            duration_s=time.perf_counter() - started,
            error_type=type(exc).__name__,
            error_message=f"the invoker failed: {exc}",
        )
        return failed, Encodings()


def _share_repeated_context(result: InvokeResult, sent: Any) -> InvokeResult:
    """The result with a returned callbackContext that is the same JSON as the one sent (equal
    encodings: see samejson; ``==`` would take 1.0 for 1) replaced by the sent object itself: a
    5 MB context replayed 100 times is then held once, not 100 times."""
    progress = result.progress
    if not isinstance(sent, dict) or not sent or not isinstance(progress, dict):
        return result
    returned = progress.get("callbackContext")
    if returned is sent or not isinstance(returned, dict) or len(returned) != len(sent):
        return result
    if same_json(returned, sent):
        progress["callbackContext"] = sent  # the parsed answer is ours alone: safe to mutate
    return result


def _delay_of(result: InvokeResult) -> float:
    value = result.progress.get("callbackDelaySeconds") if result.progress else None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return 0.0
    return max(0.0, float(value))


async def run_chain(
    invoker: Invoker,
    event: EventSpec,
    *,
    function_name: str,
    shape: Shape,
    schema: ResourceSchema | None,
    options: ChainOptions,
    control: ChainControl | None = None,
    endpoint_label: str = "",
    defaults: PayloadDefaults | None = None,
) -> AsyncIterator[ChainEvent]:
    """Run ``event`` as a chain against ``function_name``; see the module docstring."""
    control = control or ChainControl()
    norm = event.normalized
    action = norm.action
    run = new_run(event, action, function_name, endpoint_label or getattr(invoker, "label", ""))
    yield RunStarted(run=dataclasses.replace(run, steps=[]))

    token = norm.client_request_token or str(uuid.uuid4())
    desired = norm.desired
    context = norm.callback_context
    chain_timeout = (
        schema.handler_timeout_s(action) if schema is not None else DEFAULT_HANDLER_TIMEOUT_S
    )
    t0 = time.monotonic()
    clock = HandlerClock()
    end_reason: EndReason | None = None
    index = 0
    while True:
        payload = build_payload(
            norm,
            shape,
            defaults=defaults,
            desired=desired,
            callback_context=context,
            client_request_token=token,
        )
        started_at = _now_iso()
        yield InvocationStarted(run.run_id, index, action, action.limit_s, time.monotonic())
        outcome = await _race(_invoke(invoker, function_name, payload), control)
        if not isinstance(outcome, tuple):
            end_reason = EndReason.CANCELLED
            break
        result, encodings = outcome
        result = _share_repeated_context(result, context)
        if result.stopped_s:
            # Stopped in a debugger: not the handler's time (nor against timeoutInMinutes).
            run.debugger_s += result.stopped_s
            t0 += result.stopped_s

        reinvoke = result.kind is OutcomeKind.PROGRESS and result.status == "IN_PROGRESS"
        requested = _delay_of(result) if reinvoke else 0.0
        wait = requested if options.max_delay_s is None else min(requested, options.max_delay_s)
        if chain_timeout is not None:
            wait = min(wait, chain_timeout)  # announce no wait longer than the chain may last
        step = build_step(
            index=index,
            action=action,
            function_name=function_name,
            request=payload,
            result=result,
            started_at=started_at,
            schema=schema,
            desired=desired,
            previous=norm.previous,
            original_desired=norm.desired,
            previous_steps=run.steps,
            callback_delay_s=wait,
            encodings=encodings,
        )
        if result.debugger_quit:  # the user ended it from the debugger: no finding on it
            step.findings = []
        run.steps.append(step)
        if step.result.kind is not result.kind:  # too deep to inspect: nothing to replay
            result, reinvoke = step.result, False
        # the encodings go with the event (its journal line), not the step the run keeps
        yield StepCompleted(run.run_id, step, encodings)
        del encodings, outcome

        if result.debugger_quit:
            end_reason = EndReason.CANCELLED
            break

        if result.kind in (OutcomeKind.UNREACHABLE, OutcomeKind.HTTP_ERROR):
            end_reason = EndReason.ERROR
            break
        if infrastructure_error(result) is not None:  # not the handler's answer: exit 2
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
        if chain_timeout is not None and time.monotonic() - t0 >= chain_timeout:
            end_reason = EndReason.HANDLER_TIMEOUT
            break

        if wait > 0:
            if chain_timeout is not None:
                wait = min(wait, max(0.0, chain_timeout - (time.monotonic() - t0)))
            control._skip.clear()
            delay_started = time.monotonic()
            yield DelayStarted(run.run_id, index, wait, requested, delay_started)
            won = await _race(asyncio.sleep(wait), control, control._skip)
            if won is control._skip:  # the step records what was waited, not what was announced
                step.callback_delay_s = min(wait, time.monotonic() - delay_started)
            if won is control._cancel or control.cancelled:
                end_reason = EndReason.CANCELLED
                break
            if chain_timeout is not None and time.monotonic() - t0 >= chain_timeout:
                end_reason = EndReason.HANDLER_TIMEOUT
                break
        # CloudFormation's clock counts every delay asked for, waited here or not (--max-delay)
        if chain_timeout is not None and clock.of(run.steps) >= chain_timeout:
            end_reason = EndReason.HANDLER_TIMEOUT
            break

        progress = result.progress or {}
        next_context = progress.get("callbackContext")
        if options.step_mode:
            control._advance.clear()
            control._next_context = _KEEP
            yield AwaitingStep(run.run_id, index + 1, next_context)
            paused = time.monotonic()
            won = await _race(control._advance.wait(), control)
            # The contract's clock is the handler's: the user's thinking time is not the
            # chain's (it counts neither in total_s nor against timeoutInMinutes).
            waited_for_user = time.monotonic() - paused
            run.user_wait_s += waited_for_user
            t0 += waited_for_user
            if won is control._cancel or control.cancelled:
                end_reason = EndReason.CANCELLED
                break
            if control._next_context is not _KEEP:
                next_context = control._next_context
        context = next_context  # replayed as returned, as CloudFormation does
        model = _returned_model(result)
        if model is not None:
            desired = model
        index += 1

    total_s = time.monotonic() - t0
    run.end_reason = end_reason
    run.total_s = total_s
    if run.steps:
        last = run.steps[-1].result
        run.final_status = last.status or last.kind.value
    _, _, check_chain = _checks()
    try:
        run.chain_findings = list(check_chain(run.steps, schema, action, end_reason, total_s))
    except Exception as error:  # a bug in the chain checks: the run still ends, and says so
        run.chain_findings = [internal_error_finding(error, None)]
    if run.chain_findings and run.steps and _refused(run.steps[-1].result):
        run.chain_findings = []  # nothing the handler saw: nothing to judge
    yield RunEnded(run=run)
