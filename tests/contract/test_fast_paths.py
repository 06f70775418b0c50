"""The contract checks' fast paths against the plain computations they replaced."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cfn_debug.contract.model_checks import _has_null, _nulls
from cfn_debug.contract.requested import drop_patterns, removal_order
from cfn_debug.schema import expand_pattern, join_pointer, resolve_pointer, split_pointer

_leaves = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["", "a", 1.5])
_values = st.recursive(
    _leaves,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["A", "B", "C"]), inner, max_size=3)
    ),
    max_leaves=10,
)
_models = st.dictionaries(st.sampled_from(["A", "B", "C", "D"]), _values, max_size=4)
_patterns = st.sets(
    # patterns as the schema holds them: property names and * (never a concrete index)
    st.sampled_from(["/A", "/B", "/A/*", "/A/B", "/B/*/A", "/C/*/*", "/D/C", "/Z"]),
    max_size=3,
)


def _round_trip_drop(model: dict[str, Any], patterns: set[str]) -> dict[str, Any]:
    """Dropping on a full JSON copy: what requested-properties-returned did before."""
    result = json.loads(json.dumps(model))
    matches = [p for pattern in patterns for p, _ in expand_pattern(result, pattern)]
    for pointer in sorted(matches, key=removal_order, reverse=True):
        tokens = split_pointer(pointer)
        parent = resolve_pointer(result, join_pointer("", *tokens[:-1]))
        if isinstance(parent, dict):
            parent.pop(tokens[-1], None)
        elif isinstance(parent, list) and tokens[-1].isdigit():
            del parent[int(tokens[-1])]
    return result


@settings(max_examples=300, deadline=None)
@given(_models, _patterns)
def test_drop_patterns_copies_only_what_it_changes(
    model: dict[str, Any], patterns: set[str]
) -> None:
    original = copy.deepcopy(model)
    dropped = drop_patterns(model, patterns)
    assert json.dumps(dropped) == json.dumps(_round_trip_drop(original, patterns))
    assert model == original and json.dumps(model) == json.dumps(original)  # untouched


def test_drop_patterns_with_shared_subtrees() -> None:
    shared = {"A": 1, "B": 2}
    model = {"A": [shared, shared], "B": shared}
    dropped = drop_patterns(model, {"/A/*/A"})
    assert dropped == {"A": [{"B": 2}, {"B": 2}], "B": {"A": 1, "B": 2}}
    assert shared == {"A": 1, "B": 2}


@settings(max_examples=300, deadline=None)
@given(_models)
def test_has_null_agrees_with_the_pointer_walk(model: dict[str, Any]) -> None:
    assert _has_null(model) == bool(_nulls(model, ""))


_nan_values = st.recursive(
    _leaves | st.just(float("nan")),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["A", "B", "C"]), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["A", "B", "C", "D"]), _nan_values, max_size=4))
def test_may_have_null_by_member_encodings_agrees_with_the_pointer_walk(
    model: dict[str, Any],
) -> None:
    """The null check reads the exact encodings of the model's members (remembered, shared with
    the diffs): NaN encodes as null too, and is no null property."""
    from cfn_debug.contract.model_checks import _may_have_null
    from cfn_debug.diff import Encodings
    from cfn_debug.text import jsonfast

    ctx = type("Ctx", (), {"encodings": Encodings()})()
    padded = {**model, "Pad": ["x" * 64] * 2000}  # a member past the size whose scan is kept
    for value in (model, padded):
        expected = bool(_nulls(value, ""))
        assert _may_have_null(ctx, value) is expected
        assert _may_have_null(ctx, value) is expected  # asked again: remembered answers
    assert _may_have_null(type("Ctx", (), {"encodings": None})(), model) is bool(_nulls(model, ""))
    assert jsonfast.holds(b"[null]" * 20_000, b"null")
