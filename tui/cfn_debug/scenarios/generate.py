"""Inputs generated from the resource schema, and the search for a failing one, shrunk to a
minimal input.

Hypothesis draws them (scenarios/hypothesis_inputs.py, imported on first use: Hypothesis loads
only when inputs are drawn, not when the scenarios are imported); a fresh primary identifier is
drawn from its pattern alone when it can be (scenarios/pattern_example.py).

:func:`search` runs Hypothesis in a worker thread, because the property it tests is a scenario:
chains on the event loop the caller runs. Each distinct input runs once (results are memoised,
so a handler that answers differently the second time cannot make Hypothesis call the test
flaky), and a budget caps the runs: past it, shrinking stops at the smallest failure so far.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from cfn_debug.contract.input_checks import desired_state_errors
from cfn_debug.scenarios.pattern_example import pattern_example
from cfn_debug.scenarios.subschemas import length_only, plain_subschema
from cfn_debug.schema import ResourceSchema, identifier_model


def _drawing() -> ModuleType:
    """scenarios.hypothesis_inputs: what draws inputs with Hypothesis."""
    # lazy: the scenarios (and so this module) load at start-up; Hypothesis only to draw inputs
    from cfn_debug.scenarios import hypothesis_inputs

    return hypothesis_inputs


def example_create(schema: ResourceSchema) -> dict[str, Any]:
    """One create input (hypothesis_inputs.create_strategy)."""
    result: dict[str, Any] = _drawing().example_create(schema)
    return result


def example_update(schema: ResourceSchema) -> dict[str, Any]:
    """One update input (hypothesis_inputs.update_strategy)."""
    result: dict[str, Any] = _drawing().example_update(schema)
    return result


def fresh_identifier(
    schema: ResourceSchema, pointers: tuple[str, ...] | None = None
) -> dict[str, Any]:
    """A primary identifier generated from the schema: one no resource has (almost surely);
    only its parts at ``pointers`` when given."""
    identifier: dict[str, Any] = {}
    for pointer in schema.primary_identifier if pointers is None else pointers:
        subs = schema.subschemas(pointer)
        node = plain_subschema(schema, subs[0]) if subs else {}
        if _plain_text(node):
            identifier[pointer] = _missing_name(node)
            continue
        drawn = _drawn_part(schema, pointer, node)
        if drawn is not None:
            identifier[pointer] = drawn
            continue
        try:
            identifier[pointer] = _drawing().draw_value(
                node, lambda v, p=pointer: _valid_part(schema, p, v)
            )
        except Exception:  # a subschema hypothesis cannot generate from: a plain unique string
            identifier[pointer] = "cfn-debug-missing-" + secrets.token_hex(6)
    return identifier


def _plain_text(node: dict[str, Any]) -> bool:
    """Whether ``node`` is a string constrained by its length at most, with room for a
    ``cfn-debug-missing-`` name (a service's id the schema says nothing more of)."""
    lengths = length_only(node)
    if lengths is None:
        return False
    low, high = lengths[0], 1_000 if lengths[1] is None else lengths[1]
    return max(low, 30) <= high and low <= _LONGEST_PADDED


#: The longest minLength a ``cfn-debug-missing-`` name is padded to; a longer one is drawn.
_LONGEST_PADDED = 4096


def _missing_name(node: dict[str, Any]) -> str:
    """``cfn-debug-missing-`` and 12 hex digits, padded to the node's minLength: readable in a
    report, printable as every id a service issues is, and naming nothing."""
    name = "cfn-debug-missing-" + secrets.token_hex(6)
    return name + "0" * max(0, node.get("minLength", 0) - len(name))


def _drawn_part(schema: ResourceSchema, pointer: str, node: dict[str, Any]) -> str | None:
    """A string for ``pointer`` drawn from its pattern alone (pattern_example: no Hypothesis),
    when the whole schema accepts one of a few; else None."""
    pattern = node.get("pattern")
    if not isinstance(pattern, str) or node.get("type") not in (None, "string"):
        return None
    for _ in range(10):
        value = pattern_example(pattern)
        if value is None:
            return None
        if _valid_part(schema, pointer, value):
            return value
    return None


# --- the search ---------------------------------------------------------------------------------


@dataclass
class Attempt:
    """One generated input, run: whether it failed and why."""

    model: dict[str, Any]
    failed: bool
    reasons: list[str] = field(default_factory=list)
    payload: Any = None  # what the caller wants to keep (its runs)


@dataclass
class SearchResult:
    attempts: int  # distinct inputs run
    failure: Attempt | None  # the smallest failing input found
    budget_exhausted: bool = False


class _Failed(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def search(
    schema: ResourceSchema,
    try_input: Callable[[dict[str, Any]], Attempt],
    *,
    examples: int,
    budget: int,
    seed: int | None = None,
) -> SearchResult:
    """Run ``try_input`` on up to ``examples`` generated inputs; shrink the first failure.

    Blocking: call it from a worker thread. ``try_input`` is called at most ``budget`` times.
    """
    memo: dict[str, Attempt] = {}
    state = {"exhausted": False}

    def prop(model: dict[str, Any]) -> None:
        key = json.dumps(model, sort_keys=True)
        attempt = memo.get(key)
        if attempt is None:
            if len(memo) >= budget:
                state["exhausted"] = True
                return
            attempt = try_input(model)
            memo[key] = attempt
        if attempt.failed:
            raise _Failed(key)

    try:
        _drawing().run_property(schema, prop, examples=examples, seed=seed)
    except _Failed as failure:
        smallest = _drop_parts(schema, memo[failure.key], memo, try_input, budget, state)
        return SearchResult(len(memo), smallest, state["exhausted"])
    return SearchResult(len(memo), None, state["exhausted"])


def _reason_kinds(attempt: Attempt) -> set[str]:
    return {": ".join(r.split(": ")[:2]) for r in attempt.reasons}


def _drop_parts(
    schema: ResourceSchema,
    failure: Attempt,
    memo: dict[str, Attempt],
    try_input: Callable[[dict[str, Any]], Attempt],
    budget: int,
    state: dict[str, bool],
) -> Attempt:
    """After Hypothesis: leave out one property or array element at a time while the input
    stays valid and still fails the same way. (Hypothesis shrinks the optional keys of a
    fixed_dictionaries poorly: it rarely tries dropping one key and keeping the next.)"""
    kinds = _reason_kinds(failure)
    improved = True
    while improved:
        improved = False
        for candidate in _smaller(failure.model):
            if desired_state_errors(schema, candidate):
                continue
            key = json.dumps(candidate, sort_keys=True)
            attempt = memo.get(key)
            if attempt is None:
                if len(memo) >= budget:
                    state["exhausted"] = True
                    return failure
                attempt = memo[key] = try_input(candidate)
            if attempt.failed and _reason_kinds(attempt) & kinds:
                failure, improved = attempt, True
                break
    return failure


def _smaller(model: Any) -> list[Any]:
    """Every copy of ``model`` with one property or one array element left out (never leaving
    an empty array or object behind, as scenarios/hypothesis_inputs.py never generates one)."""
    out: list[Any] = []
    if isinstance(model, dict):
        for name, value in model.items():
            if len(model) > 1:
                out.append({k: v for k, v in model.items() if k != name})
            out.extend({**model, name: smaller} for smaller in _smaller(value))
    elif isinstance(model, list):
        for index, value in enumerate(model):
            if len(model) > 1:
                out.append(model[:index] + model[index + 1 :])
            out.extend(
                [*model[:index], smaller, *model[index + 1 :]] for smaller in _smaller(value)
            )
    return out


def _valid_part(schema: ResourceSchema, pointer: str, value: Any) -> bool:
    """Whether the whole schema, read as cfn-debug reads it, accepts ``value`` at ``pointer``."""
    errors = schema.input_errors(identifier_model({pointer: value}))
    return not any(p == pointer or p.startswith(pointer + "/") for p, _ in errors)
