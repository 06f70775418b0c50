"""Values cfn-debug generates from a schema are valid as the schema means them: its patterns
are ECMA-262, where \\d, \\w and \\b are ASCII, while hypothesis generates from Python's ``re``,
where \\d is any script's digit (AwsCommunity::Account::AlternateContact's ``^\\d{12}$``
AccountId came out as Devanagari and Thai digits, and input-valid then failed a request
cfn-debug had built itself)."""

from __future__ import annotations

import re
from typing import Any

from cfn_debug.scenarios.generate import example_create, fresh_identifier
from cfn_debug.schema import ResourceSchema

SCHEMA: dict[str, Any] = {
    "typeName": "CfnDebug::Fixture::Digits",
    "description": "digits and words",
    "properties": {
        "AccountId": {"type": "string", "pattern": "^\\d{12}$"},
        "Alias": {"type": "string", "pattern": "^\\w{3,8}$"},
    },
    "additionalProperties": False,
    "required": ["AccountId", "Alias"],
    "primaryIdentifier": ["/properties/AccountId"],
}


def test_a_fresh_identifier_has_ascii_digits() -> None:
    schema = ResourceSchema(SCHEMA)
    values = [fresh_identifier(schema)["/AccountId"] for _ in range(15)]
    assert all(re.fullmatch("[0-9]{12}", v) for v in values), values


def test_generated_inputs_are_valid_against_the_ecma_schema() -> None:
    schema = ResourceSchema(SCHEMA)
    for _ in range(15):
        model = example_create(schema)
        assert schema.input_errors(model) == [], model
        assert re.fullmatch("[A-Za-z0-9_]{3,8}", model["Alias"]), model
