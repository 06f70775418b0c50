"""Inputs generated from the resource schema with hypothesis-jsonschema, and the search for a
failing one, shrunk to a minimal input.

Objects (and arrays of objects) are composed here, property by property, with
``st.fixed_dictionaries`` (required keys always, the others optional, so shrinking drops them);
every other subschema goes to ``hypothesis_jsonschema.from_schema``. (hypothesis-jsonschema
0.23.1 generates objects through a Hypothesis internal that Hypothesis 6.170 no longer has;
composing objects ourselves also keeps readOnly properties out at any depth.)

Empty arrays and empty objects are never generated for a property (it is left out instead):
cloudformation-cli-python-lib turns ``[]`` of objects and ``{}`` into None before a handler sees
them, so no Python handler could return them, and the contract wants no property "that does not
have a value" in a returned model anyway.

:func:`search` runs Hypothesis in a worker thread, because the property it tests is a scenario:
chains on the event loop the caller runs. Each distinct input runs once (results are memoised,
so a handler that answers differently the second time cannot make Hypothesis call the test
flaky), and a budget caps the runs: past it, shrinking stops at the smallest failure so far.
"""

from __future__ import annotations

import json
import re
import secrets
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cfn_debug.locations import state_dir
from cfn_debug.scenarios.pattern_example import pattern_example
from cfn_debug.schema import ResourceSchema, identifier_model, join_pointer
from cfn_debug.schema.ecma_regex import compile_ecma

_MAX_DEPTH = 8


def _keep_out_of_the_project() -> None:
    """Hypothesis keeps its files (.hypothesis/) under cfn-debug's state directory, never in
    the working directory, which is usually the user's project."""
    # lazy: generate is on start-up's path, Hypothesis needed only to generate inputs
    from hypothesis.configuration import set_hypothesis_home_dir

    set_hypothesis_home_dir(state_dir() / "hypothesis")


def _strategy(schema: ResourceSchema, node: Any, pointer: str, depth: int) -> Any:
    # lazy: generate is on start-up's path, Hypothesis needed only to generate inputs
    from hypothesis import strategies as st
    from hypothesis_jsonschema import from_schema  # lazy: as hypothesis above

    node = schema.resolve_ref(node)
    if not isinstance(node, dict) or depth > _MAX_DEPTH:
        return st.just(None) if depth > _MAX_DEPTH else from_schema(True)
    kind = node.get("type")
    props = node.get("properties")
    if kind == "object" or (kind is None and isinstance(props, dict)):
        return _object(schema, node, pointer, depth)
    items = schema.resolve_ref(node.get("items"))
    if (
        kind == "array"
        and isinstance(items, dict)
        and (items.get("type") == "object" or isinstance(items.get("properties"), dict))
    ):
        element = _object(schema, items, join_pointer(pointer, "*"), depth + 1)
        low = max(node.get("minItems", 0), 1 if node.get("maxItems") != 0 else 0)
        high = node.get("maxItems")
        high = min(high, low + 5) if isinstance(high, int) else low + 5
        unique = node.get("uniqueItems") is True
        return st.lists(
            element,
            min_size=low,
            max_size=high,
            unique_by=(lambda v: json.dumps(v, sort_keys=True)) if unique else None,
        )
    plain = _plain(schema, node)
    if kind == "array" and plain.get("maxItems") != 0:
        plain["minItems"] = max(plain.get("minItems", 0), 1)
    top = _top_patterns(plain)
    _python_patterns(plain)
    strategy = from_schema(plain)
    for pattern in top:  # every pattern as ECMA-262 reads it (see _top_patterns)
        strategy = strategy.filter(lambda v, p=pattern: not isinstance(v, str) or p.search(v))
    return strategy


def _top_patterns(plain: dict[str, Any]) -> list[Any]:
    """The top-level ``pattern`` of ``plain`` as ECMA-262 reads it, to filter the generated
    strings with. hypothesis-jsonschema generates and checks with Python's ``re``, which reads
    the same pattern differently: its ``.`` matches ``\\r``, U+2028 and U+2029 (ECMA's does
    not), its ``$`` matches before a final newline, its ``\\d`` and ``\\w`` match non-ASCII
    digits and letters. A string only Python accepts is an input the schema rejects, and sending
    it as a valid input blames a correct handler (input-valid, model-conforms-to-schema)."""
    source = plain.get("pattern")
    return [compile_ecma(source)] if isinstance(source, str) else []


def _python_patterns(plain: dict[str, Any]) -> None:
    """Make every ``pattern`` of ``plain`` one hypothesis-jsonschema (Python's ``re``) generates
    close to what ECMA-262 accepts: ASCII mode (``(?a)``), where ``\\d`` and ``\\w`` are ASCII
    as in ECMA (and ``\\s`` a subset of ECMA's); one Python cannot compile, such as ``\\p{L}``
    or a surrogate-pair range, is taken out. What is left of the difference (``.`` matching
    ``\\r``) is filtered: the top pattern by :func:`_top_patterns`, nested values with the whole
    input by :func:`create_strategy`."""
    stack: list[Any] = [plain]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        source = node.get("pattern")
        if isinstance(source, str):
            for candidate in ("(?a)" + source, source):
                try:
                    re.compile(candidate)
                except (re.error, ValueError, OverflowError):
                    continue
                node["pattern"] = candidate
                break
            else:
                del node["pattern"]
        stack.extend(v for k, v in node.items() if k != "enum")


