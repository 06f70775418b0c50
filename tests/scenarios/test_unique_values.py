"""Which input values get a per-run suffix: only identifiers the handler names, free-form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfn_debug.aws.placeholders import Exports
from cfn_debug.errors import EventError
from cfn_debug.project import discover_project
from cfn_debug.scenarios.inputs import make_unique, placeholder_pointers, resolve_inputs
from cfn_debug.schema import ResourceSchema

SCHEMA = ResourceSchema(
    {
        "typeName": "Corpus::Test::Keys",
        "properties": {
            "Name": {"type": "string", "maxLength": 40},
            "Kind": {"type": "string", "enum": ["a", "b"]},
            "Email": {"type": "string", "format": "email"},
            "Code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "Slug": {"type": "string", "pattern": "^[a-z0-9-]+$"},
            "VpcId": {"$ref": "aws-ec2-vpc.json#/properties/VpcId"},
            "RoleArn": {"type": "string"},
            "Label": {"type": "string"},
            "Id": {"type": "string"},
        },
        "additionalProperties": False,
        "required": ["Label"],
        "readOnlyProperties": ["/properties/Id"],
        "createOnlyProperties": ["/properties/Label"],
        "primaryIdentifier": ["/properties/Id"],
        "additionalIdentifiers": [
            ["/properties/Name"],
            ["/properties/Kind"],
            ["/properties/Email"],
            ["/properties/Code"],
            ["/properties/Slug"],
            ["/properties/VpcId"],
            ["/properties/RoleArn"],
        ],
    }
)
MODEL = {
    "Name": "web",
    "Kind": "a",
    "Email": "a@example.com",
    "Code": "ABC",
    "Slug": "my-app",
    "VpcId": "vpc-123",
    "RoleArn": "arn:aws:iam::123456789012:role/x",
    "Label": "natural key, but no identifier",
}


def test_only_free_form_identifiers_the_handler_names_get_a_suffix() -> None:
    sent, changed = make_unique(SCHEMA, MODEL, "abc123")
    assert changed == {"Name": "web-abc123", "Slug": "my-app-abc123"}
    assert {k: v for k, v in sent.items() if k not in changed} == {
        k: v for k, v in MODEL.items() if k not in changed
    }


def test_values_from_an_export_never_get_one() -> None:
    _, changed = make_unique(SCHEMA, MODEL, "abc123", frozenset({"/Name"}))
    assert changed == {"Slug": "my-app-abc123"}
    _, changed = make_unique(SCHEMA, {**MODEL, "Name": "{{ VpcStack-Name }}"}, "abc123")
    assert "Name" not in changed


def test_placeholders_in_input_files_are_exempt(tmp_path: Path) -> None:
    assert placeholder_pointers({"A": "{{X}}", "B": ["x", "{{Y}}"], "C": "a {{Z}}"}) == {
        "/A",
        "/B/1",
    }
    (tmp_path / "inputs").mkdir()
    (tmp_path / "inputs" / "inputs_1_create.json").write_text(json.dumps({"Name": "{{Exp}}"}))
    # placeholders are filled when the file is read (--local-aws, --export): the whole
    # placeholder in the raw file and the filled pointer feed the same exemption
    exports = Exports({"Exp": "pre-existing"})
    inputs = resolve_inputs(discover_project(tmp_path, exports=exports), SCHEMA)
    assert inputs.create == {"Name": "pre-existing"}
    assert inputs.unique_exempt == frozenset({"/Name"}) and inputs.from_files
    # a placeholder inside a longer value is filled and exempt too
    (tmp_path / "inputs" / "inputs_1_create.json").write_text(json.dumps({"Name": "t-{{Exp}}"}))
    inputs = resolve_inputs(discover_project(tmp_path, exports=exports), SCHEMA)
    assert inputs.create == {"Name": "t-pre-existing"}
    assert inputs.unique_exempt == frozenset({"/Name"})


def test_an_override_the_schema_refuses_is_the_projects_error(tmp_path: Path) -> None:
    # a placeholder the author left in overrides.json must not become a request cfn-debug
    # sends (and an input-valid MUST on every scenario): one line naming file and pointer
    (tmp_path / "overrides.json").write_text(json.dumps({"CREATE": {"/Kind": "<MY_KIND_HERE>"}}))
    with pytest.raises(EventError) as caught:
        resolve_inputs(discover_project(tmp_path), SCHEMA)
    text = str(caught.value)
    assert "overrides.json: CREATE./Kind: '<MY_KIND_HERE>' is not one of ['a', 'b']" in text
    # a valid override is sent as written
    (tmp_path / "overrides.json").write_text(json.dumps({"CREATE": {"Kind": "b"}}))
    assert resolve_inputs(discover_project(tmp_path), SCHEMA).create["Kind"] == "b"
