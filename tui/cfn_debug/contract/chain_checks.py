"""The chain checks: rules about a whole IN_PROGRESS chain rather than one invocation."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cfn_debug.chain_end import handler_clock_s
from cfn_debug.records import Action, EndReason, Step
from cfn_debug.schema import DEFAULT_TIMEOUT_MINUTES, ResourceSchema


@dataclass(frozen=True)
class ChainContext:
    steps: Sequence[Step]
    schema: ResourceSchema | None
    action: Action
    end_reason: EndReason
    total_s: float


ChainCheck = Callable[[ChainContext], list[tuple[str | None, str]]]


def chain_timeout(ctx: ChainContext) -> list[tuple[str | None, str]]:
    """The chain's total time (invocations and callback delays) within the schema's
    timeoutInMinutes for the action (120 minutes when it declares none): past it, CloudFormation
    stops waiting, so a handler that cannot make it MUST have returned FAILED before. A chain the
    engine stopped for that reason (END_REASON handler_timeout) is the same violation. The delays
    count as the handler asked for them, waited or not (``--max-delay`` simulates them)."""
    limit = (
        ctx.schema.handler_timeout_s(ctx.action)
        if ctx.schema is not None
        else DEFAULT_TIMEOUT_MINUTES * 60.0
    )
    clock_s, delays_s = handler_clock_s(ctx.steps)
    if ctx.end_reason is not EndReason.HANDLER_TIMEOUT and max(ctx.total_s, clock_s) <= limit:
        return []
    if clock_s > ctx.total_s:
        took = (
            f"the chain took {clock_s:.1f} s on CloudFormation's clock ({delays_s:g} s of it the "
            "callbackDelaySeconds the handler asked for, waited or not)"
        )
    else:
        took = f"the chain ran {ctx.total_s:.1f} s"
    return [
        (
            None,
            f"{took} over {len(ctx.steps)} invocation(s) without finishing within the "
            f"handler timeout of {limit / 60:g} min",
        )
    ]


#: rule id -> check, for every chain-scope rule.
CHAIN_CHECKS: dict[str, ChainCheck] = {"chain-timeout": chain_timeout}
