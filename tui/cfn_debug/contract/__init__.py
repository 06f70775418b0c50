"""The handler contract: the rule catalogue and the checks that apply it to steps and chains.

``check_step`` runs after every invocation, ``check_chain`` once a chain has ended. Both return
:class:`cfn_debug.records.Finding` objects whose ``rule_id`` is a catalogue id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cfn_debug.contract.chain_checks import CHAIN_CHECKS, ChainContext
from cfn_debug.contract.checks import STEP_CHECKS, unknown_fields
from cfn_debug.contract.context import StepContext
from cfn_debug.contract.expectations import EXPECTATION_CHECKS
from cfn_debug.contract.model_checks import without_echoes
from cfn_debug.contract.read_back import READ_BACK_CHECKS
from cfn_debug.contract.rule import CHAIN, STEP, Rule
from cfn_debug.contract.rules import CATALOGUE, rule
from cfn_debug.records import Action, EndReason, Finding, Level, Step
from cfn_debug.schema import ResourceSchema
from cfn_debug.text.tracebacks import FoundTraceback, last_traceback

__all__ = [
    "CATALOGUE",
    "CHAIN",
    "STEP",
    "FoundTraceback",
    "Rule",
    "StepContext",
    "check_chain",
    "check_step",
    "explain",
    "last_traceback",
    "rule",
]


def check_step(ctx: StepContext) -> list[Finding]:
    """Every step-scope rule that applies to the action, on one invocation: one finding per
    cause (a model value that only echoes the invalid input is left to input-valid), the
    request's own problems (the input assumptions, a root cause) first."""
    findings: list[Finding] = []
    for entry in CATALOGUE:
        if entry.scope != STEP or ctx.action not in entry.actions:
            continue
        for pointer, message in STEP_CHECKS[entry.id](ctx):
            findings.append(Finding(entry.id, entry.level, message, pointer, ctx.index))
        if entry.id == "status-valid":
            for pointer, message in unknown_fields(ctx):
                findings.append(Finding(entry.id, Level.SHOULD, message, pointer, ctx.index))
    if findings:
        findings = without_echoes(ctx, findings)
        findings.sort(key=lambda f: 0 if f.rule_id.startswith("input-") else 1)
    return findings


def check_chain(
    steps: Sequence[Step],
    schema: ResourceSchema | None,
    action: Action,
    end_reason: EndReason,
    total_s: float,
) -> list[Finding]:
    """Every chain-scope rule that applies to the action; the findings have ``step=None``."""
    ctx = ChainContext(steps, schema, action, end_reason, total_s)
    findings: list[Finding] = []
    for entry in CATALOGUE:
        if entry.scope != CHAIN or action not in entry.actions:
            continue
        for pointer, message in CHAIN_CHECKS[entry.id](ctx):
            findings.append(Finding(entry.id, entry.level, message, pointer, None))
    return findings


def explain(rule_id: str) -> str:
    """How cfn-debug reads the contract for this rule: its check's docstring."""
    rule(rule_id)

    check: Any = (
        STEP_CHECKS.get(rule_id)
        or CHAIN_CHECKS.get(rule_id)
        or READ_BACK_CHECKS.get(rule_id)
        or EXPECTATION_CHECKS.get(rule_id)
    )
    doc = (check.__doc__ or "") if check is not None else ""
    return " ".join(doc.split())
