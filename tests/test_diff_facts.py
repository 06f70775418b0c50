"""The facts of long arrays (diff.ArrayFacts) and what they let a step skip give exactly what the
plain paths give: the elements' encodings cut out of their array's, the unpaired sets composed
through a third array kept from earlier steps, the booleans told from such a pair, and the shape
check validating only the elements no valid array holds.

Each property runs a chain of steps the way build_step does (one Encodings per step: the shape
check, then the diff against the request, then against the previous model), and compares every
answer with the same call made with nothing kept across steps and the elements fingerprinted by
marshal (the plain path), and the shape check with jsonschema alone."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from hypothesis import example, given, settings
from hypothesis import strategies as st

from cfn_debug import diff
from cfn_debug.diff import Encodings, diff_models
from cfn_debug.schema import ResourceSchema
from cfn_debug.text.jsonfast import exact

SCHEMA = ResourceSchema(
    {
        "typeName": "Test::Facts::Chain",
        "description": "insertionOrder false arrays validated element by element",
        "additionalProperties": False,
        "primaryIdentifier": ["/properties/Name"],
        "properties": {
            "Name": {"type": "string"},
            "Items": {
                "type": "array",
                "insertionOrder": False,
                "items": {
                    "type": "object",
                    "properties": {
                        "Key": {"type": "string", "maxLength": 12},
                        "Value": {"type": "string"},
                        "N": {"type": "integer", "minimum": 0},
                        "Sub": {"type": "array", "items": {"type": "object"}},
                    },
                    "additionalProperties": False,
                },
            },
            "Labels": {
                "type": "array",
                "insertionOrder": False,
                "items": {"type": "string", "maxLength": 12},
            },
        },
    }
)

_strings = st.sampled_from(["", "a", "},{", "{", "}", '"', "\\", "é", "true", "null", "x},{y"])
_leaves = st.one_of(_strings, st.integers(-3, 3), st.sampled_from([1.0, 0.5, -0.0, True, False]))
_element = st.dictionaries(
    st.sampled_from(["Key", "Value", "N", "Sub"]),
    _leaves | st.lists(st.dictionaries(_strings, _leaves, max_size=2), max_size=2),
    max_size=3,
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(_element | _leaves, min_size=2, max_size=12))
@example([{"a": "},{},{"}, 1, {}])  # as many },{ as borders: only the types tell
@example([{}, {}])
@example([{"a": [{"b": 1}, {"c": 2}]}, {}])
def test_pieces_are_the_elements_own_encodings(values: list[Any]) -> None:
    raw = exact(values)
    assert raw is not None
    pieces = diff.encodings._pieces(values, raw)
    if all(type(v) is dict for v in values):
        assert pieces is not None or b"},{" in b"".join(exact(v) or b"" for v in values)
    if pieces is not None:
        assert all(type(v) is dict for v in values)
        assert pieces == [(exact(v) or b"")[1:-1] for v in values]


@contextmanager
def _plain() -> Iterator[None]:
    """Nothing kept across steps, and marshal's fingerprints only (the path before the facts)."""
    with (
        mock.patch.object(diff.encodings, "_RECENT", []),
        mock.patch.object(diff.encodings, "_RECENT_PAIRS", {}),
        mock.patch.object(diff.encodings, "_pieces", lambda values, raw: None),
    ):
        yield


def _items(size: int) -> list[dict[str, Any]]:
    return [{"Key": f"k{i}", "Value": f"v{i}", "N": i} for i in range(size)]


_CHANGES = ("value", "bool", "float", "long_key", "negative", "extra", "drop", "add", "dup", "copy")
_step = st.tuples(
    st.lists(st.tuples(st.sampled_from(_CHANGES), st.integers(0, 10**6)), max_size=4),
    st.sampled_from(["keep", "reverse", "shuffle"]),
)


def _next_model(model: dict[str, Any], step: Any, rnd: random.Random) -> dict[str, Any]:
    """The handler's next answer: a few elements changed (some made invalid), maybe reordered."""
    changes, order = step
    items = copy.deepcopy(model["Items"])
    labels = list(model["Labels"])
    for kind, at in changes:
        index = at % len(items)
        if kind == "value":
            items[index]["Value"] = f"c{at}"
            labels[at % len(labels)] = f"l{at}"
        elif kind == "bool":
            items[index]["N"] = at % 2 == 0  # == 1 or 0 to Python, not to JSON
        elif kind == "float" and type(items[index].get("N")) is int:
            items[index]["N"] = float(items[index]["N"])  # == to Python; an integer to the schema
        elif kind == "long_key":
            items[index]["Key"] = "k" * 20  # invalid: longer than 12
            labels[at % len(labels)] = "l" * 20
        elif kind == "negative":
            items[index]["N"] = -1  # invalid: below the minimum
        elif kind == "extra":
            items[index]["Other"] = 1  # invalid: additionalProperties false
        elif kind == "drop" and len(items) > 1:
            del items[index]
        elif kind == "add":
            items.insert(index, {"Key": f"n{at % 100}", "Value": "n", "Sub": [{"x": at}]})
        elif kind == "dup":
            items.append(copy.deepcopy(items[index]))
        elif kind == "copy":  # the same length, one element twice
            items[index] = copy.deepcopy(items[(index + 1) % len(items)])
    if order == "reverse":
        items.reverse()
        labels.reverse()
    elif order == "shuffle":
        rnd.shuffle(items)
    return {"Name": "n", "Items": items, "Labels": labels}


