"""Inputs drawn from the resource schema with Hypothesis and hypothesis-jsonschema.

Objects (and arrays of objects) are composed here, property by property, with
``st.fixed_dictionaries`` (required keys always, the others optional, so shrinking drops them);
every other subschema goes to ``hypothesis_jsonschema.from_schema``. (hypothesis-jsonschema
0.23.1 generates objects through a Hypothesis internal that Hypothesis 6.170 no longer has;
composing objects ourselves also keeps readOnly properties out at any depth.)

Empty arrays and empty objects are never generated for a property (it is left out instead):
cloudformation-cli-python-lib turns ``[]`` of objects and ``{}`` into None before a handler sees
them, so no Python handler could return them, and the contract wants no property "that does not
have a value" in a returned model anyway.

scenarios/generate.py imports this module on first use, so that Hypothesis loads only when
inputs are drawn; it holds the search around :func:`run_property`.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as with_seed
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.errors import NonInteractiveExampleWarning
from hypothesis_jsonschema import from_schema

from cfn_debug.contract.input_checks import desired_state_errors
from cfn_debug.locations import state_dir
from cfn_debug.scenarios.subschemas import (
    MAX_DEPTH,
    length_only,
    plain_subschema,
    python_patterns,
    top_patterns,
)
from cfn_debug.schema import ResourceSchema, join_pointer


def _keep_out_of_the_project() -> None:
    """Hypothesis keeps its files (.hypothesis/) under cfn-debug's state directory, never in
    the working directory, which is usually the user's project."""
    set_hypothesis_home_dir(state_dir() / "hypothesis")


def _strategy(schema: ResourceSchema, node: Any, pointer: str, depth: int) -> Any:
    node = schema.resolve_ref(node)
    if not isinstance(node, dict) or depth > MAX_DEPTH:
        return st.just(None) if depth > MAX_DEPTH else from_schema(True)
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
    plain = plain_subschema(schema, node)
    if kind == "array" and plain.get("maxItems") != 0:
        plain["minItems"] = max(plain.get("minItems", 0), 1)
    return _from_plain(plain)


#: The characters of a string the schema constrains by its length alone, as `cfn test` draws
#: them (rpdk's resource_generator): no control characters, no surrogates, no NUL. A value with
#: a control character is one no template carries, and a handler may refuse it however it likes.
_TEXT = st.characters(min_codepoint=1, blacklist_categories=("Cc", "Cs"))


def _from_plain(plain: dict[str, Any]) -> Any:
    """hypothesis-jsonschema's strategy for ``plain`` (its patterns made Python's here), its
    strings filtered with the top pattern as ECMA-262 reads it (see subschemas.top_patterns);
    a string with no other constraint than its length is drawn from ``_TEXT``."""
    lengths = length_only(plain)
    if plain.get("type") == "string" and lengths is not None:
        return st.text(alphabet=_TEXT, min_size=lengths[0], max_size=lengths[1])
    top = top_patterns(plain)
    python_patterns(plain)
    strategy = from_schema(plain)
    for pattern in top:
        strategy = strategy.filter(lambda v, p=pattern: not isinstance(v, str) or p.search(v))
    return strategy


def _object(schema: ResourceSchema, node: dict[str, Any], pointer: str, depth: int) -> Any:
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
    inputs the schema accepts as cfn-debug reads it (``desired_state_errors``, as input-valid
    judges a request: ECMA-262 patterns at any depth, a readOnly property listed as required
    not asked for), since each is sent as a valid input and a handler is judged on it."""
    _keep_out_of_the_project()
    strategy = _strategy(schema, schema.raw, "", 0)
    return strategy.filter(lambda model: not desired_state_errors(schema, model))


def update_strategy(schema: ResourceSchema) -> Any:
    """Update inputs: as create, without the createOnly properties (they come from create)."""
    create_only = {p.lstrip("/") for p in schema.create_only if p.count("/") == 1}
    return create_strategy(schema).map(
        lambda m: {k: v for k, v in m.items() if k not in create_only}
    )


def example(strategy: Any) -> Any:
    """One value of ``strategy``, outside a Hypothesis test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonInteractiveExampleWarning)
        return strategy.example()


def example_create(schema: ResourceSchema) -> dict[str, Any]:
    result: dict[str, Any] = example(create_strategy(schema))
    return result


def example_update(schema: ResourceSchema) -> dict[str, Any]:
    result: dict[str, Any] = example(update_strategy(schema))
    return result


def draw_value(plain: dict[str, Any], accept: Callable[[Any], bool]) -> Any:
    """One value the subschema ``plain`` (a plain_subschema, its patterns made Python's here)
    generates that ``accept`` takes; raises when Hypothesis cannot generate one."""
    return example(_from_plain(plain).filter(accept))


def run_property(
    schema: ResourceSchema,
    prop: Callable[[dict[str, Any]], None],
    *,
    examples: int,
    seed: int | None = None,
) -> None:
    """Test ``prop`` on up to ``examples`` create inputs, shrinking the first it raises on:
    its exception (from the smallest failing input) propagates."""
    _keep_out_of_the_project()
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
    test()
