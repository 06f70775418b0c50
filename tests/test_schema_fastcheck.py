"""The fast shape checks (columnar and compiled) against jsonschema, the reference.

The fast checks may only ever say "valid" for a model jsonschema finds no error in; whenever
they say "not sure" the model goes to jsonschema. These tests hold them to that on hand-picked
corner cases and on generated models, and check that ``model_errors`` (fast path first) always
gives exactly what ``slow_model_errors`` (jsonschema alone) gives.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cfn_debug.schema import SHAPE_EXEMPT_KEYWORDS, ResourceSchema, load_schema
from cfn_debug.schema.fastcheck import compile_columnar_check, compile_shape_check

WIDGET = load_schema(Path(__file__).parent / "fixtures" / "schemas" / "widget.json")

#: Every keyword the fast checks implement, plus exempt ones that must stay without effect.
RICH: dict[str, Any] = {
    "typeName": "Example::Test::Rich",
    "definitions": {
        "Pair": {
            "type": "object",
            "properties": {"K": {"type": "string", "minLength": 1}, "V": {"type": "integer"}},
            "required": ["K", "V"],
            "additionalProperties": False,
        }
    },
    "properties": {
        "Id": {"type": "string", "pattern": "^r-[0-9]+$"},
        "Int": {"type": "integer", "minimum": 0, "exclusiveMaximum": 10},
        "Num": {"type": "number", "exclusiveMinimum": -1.5, "maximum": 2.5},
        "Either": {"type": ["string", "null"], "maxLength": 3},
        "Flag": {"type": "boolean"},
        "Colour": {"enum": ["red", "green"]},
        "Pairs": {
            "type": "array",
            "uniqueItems": True,
            "minItems": 1,
            "maxItems": 4,
            "items": {"$ref": "#/definitions/Pair"},
        },
        "Scalars": {"type": "array", "uniqueItems": True},
        "Nested": {"type": "array", "uniqueItems": True, "items": {"type": "array"}},
        "Tuple": {
            "type": "array",
            "items": [{"type": "string"}, {"type": "integer"}],
            "additionalItems": False,
        },
        "Map": {
            "type": "object",
            "patternProperties": {"^x$": {"type": "string"}, "^n": {"type": "integer"}},
            "additionalProperties": {"type": "boolean"},
            "minProperties": 1,
            "maxProperties": 3,
            "required": ["x"],
            "allOf": [{"required": ["nope"]}],
            "not": {"type": "object"},
            "if": {"type": "object"},
            "then": {"required": ["then"]},
        },
        "Free": {},
        "When": {"type": "string", "format": "date-time"},
    },
    "additionalProperties": False,
    "required": ["Id"],
    "primaryIdentifier": ["/properties/Id"],
}
RICH_SCHEMA = ResourceSchema(RICH)

#: Models each of which breaks (or sits right at the edge of) one keyword.
CORNER_CASES: list[dict[str, Any]] = [
    {"Id": "r-1\n"},  # Python's $ matches before a final newline (fastjsonschema's \Z does not)
    {"Id": "x-1"},
    {"Int": 10},
    {"Int": 9.0},
    {"Int": 9.5},
    {"Int": True},
    {"Int": -1},
    {"Num": -1.5},
    {"Num": 2.5},
    {"Num": math.nan},
    {"Num": math.inf},
    {"Either": None},
    {"Either": "abcd"},
    {"Either": 1},
    {"Flag": 1},
    {"Flag": False},
    {"Colour": "blue"},
    {"Colour": 1},
    {"Pairs": []},
    {"Pairs": [{"K": "a", "V": 1}, {"V": 1, "K": "a"}]},
    {"Pairs": [{"K": "a", "V": 1}, {"K": "a", "V": 1.0}]},
    {"Pairs": [{"K": "a", "V": 1}, {"K": "a", "V": True}]},
    {"Pairs": [{"K": "a", "V": 1}, {"K": "a"}]},
    {"Pairs": [{"K": "", "V": 1}]},
    {"Pairs": [{"K": "a", "V": 1, "W": 2}]},
    {"Pairs": [{"K": "a", "V": 1}] * 5},
    {"Scalars": [1, True]},
    {"Scalars": [1, 1.0]},
    {"Scalars": [float("nan"), float("nan")]},  # two objects: a set keeps both
    {"Scalars": [0.0, -0.0]},
    {"Scalars": [[1], [True]]},
    {"Scalars": [{"a": [1, 2]}, {"a": [1, 2.0]}]},
    {"Scalars": [None, None]},
    {"Nested": [[1, 2], [1, 2.0]]},
    {"Nested": [[1], 1]},
    {"Tuple": ["a", 1]},
    {"Tuple": ["a", "b"]},
    {"Tuple": ["a", 1, 2]},
    {"Tuple": [1]},
    {"Map": {}},
    {"Map": {"x": "s"}},
    {"Map": {"x\n": "s"}},  # matches ^x$ in Python: a string is fine there
    {"Map": {"x\n": True}},
    {"Map": {"n1": 1, "n2": "s"}},
    {"Map": {"other": "s"}},
    {"Map": {"other": False, "x": 1}},
    {"Map": {"a": True, "b": True, "c": True, "d": True}},
    {"Free": {"anything": [None, 1.5]}},
    {"When": "not a date"},
    {"Unknown": 1},
    {"Id": None},
]


def _fast_checks(schema: ResourceSchema) -> list[Any]:
    found = [
        compile_columnar_check(schema._validation_copy, SHAPE_EXEMPT_KEYWORDS),
        compile_shape_check(schema._validation_copy, SHAPE_EXEMPT_KEYWORDS),
    ]
    return [check for check in found if check is not None]


def test_both_fast_checks_compile_for_the_fixture_schemas() -> None:
    assert len(_fast_checks(WIDGET)) == 2
    # Pair's $ref stays inlined (not recursive), so the columnar check applies here too
    assert len(_fast_checks(RICH_SCHEMA)) == 2


@pytest.mark.parametrize("model", CORNER_CASES, ids=lambda m: json.dumps(m)[:40])
def test_fast_checks_never_accept_what_jsonschema_rejects(model: dict[str, Any]) -> None:
    errors = RICH_SCHEMA.slow_model_errors(model)
    for check in _fast_checks(RICH_SCHEMA):
        if check(model):
            assert errors == [], f"{check.__qualname__} accepted a model with {errors}"
    assert RICH_SCHEMA.model_errors(model) == errors


def test_the_corner_cases_include_both_answers() -> None:
    """The corner cases are worth something only if jsonschema rejects some and accepts some,
    and the fast checks accept some (the fast path is really taken)."""
    verdicts = [RICH_SCHEMA.slow_model_errors(m) == [] for m in CORNER_CASES]
    assert any(verdicts) and not all(verdicts)
    columnar, compiled = _fast_checks(RICH_SCHEMA)
    assert any(columnar(m) for m in CORNER_CASES)
    assert any(compiled(m) for m in CORNER_CASES)


def test_a_large_valid_model_takes_the_fast_path() -> None:
    model = {
        "WidgetId": "w-0123abcd",
        "Name": "n",
        "Labels": [f"l{i}" for i in range(500)],
        "Tags": [{"Key": f"k{i}", "Value": "v"} for i in range(500)],
        "Config": {
            "Mode": "fast",
            "Rules": [{"Name": "r", "Ports": [1, 2, i + 1]} for i in range(500)],
        },
    }
    for check in _fast_checks(WIDGET):
        assert check(model)
    model["Config"]["Rules"][250]["Ports"][0] = 0
    for check in _fast_checks(WIDGET):
        assert not check(model)
    assert WIDGET.model_errors(model) == [
        ("/Config/Rules/250/Ports/0", "0 is less than the minimum of 1")
    ]


def test_schemas_the_fast_checks_do_not_implement_fall_back() -> None:
    data = json.loads(json.dumps(RICH))
    data["properties"]["Int"]["multipleOf"] = 0.1  # float arithmetic differs: no compiled check
    data["properties"]["Tree"] = {
        "type": "object",
        "properties": {"up": {"$ref": "#/properties/Tree"}},
    }
    schema = ResourceSchema(data)
    assert _fast_checks(schema) == []
    assert schema.model_errors({"Int": 0.7}) == schema.slow_model_errors({"Int": 0.7})
    assert schema.model_errors({"Tree": {"up": {"up": 1}}}) == [
        ("/Tree/up/up", "1 is not of type 'object'")
    ]


def test_the_compiled_check_never_writes_defaults_into_the_model() -> None:
    data = json.loads(json.dumps(RICH))
    data["properties"]["Int"]["default"] = 3
    schema = ResourceSchema(data)
    model: dict[str, Any] = {"Id": "r-1"}
    assert schema.model_errors(model) == []
    assert model == {"Id": "r-1"}


_leaves = (
    st.none()
    | st.booleans()
    | st.integers(-2, 12)
    | st.sampled_from([0.0, -0.0, 1.0, 2.5, 9.5, -1.5, math.nan, math.inf])
    | st.sampled_from(["", "a", "abcd", "r-1", "r-1\n", "x", "x\n", "n1", "red", "blue"])
)
_values = st.recursive(
    _leaves,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["K", "V", "W", "x", "x\n", "n1", "o"]), inner, max_size=3
        )
    ),
    max_leaves=8,
)
_models = st.dictionaries(st.sampled_from([*RICH["properties"], "Unknown"]), _values, max_size=4)


@settings(max_examples=300, deadline=None)
@given(_models)
def test_generated_models_give_the_same_errors(model: dict[str, Any]) -> None:
    errors = RICH_SCHEMA.slow_model_errors(model)
    for check in _fast_checks(RICH_SCHEMA):
        if check(model):
            assert errors == []
    assert RICH_SCHEMA.model_errors(model) == errors


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {"Key": st.sampled_from(["a", "b", ""]), "Value": st.sampled_from(["1", "2"])},
            optional={"Extra": _leaves},
        ),
        max_size=5,
    )
)
def test_generated_tags_give_the_same_errors(tags: list[dict[str, Any]]) -> None:
    model = {"Tags": tags}
    errors = WIDGET.slow_model_errors(model)
    for check in _fast_checks(WIDGET):
        if check(model):
            assert errors == []
    assert WIDGET.model_errors(model) == errors


@pytest.mark.parametrize("model", CORNER_CASES, ids=lambda m: json.dumps(m)[:40])
def test_compiled_input_check_never_accepts_what_jsonschema_rejects(model: dict[str, Any]) -> None:
    """input_errors (full Draft 7, required included) answers valid inputs with a compiled
    check; it must agree with jsonschema alone on every corner case."""
    assert RICH_SCHEMA.input_errors(model) == RICH_SCHEMA.slow_input_errors(model)
    assert WIDGET.input_errors(model) == WIDGET.slow_input_errors(model)


def test_unchanged_large_subtrees_are_validated_once_and_a_deep_change_is_still_found() -> None:
    from cfn_debug.diff import Encodings

    schema = load_schema(Path(__file__).parent / "fixtures" / "schemas" / "widget.json")
    tags = [{"Key": f"key-{i}", "Value": f"value-{i}"} for i in range(400)]
    model = {"Name": "w", "Tags": tags, "Labels": [f"label-{i}" for i in range(1000)]}
    seen: list[Any] = []
    schema.model_errors({})  # build the compiled checks, then watch what they are given
    checks = schema._shape_checks
    assert checks
    schema._shape_checks = tuple(
        (lambda part, check=check: seen.append(sorted(part)) or check(part)) for check in checks
    )
    assert schema.model_errors(model, encode=Encodings().of) == []
    assert seen[-1] == ["Labels", "Name", "Tags"]
    again = json.loads(json.dumps(model))  # the next step: new objects, same content
    assert schema.model_errors(again, encode=Encodings().of) == []
    assert seen[-1] == ["Name"]  # the large properties were known valid by their encoding
    again["Tags"][321]["Key"] = 5  # deep inside a known subtree: a new encoding, checked again
    assert [p for p, _ in schema.model_errors(again, encode=Encodings().of)] == ["/Tags/321/Key"]
    again["Tags"][321]["Key"] = None  # a null is never taken from the cache (None and NaN)
    assert [p for p, _ in schema.model_errors(again, encode=Encodings().of)] == ["/Tags/321/Key"]


def test_a_schema_without_patterns_gets_a_compiled_check_too() -> None:
    """fastjsonschema's code defines no REGEX_PATTERNS for a schema without pattern or format:
    the compiled checks (the shape check's and the input check's) must compile all the same, or
    a large first request is validated by jsonschema alone (seconds at 5 MB)."""
    schema = ResourceSchema(
        {
            "typeName": "Test::No::Patterns",
            "description": "no pattern, no format",
            "additionalProperties": False,
            "primaryIdentifier": ["/properties/Name"],
            "required": ["Name"],
            "properties": {
                "Name": {"type": "string"},
                "Items": {"type": "array", "items": {"type": "integer", "minimum": 0}},
            },
        }
    )
    assert compile_shape_check(schema._validation_copy, SHAPE_EXEMPT_KEYWORDS) is not None
    assert compile_shape_check(schema._validation_copy, ()) is not None
    model = {"Name": "n", "Items": list(range(2000))}
    with mock.patch.object(ResourceSchema, "slow_input_errors", side_effect=AssertionError):
        assert schema.input_errors(model) == []
    assert schema.input_errors({"Items": [-1]}) == schema.slow_input_errors({"Items": [-1]})
