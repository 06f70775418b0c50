"""generated-inputs sends only inputs the schema accepts as ECMA-262 reads its patterns.

hypothesis-jsonschema generates strings with Python's ``re``, which reads a pattern differently
from ECMA-262: ``.`` matches ``\\r`` (the demo's Tag Key ``^(?!aws:).+$`` produced ``"\\r"``),
``\\d`` and ``\\w`` match non-ASCII digits and letters. Such an input was sent as a valid one, and
the correct demo handler failed input-valid and model-conforms-to-schema (the once-in-CI failure
of generated-inputs on the demo). Hypothesis itself searches for a counterexample here, with a
fixed derandomized search so the test is deterministic.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, find, settings
from hypothesis.errors import NoSuchExample

from cfn_debug.scenarios.generate import fresh_identifier
from cfn_debug.scenarios.hypothesis_inputs import create_strategy
from cfn_debug.schema import schema_from_dict
from cfn_debug.schema.ecma_regex import compile_ecma

#: Each search draws hundreds of inputs: seconds apiece.
pytestmark = pytest.mark.slow

SEARCH = settings(
    max_examples=600,
    database=None,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def schema_with(key: dict[str, Any], labels: dict[str, Any] | None = None) -> Any:
    properties: dict[str, Any] = {"Id": {"type": "string"}, "Key": key}
    if labels is not None:
        properties["Labels"] = labels
    return schema_from_dict(
        {
            "typeName": "Test::Generated::Pattern",
            "description": "generated inputs against ECMA-262 patterns",
            "additionalProperties": False,
            "properties": properties,
            "required": ["Key"],
            "primaryIdentifier": ["/properties/Id"],
            "readOnlyProperties": ["/properties/Id"],
        }
    )


@pytest.mark.parametrize(
    "pattern",
    [
        "^(?!aws:).+$",  # the demo's Tag Key: Python's . takes \r, ECMA's does not
        r"^\d+$",  # Python's \d takes Arabic-Indic digits, ECMA's only 0-9
        r"^\w{2,5}$",  # Python's \w takes letters such as ª, ECMA's only [A-Za-z0-9_]
    ],
)
def test_no_generated_string_breaks_its_ecma_pattern(pattern: str) -> None:
    schema = schema_with({"type": "string", "pattern": pattern})
    ecma = compile_ecma(pattern)
    with pytest.raises(NoSuchExample):
        found = find(create_strategy(schema), lambda m: not ecma.search(m["Key"]), settings=SEARCH)
        pytest.fail(f"generated {found!r}, which {pattern!r} rejects in ECMA-262")


def test_nested_patterns_are_checked_with_the_whole_input() -> None:
    """A pattern below the top of a plain subschema (array items) is not filtered where the
    string is drawn; the whole input is checked against the schema instead."""
    schema = schema_with(
        {"type": "string"},
        {"type": "array", "items": {"type": "string", "pattern": "^(?!aws:).+$"}},
    )
    ecma = compile_ecma("^(?!aws:).+$")

    def broken(model: dict[str, Any]) -> bool:
        return any(not ecma.search(label) for label in model.get("Labels", []))

    with pytest.raises(NoSuchExample):
        found = find(create_strategy(schema), broken, settings=SEARCH)
        pytest.fail(f"generated {found!r}")


def test_the_demo_tag_key_is_generated_valid_every_time() -> None:
    """The demo's schema as shipped: every generated input is valid as cfn-debug reads it."""
    from cfn_debug.demo import SCHEMA_FILE
    from cfn_debug.schema import load_schema

    schema = load_schema(SCHEMA_FILE)
    with pytest.raises(NoSuchExample):
        found = find(
            create_strategy(schema), lambda m: bool(schema.input_errors(m)), settings=SEARCH
        )
        pytest.fail(f"generated {found!r}: {schema.input_errors(found)}")


def test_a_fresh_identifier_follows_its_ecma_pattern() -> None:
    schema = schema_from_dict(
        {
            "typeName": "Test::Generated::Identifier",
            "description": "an identifier with a pattern",
            "additionalProperties": False,
            "properties": {"Id": {"type": "string", "pattern": r"^\w+\d$"}},
            "primaryIdentifier": ["/properties/Id"],
            "readOnlyProperties": ["/properties/Id"],
        }
    )
    ecma = compile_ecma(r"^\w+\d$")
    for _ in range(30):
        assert ecma.search(fresh_identifier(schema)["/Id"])
