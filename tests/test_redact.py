"""Redaction of credentials and masking of writeOnly properties."""

from __future__ import annotations

import copy

from cfn_debug.schema import schema_from_dict
from cfn_debug.text.redact import REDACTED, mask_write_only, redact, redact_text


def test_credentials_in_both_shapes_are_redacted_and_input_untouched() -> None:
    sam = {
        "credentials": {
            "accessKeyId": "AKIA1234567890ABCDEF",
            "secretAccessKey": "x",
            "sessionToken": "y",
        },
        "request": {"desiredResourceState": {"Name": "keep me"}},
    }
    handler_request = {
        "bearerToken": "secret-token",
        "requestData": {
            "callerCredentials": {"accessKeyId": "a", "secretAccessKey": "b", "sessionToken": "c"},
            "providerCredentials": {"accessKeyId": "a", "secretAccessKey": "b", "sessionToken": ""},
            "resourceProperties": {"Note": "key ASIAABCDEFGHIJKLMNOP in text"},
        },
    }
    before = copy.deepcopy((sam, handler_request))
    assert redact(sam) == {
        "credentials": {
            "accessKeyId": REDACTED,
            "secretAccessKey": REDACTED,
            "sessionToken": REDACTED,
        },
        "request": {"desiredResourceState": {"Name": "keep me"}},
    }
    out = redact(handler_request)
    assert out["bearerToken"] == REDACTED
    assert set(out["requestData"]["callerCredentials"].values()) == {REDACTED}
    assert out["requestData"]["providerCredentials"]["sessionToken"] == ""
    assert out["requestData"]["resourceProperties"] == {"Note": f"key {REDACTED} in text"}
    assert (sam, handler_request) == before


def test_free_text_keys_and_assigned_secrets() -> None:
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    line = f"creds AKIAIOSFODNN7EXAMPLE aws_secret_access_key = {secret}"
    assert redact_text(line) == f"creds {REDACTED} aws_secret_access_key = {REDACTED}"
    assert redact_text("nothing secret, AKIA too short") == "nothing secret, AKIA too short"
    assert redact([1, None, True, "plain"]) == [1, None, True, "plain"]


def test_mask_write_only_uses_the_schemas_pointers() -> None:
    schema = schema_from_dict(
        {
            "typeName": "Test::Cfn::Widget",
            "description": "d",
            "properties": {
                "Id": {"type": "string"},
                "Password": {"type": "string"},
                "Users": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"Name": {"type": "string"}, "Key": {"type": "string"}},
                    },
                },
            },
            "primaryIdentifier": ["/properties/Id"],
            "readOnlyProperties": ["/properties/Id"],
            "writeOnlyProperties": ["/properties/Password", "/properties/Users/*/Key"],
            "additionalProperties": False,
        }
    )
    model = {"Id": "1", "Password": "pw", "Users": [{"Name": "a", "Key": "k1"}, {"Name": "b"}]}
    assert mask_write_only(model, schema) == {
        "Id": "1",
        "Password": REDACTED,
        "Users": [{"Name": "a", "Key": REDACTED}, {"Name": "b"}],
    }
    assert model["Password"] == "pw"
    assert mask_write_only(model, None) is model
