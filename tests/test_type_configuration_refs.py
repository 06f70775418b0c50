"""A typeConfiguration whose ``$ref`` names the resource schema's definitions
(Datadog::Monitors::Downtime: ``{"DatadogCredentials": {"$ref":
"#/definitions/DatadogCredentials"}}``): `run --type-configuration` ended in an internal error
(PointerToNowhere) instead of checking the value."""

from __future__ import annotations

import argparse

import pytest

from cfn_debug.errors import CfnDebugError
from cfn_debug.schema import ResourceSchema
from cfn_debug.type_configuration import type_configuration

SCHEMA = ResourceSchema(
    {
        "typeName": "Corpus::Remote::Thing",
        "properties": {"Name": {"type": "string"}, "Id": {"type": "string"}},
        "definitions": {
            "Credentials": {
                "type": "object",
                "properties": {"ApiKey": {"type": "string"}},
                "required": ["ApiKey"],
                "additionalProperties": False,
            }
        },
        "typeConfiguration": {
            "properties": {"Credentials": {"$ref": "#/definitions/Credentials"}},
            "additionalProperties": False,
        },
        "additionalProperties": False,
        "readOnlyProperties": ["/properties/Id"],
        "primaryIdentifier": ["/properties/Id"],
    }
)


def _given(text: str) -> argparse.Namespace:
    return argparse.Namespace(type_configuration=text, fault=None)


def test_a_reference_to_the_schemas_definitions_is_followed() -> None:
    config = type_configuration(_given('{"Credentials": {"ApiKey": "k"}}'), SCHEMA)
    assert config == {"Credentials": {"ApiKey": "k"}}
    with pytest.raises(CfnDebugError, match="at Credentials: 'ApiKey' is a required property"):
        type_configuration(_given('{"Credentials": {}}'), SCHEMA)


def test_a_reference_the_schema_does_not_define_is_the_schemas_error() -> None:
    raw = {**SCHEMA.raw, "typeConfiguration": {"properties": {"K": {"$ref": "#/definitions/Nope"}}}}
    broken = ResourceSchema(raw)
    with pytest.raises(CfnDebugError, match="typeConfiguration refers to what it does not define"):
        type_configuration(_given('{"K": 1}'), broken)