def _step_answers(
    request: dict[str, Any], previous: dict[str, Any] | None, model: dict[str, Any]
) -> Any:
    """What build_step asks of one step, in its order, with one Encodings."""
    encodings = Encodings()
    errors = SCHEMA.model_errors(model, encodings=encodings)
    to_request = diff_models(request, model, SCHEMA, encodings=encodings)
    to_previous = diff_models(previous, model, SCHEMA, encodings=encodings) if previous else []
    return errors, to_request, to_previous


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(256, 400), st.lists(_step, min_size=1, max_size=7), st.randoms())
@example(300, [([("float", 5)], "keep")], random.Random(0))  # 5 == 5.0 in order, no booleans
@example(300, [([("value", 1)], "keep"), ([("copy", 9)], "keep")], random.Random(0))
@example(300, [([("value", 1)], "reverse"), ([("value", 2)], "keep")] * 3, random.Random(0))
def test_a_chain_of_steps_gives_what_the_plain_path_gives(
    size: int, steps: list[Any], rnd: Any
) -> None:
    """Across a chain (the facts and pairs kept from step to step, the unpaired sets composed
    through the request's array, the booleans told from pairs, only new elements validated),
    every step's shape errors are jsonschema's and its changes are the plain path's."""
    request = {"Name": "n", "Items": _items(size), "Labels": [f"l{i}" for i in range(size)]}
    chain = [json.loads(json.dumps(request))]
    for step in steps:
        chain.append(_next_model(chain[-1], step, rnd))
    with (
        mock.patch.object(diff.encodings, "_RECENT", []),
        mock.patch.object(diff.encodings, "_RECENT_PAIRS", {}),
    ):
        previous = None
        for model in chain:
            model = json.loads(json.dumps(model))  # parsed afresh, as each answer is
            errors, to_request, to_previous = _step_answers(request, previous, model)
            with _plain():
                plain = (
                    diff_models(request, model, SCHEMA),
                    diff_models(previous, model, SCHEMA) if previous else [],
                )
            assert errors == SCHEMA.slow_model_errors(model)
            assert (to_request, to_previous) == plain
            previous = model


def test_a_new_invalid_element_is_found_among_valid_ones_known_from_the_step_before() -> None:
    """Of an array like one found valid, only the elements it lacks are validated: an invalid
    one among them is still found, at its own index."""
    request = {"Name": "n", "Items": _items(300), "Labels": []}
    with (
        mock.patch.object(diff.encodings, "_RECENT", []),
        mock.patch.object(diff.encodings, "_RECENT_PAIRS", {}),
    ):
        first = json.loads(json.dumps(request))
        assert SCHEMA.model_errors(first, encodings=Encodings()) == []
        second = json.loads(json.dumps(request))
        second["Items"].reverse()
        second["Items"][123]["N"] = -5
        assert SCHEMA.model_errors(second, encodings=Encodings()) == [
            ("/Items/123/N", "-5 is less than the minimum of 0")
        ]


def test_booleans_told_from_a_pair_match_a_scan() -> None:
    """An array's booleans told from a kept pair with an array holding none are what a scan of
    its encoding finds (a true in a new element, a "true" in a string, none at all)."""
    for new_value in ("plain", True, "true", "false story"):
        with (
            mock.patch.object(diff.encodings, "_RECENT", []),
            mock.patch.object(diff.encodings, "_RECENT_PAIRS", {}),
        ):
            before = _items(300)
            after = list(reversed(copy.deepcopy(before)))
            after[7]["Value"] = new_value
            encodings = Encodings()
            old, new = encodings.facts(before), encodings.facts(after)
            assert old.booleans() is False
            encodings.unpaired(before, after)  # the pair is kept
            told = encodings.booleans(new)
            raw = exact(after) or b""
            assert told == (b"true" in raw or b"false" in raw), new_value
