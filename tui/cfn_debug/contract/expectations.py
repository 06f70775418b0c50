"""Events that are meant to fail: ``inputs_N_invalid.json`` of a project's ``inputs/`` (or
``example_inputs/``) holds a model the schema rejects, and `cfn test` sends it to see the
handler refuse it. For such an event FAILED InvalidRequest is the pass: the input-valid finding
is its premise and requested-properties-returned does not apply (both dropped), a request the
library refused before the handler ran is not judged, nor is a chain that ended on an error
(a function the runtime cannot load, a call the local AWS cannot serve: the handler gave no
answer of its own) or was stopped, nor FAILED AlreadyExists for a resource this session created
under the same primary identifier and did not delete (`run` sends inputs_N_invalid after
inputs_N_create, and a handler that looks for the resource before it checks the input is right to
say it exists). Any other answer is an ``invalid-input-rejected`` SHOULD finding on the chain's
last step.

:func:`expected_failure` marks the event (consumers may show it: "expected to fail").
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

from cfn_debug.contract.rules import rule
from cfn_debug.pylib.refusal import library_refusal
from cfn_debug.records import (
    ChainEvent,
    EndReason,
    Finding,
    Level,
    OutcomeKind,
    RunEnded,
    Step,
    StepCompleted,
)

_INVALID_INPUT = re.compile(r"^inputs_\d+_invalid\.json$")
_INPUT_DIRS = ("inputs", "example_inputs")
#: findings whose premise an invalid-on-purpose input breaks: the input is invalid (that is the
#: point), and what a handler returns for it need not echo what it was asked
_PREMISE = frozenset({"input-valid", "requested-properties-returned"})
#: chains that end with no answer of the handler's own to judge: the endpoint or the local AWS
#: could not serve the step (infrastructure, never a finding), or the consumer stopped it
_UNJUDGED = frozenset({EndReason.ERROR, EndReason.CANCELLED})
#: the answer an expected-to-fail event should get
INVALID_REQUEST = "InvalidRequest"
#: the answer that is right for an input whose identifier names a resource that exists
ALREADY_EXISTS = "AlreadyExists"


def expected_failure(event: Any) -> str | None:
    """``"InvalidRequest"`` for an inputs_N_invalid event (its pass is FAILED with that error
    code), None for every other event."""
    path = getattr(event, "path", None)
    if path is None or not _INVALID_INPUT.match(path.name):
        return None
    return INVALID_REQUEST if path.parent.name in _INPUT_DIRS else None


def invalid_input_rejected(step: Step, code: str, existing: str | None = None) -> Finding | None:
    """An event that is invalid on purpose (inputs_N_invalid) ends FAILED with errorCode
    InvalidRequest: the handler refused what the schema rejects. Any other last answer is a
    SHOULD finding on the chain's last step; the input-valid finding of its first step is the
    event's premise and is not reported. ``existing`` names the earlier create of this session
    whose resource has the input's primary identifier: FAILED AlreadyExists is then a right
    answer, not judged."""

    progress = step.result.progress if step.result.kind is OutcomeKind.PROGRESS else None

    if library_refusal(progress, step.result.logs) is not None:
        return None  # the library refused it before the handler ran: nothing to judge
    status = progress.get("status") if isinstance(progress, dict) else None
    got = progress.get("errorCode") if isinstance(progress, dict) else None
    if status == "FAILED" and got == code:
        return None
    if status == "FAILED" and got == ALREADY_EXISTS and existing is not None:
        return None  # the resource exists (made by ``existing``): a correct handler says so
    answer = f"{status or step.result.kind.value}" + (f" {got}" if got else "")
    entry = rule("invalid-input-rejected")
    return Finding(
        entry.id,
        Level(entry.level),
        f"this input is invalid on purpose (an inputs_N_invalid file): the handler answered "
        f"{answer}, where FAILED {code} says it refused it",
        "/status" if status != "FAILED" else "/errorCode",
        step.index,
    )


#: rule id -> check, for the expectation rules (scope "expectation")
EXPECTATION_CHECKS = {"invalid-input-rejected": invalid_input_rejected}


async def with_expectation(
    stream: AsyncIterator[ChainEvent], code: str, existing: str | None = None
) -> AsyncIterator[ChainEvent]:
    """``stream`` judged as an expected-to-fail chain (see the module docstring); each step is
    delivered once the next event shows whether it was the last. ``existing``: as for
    :func:`invalid_input_rejected`."""
    held: StepCompleted | None = None
    async for item in stream:
        if isinstance(item, StepCompleted):
            item.step.findings = [f for f in item.step.findings if f.rule_id not in _PREMISE]
            if held is not None:
                yield held
            held = item
            continue
        if held is not None and isinstance(item, RunEnded) and item.run.end_reason not in _UNJUDGED:
            found = invalid_input_rejected(held.step, code, existing)
            if found is not None:
                held.step.findings.append(found)
        if held is not None:
            yield held
            held = None
        yield item
    if held is not None:
        yield held
