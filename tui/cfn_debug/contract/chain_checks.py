"""The chain checks: rules about a whole IN_PROGRESS chain rather than one invocation."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

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
    engine stopped for that reason (END_REASON handler_timeout) is the same violation."""
    limit = (
        ctx.schema.handler_timeout_s(ctx.action)
        if ctx.schema is not None
        else DEFAULT_TIMEOUT_MINUTES * 60.0
    )
    if ctx.end_reason is EndReason.HANDLER_TIMEOUT or ctx.total_s > limit:
        return [
            (
                None,
                f"the chain ran {ctx.total_s:.1f} s over {len(ctx.steps)} invocation(s) without "
                f"finishing within the handler timeout of {limit / 60:g} min",
            )
        ]
    return []


#: rule id -> check, for every chain-scope rule.
CHAIN_CHECKS: dict[str, ChainCheck] = {"chain-timeout": chain_timeout}
