"""Values cfn-debug generates from a schema are valid as the schema means them: its patterns
are ECMA-262, where \\d, \\w and \\b are ASCII, while hypothesis generates from Python's ``re``,
where \\d is any script's digit (AwsCommunity::Account::AlternateContact's ``^\\d{12}$``
AccountId came out as Devanagari and Thai digits, and input-valid then failed a request
cfn-debug had built itself)."""

from __future__ import annotations

import re
import unicodedata
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


#: a monitor kept by a third-party API (Example::Monitoring::Website's shape): the service
#: names its Id, which the schema constrains by its length alone
MONITOR: dict[str, Any] = {
    "typeName": "CfnDebug::Fixture::Monitor",
    "description": "ids and names constrained by their length alone",
    "properties": {
        "Id": {"type": "string", "minLength": 1},
        "Name": {"type": "string", "minLength": 3, "maxLength": 50},
    },
    "additionalProperties": False,
    "required": ["Name"],
    "readOnlyProperties": ["/properties/Id"],
    "primaryIdentifier": ["/properties/Id"],
}


def test_a_service_named_identifier_is_printable_and_readable() -> None:
    """update-without-create sent Id '\\x0c\\x12%' (Hypothesis text): a handler putting it in
    an API's URL fails on the request itself, not with the 404 that makes it NotFound."""
    schema = ResourceSchema(MONITOR)
    values = [fresh_identifier(schema)["/Id"] for _ in range(5)]
    assert all(re.fullmatch("cfn-debug-missing-[0-9a-f]{12}", v) for v in values), values
    short = ResourceSchema({**MONITOR, "properties": {**MONITOR["properties"], "Id": {
        "type": "string", "minLength": 40, "maxLength": 40}}})  # fmt: skip
    (value,) = fresh_identifier(short).values()
    assert value.startswith("cfn-debug-missing-") and len(value) == 40


def test_strings_with_only_a_length_have_no_control_characters() -> None:
    """As `cfn test` draws them (no Cc, no Cs): 'Name=굷AÓ\\x84V\\x8eñ' was a create input."""
    schema = ResourceSchema(MONITOR)
    names = [example_create(schema)["Name"] for _ in range(40)]
    bad = [n for n in names if any(unicodedata.category(c) in ("Cc", "Cs") for c in n)]
    assert not bad, bad
    assert all(3 <= len(n) <= 50 for n in names), names