def _plain(schema: ResourceSchema, node: dict[str, Any]) -> dict[str, Any]:
    """A subschema hypothesis-jsonschema can take alone: its refs inlined, CloudFormation's own
    keywords (insertionOrder, arrayType, ...) left out."""
    drop = {"insertionOrder", "arrayType", "relationshipRef", "description", "$comment"}

    def inline(value: Any, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            return {}
        if isinstance(value, dict):
            value = schema.resolve_ref(value)
            return {k: inline(v, depth + 1) for k, v in value.items() if k not in drop}
        if isinstance(value, list):
            return [inline(v, depth + 1) for v in value]
        return value

    result: dict[str, Any] = inline(node, 0)
    return result


def _object(schema: ResourceSchema, node: dict[str, Any], pointer: str, depth: int) -> Any:
    # lazy: generate is on start-up's path, Hypothesis needed only to generate inputs
    from hypothesis import strategies as st

    props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
    required = [r for r in node.get("required", []) if isinstance(r, str)]
    fixed: dict[str, Any] = {}
    optional: dict[str, Any] = {}
    for name, sub in props.items():
        child = join_pointer(pointer, name)
        if schema.pattern_of(child) in schema.read_only or child in schema.read_only:
            continue
        strategy = _strategy(schema, sub, child, depth + 1)
        (fixed if name in required else optional)[name] = strategy
    strategy = st.fixed_dictionaries(fixed, optional=optional)
    return strategy if depth == 0 or fixed or not optional else strategy.filter(bool)


def create_strategy(schema: ResourceSchema) -> Any:
    """Create inputs: every property but the readOnly ones, the required ones always; only
    inputs the schema accepts as cfn-debug reads it (``input_errors``: ECMA-262 patterns at any
    depth), since each is sent as a valid input and a handler is judged on it."""
    _keep_out_of_the_project()
    strategy = _strategy(schema, schema.raw, "", 0)
    return strategy.filter(lambda model: not schema.input_errors(model))


def update_strategy(schema: ResourceSchema) -> Any:
    """Update inputs: as create, without the createOnly properties (they come from create)."""
    create_only = {p.lstrip("/") for p in schema.create_only if p.count("/") == 1}
    return create_strategy(schema).map(
        lambda m: {k: v for k, v in m.items() if k not in create_only}
    )


def _example(strategy: Any) -> Any:
    # lazy: generate is on start-up's path, Hypothesis needed only to generate inputs
    from hypothesis.errors import NonInteractiveExampleWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonInteractiveExampleWarning)
        return strategy.example()


def example_create(schema: ResourceSchema) -> dict[str, Any]:
    result: dict[str, Any] = _example(create_strategy(schema))
    return result


def example_update(schema: ResourceSchema) -> dict[str, Any]:
    result: dict[str, Any] = _example(update_strategy(schema))
    return result


def fresh_identifier(
    schema: ResourceSchema, pointers: tuple[str, ...] | None = None
) -> dict[str, Any]:
    """A primary identifier generated from the schema: one no resource has (almost surely);
    only its parts at ``pointers`` when given."""
    identifier: dict[str, Any] = {}
    for pointer in schema.primary_identifier if pointers is None else pointers:
        subs = schema.subschemas(pointer)
        node = _plain(schema, subs[0]) if subs else {}
        unconstrained = set(node) <= {"type"} and node.get("type") in (None, "string")
        if unconstrained:
            identifier[pointer] = "cfn-debug-missing-" + secrets.token_hex(6)
            continue
        drawn = _drawn_part(schema, pointer, node)
        if drawn is not None:
            identifier[pointer] = drawn
            continue
        try:
            # lazy: generate is on start-up's path, Hypothesis needed only to generate inputs
            from hypothesis_jsonschema import from_schema

            top = _top_patterns(node)
            _python_patterns(node)
            strategy = from_schema(node)
            for pattern in top:
                strategy = strategy.filter(
                    lambda v, p=pattern: not isinstance(v, str) or p.search(v)
                )
            strategy = strategy.filter(lambda v, p=pointer: _valid_part(schema, p, v))
            identifier[pointer] = _example(strategy)
        except Exception:  # a subschema hypothesis cannot generate from: a plain unique string
            identifier[pointer] = "cfn-debug-missing-" + secrets.token_hex(6)
    return identifier


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
    # lazy: generate is on start-up's path, Hypothesis needed only to generate inputs
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as with_seed  # lazy: as the line above

    _keep_out_of_the_project()

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

    test = settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
    )(given(create_strategy(schema))(prop))
    if seed is not None:
        test = with_seed(seed)(test)
    try:
        test()
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
            if schema.input_errors(candidate):
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
    an empty array or object behind, see the module docstring)."""
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
