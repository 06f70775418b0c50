"""The resource schema model: loading, self-validation, pointers, classes, validators."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from cfn_debug.errors import SchemaError
from cfn_debug.records import Action
from cfn_debug.schema import (
    MISSING,
    ResourceSchema,
    join_pointer,
    load_schema,
    resolve_pointer,
    schema_from_dict,
    split_pointer,
)

FIXTURE = Path(__file__).parent / "fixtures" / "schemas" / "widget.json"


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text())


@pytest.fixture(scope="module")
def schema():
    return load_schema(FIXTURE)


def _mutated(raw: dict[str, Any], **changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(raw)
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


# --- loading ---


def test_loads_the_fixture(schema) -> None:
    assert schema.type_name == "Example::Test::Widget"
    assert schema.path == FIXTURE
    assert schema.primary_identifier == ("/WidgetId",)
    assert schema.additional_identifiers == (("/Arn",),)
    assert schema.read_only == {"/WidgetId", "/Arn"}
    assert schema.write_only == {"/Password"}
    assert schema.create_only == {"/Name", "/Config/Mode"}
    assert schema.deprecated == {"/Colour"}


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "schema.json"
    bad.write_text('{\n  "typeName": "A::B::C",\n  "properties": {,}\n}\n')
    with pytest.raises(SchemaError) as caught:
        load_schema(bad)
    assert caught.value.path == str(bad)
    assert "line 3" in str(caught.value) and "column 18" in str(caught.value)


def test_missing_file_is_a_schema_error(tmp_path: Path) -> None:
    with pytest.raises(SchemaError) as caught:
        load_schema(tmp_path / "nope.json")
    assert caught.value.path == str(tmp_path / "nope.json")


def test_not_an_object(tmp_path: Path) -> None:
    with pytest.raises(SchemaError, match="expected a JSON object"):
        schema_from_dict([1, 2], path=tmp_path / "s.json")


@pytest.mark.parametrize("type_name", ["Widget", "A::B", "A::B::C::D", "AB::CD::E", 7, None])
def test_bad_type_name(raw, type_name: Any) -> None:
    with pytest.raises(SchemaError) as caught:
        schema_from_dict(_mutated(raw, typeName=type_name))
    assert caught.value.field == "typeName"


def test_missing_primary_identifier(raw) -> None:
    with pytest.raises(SchemaError) as caught:
        schema_from_dict(_mutated(raw, primaryIdentifier=None), path=FIXTURE)
    assert caught.value.field == "primaryIdentifier"
    assert caught.value.path == str(FIXTURE)


@pytest.mark.parametrize(
    ("keyword", "value"),
    [
        ("primaryIdentifier", ["/properties/Nope"]),
        ("readOnlyProperties", ["/properties/WidgetId", "/properties/Nope"]),
        ("writeOnlyProperties", ["/properties/Tags/*/Secret"]),
        ("createOnlyProperties", ["/properties/Config/Nope"]),
        ("deprecatedProperties", ["/properties/Size/*"]),
        ("additionalIdentifiers", [["/properties/Nope"]]),
    ],
)
def test_unresolvable_pointer_names_list_and_pointer(raw, keyword: str, value: Any) -> None:
    """Only a dangling primaryIdentifier refuses the schema; elsewhere it is one warning."""
    bad = value[-1] if isinstance(value[-1], str) else value[-1][0]
    if keyword != "primaryIdentifier":
        schema = schema_from_dict(_mutated(raw, **{keyword: value}))
        warnings = [n for n in schema.notes if "resolves to nothing" in n.message]
        assert len(warnings) == 1
        assert warnings[0].level == "warning"
        assert warnings[0].pointer.startswith(f"/{keyword}/")
        assert repr(bad) in warnings[0].message
        return
    with pytest.raises(SchemaError) as caught:
        schema_from_dict(_mutated(raw, **{keyword: value}))
    assert caught.value.field == keyword
    assert repr(bad) in caught.value.detail
    assert "resolves to nothing" in caught.value.detail


def test_pointer_must_start_with_properties(raw) -> None:
    with pytest.raises(SchemaError, match="must start with '/properties/'"):
        schema_from_dict(_mutated(raw, readOnlyProperties=["/WidgetId"]))


def test_meta_schema_errors_carry_their_path(raw) -> None:
    pytest.importorskip("rpdk.core.data_loaders")
    data = copy.deepcopy(raw)
    data["properties"]["Size"]["type"] = "integr"
    schema = schema_from_dict(data)  # a warning, not a refusal: published schemas depart too
    notes = [n for n in schema.notes if "meta-schema" in n.message]
    assert [n.pointer for n in notes] == ["/properties/Size/type"]
    assert notes[0].level == "warning"


def test_explicit_nested_properties_spelling(raw) -> None:
    schema = schema_from_dict(
        _mutated(raw, createOnlyProperties=["/properties/Config/properties/Mode"])
    )
    assert schema.create_only == {"/Config/Mode"}


def test_remote_refs_are_tolerated(raw) -> None:
    data = copy.deepcopy(raw)
    data["properties"]["Arn"] = {"$ref": "aws.common.types.v1.json#/definitions/Arn"}
    schema = schema_from_dict(data)
    assert schema.model_errors({"Arn": 12}) == []


# --- pointers and classes ---


def test_pointer_escaping_round_trips() -> None:
    pointer = join_pointer("", "a/b", "c~d", 3)
    assert pointer == "/a~1b/c~0d/3"
    assert split_pointer(pointer) == ["a/b", "c~d", "3"]
    assert resolve_pointer({"a/b": {"c~d": [0, 1, 2, "x"]}}, pointer) == "x"
    assert resolve_pointer({"a/b": {}}, pointer) is MISSING
    assert split_pointer("") == []


def test_pattern_of_turns_indices_into_stars(schema) -> None:
    assert schema.pattern_of("/Tags/3/Key") == "/Tags/*/Key"
    assert schema.pattern_of("/Config/Rules/0/Ports/12") == "/Config/Rules/*/Ports/*"
    assert schema.pattern_of("/Size") == "/Size"


def test_unordered_arrays_at_any_depth(schema) -> None:
    assert schema.unordered_array_pointers == {"/Tags", "/Config/Rules", "/Config/Rules/*/Ports"}
    assert schema.is_unordered("/Config/Rules/4/Ports")
    assert schema.is_unordered("/Tags")
    assert not schema.is_unordered("/Labels")
    assert not schema.is_unordered("/Tags/0")


def test_classify(schema) -> None:
    assert schema.classify("/WidgetId") == {"readOnly", "primaryIdentifier"}
    assert schema.classify("/Arn") == {"readOnly", "additionalIdentifier"}
    assert schema.classify("/Password") == {"writeOnly"}
    assert schema.classify("/Config/Mode") == {"createOnly"}
    assert schema.classify("/Colour") == {"deprecated"}
    assert schema.classify("/Tags") == {"insertionOrderFalse"}
    assert schema.classify("/Size") == set()


def test_classify_inherits_from_ancestors(raw) -> None:
    schema = schema_from_dict(_mutated(raw, createOnlyProperties=["/properties/Config"]))
    assert "createOnly" in schema.classify("/Config/Rules/0/Name")
    assert "createOnly" not in schema.classify("/Size")


def test_handler_timeouts(schema) -> None:
    assert schema.handler_timeout_s(Action.CREATE) == 600.0
    assert schema.handler_timeout_s(Action.UPDATE) == 300.0
    assert schema.handler_timeout_s(Action.DELETE) == 120 * 60.0


def test_identifier_of(schema) -> None:
    assert schema.identifier_of({"WidgetId": "w-1", "Size": 1}) == {"/WidgetId": "w-1"}
    assert schema.identifier_of({"Size": 1}) is None
    assert schema.identifier_of({"WidgetId": None}) is None
    assert schema.identifier_of(None) is None
    assert schema.any_identifier_of({"Arn": "arn:x"}) == {"/Arn": "arn:x"}


# --- validators ---


def test_model_errors_enforce_shape_keywords(schema) -> None:
    errors = dict(
        schema.model_errors(
            {
                "WidgetId": "nope",
                "Size": 101,
                "Name": "",
                "Colour": "pink",
                "Labels": "x",
                "Tags": [{"Key": "k", "Value": "v", "Extra": 1}],
                "Config": {"Rules": [{"Ports": [0]}]},
                "Unknown": True,
            }
        )
    )
    assert set(errors) == {
        "/WidgetId",
        "/Size",
        "/Name",
        "/Colour",
        "/Labels",
        "/Tags/0/Extra",
        "/Config/Rules/0/Ports/0",
        "/Unknown",
    }


def test_model_errors_skip_required_and_boolean_logic(raw) -> None:
    data = copy.deepcopy(raw)
    data["properties"]["Size"]["allOf"] = [{"maximum": 5}]
    data["properties"]["Size"]["not"] = {"type": "integer"}
    data["properties"]["Config"]["dependencies"] = {"Mode": ["Rules"]}
    data["properties"]["Config"]["if"] = {"required": ["Mode"]}
    data["properties"]["Config"]["then"] = {"required": ["Rules"]}
    # the meta-schema forbids if/not in properties, so build the model without that layer
    schema = ResourceSchema(data)
    # Name is required, Tag items require Key and Value: none of that is a shape error.
    assert schema.model_errors({"Size": 50, "Config": {"Mode": "fast"}, "Tags": [{}]}) == []
    assert schema.model_errors({"Size": "50"}) == [("/Size", "'50' is not of type 'integer'")]


def test_input_errors_include_required(schema) -> None:
    errors = schema.input_errors({"Size": 3, "Tags": [{"Key": "k"}]})
    assert ("", "'Name' is a required property") in errors
    assert ("/Tags/0", "'Value' is a required property") in errors
    assert schema.input_errors({"Name": "n"}) == []


def test_unique_items_is_checked_by_hashing(schema) -> None:
    tags = [{"Key": f"k{i}", "Value": "v"} for i in range(3_000)]
    assert schema.model_errors({"Tags": tags}) == []  # pairwise this would take minutes
    tags.append({"Value": "v", "Key": "k7"})
    [(pointer, message)] = schema.model_errors({"Tags": tags})
    assert pointer == "/Tags" and "elements 7 and 3000 are equal" in message
    assert (
        schema.model_errors({"Tags": [{"Key": "a", "Value": "1"}, {"Key": "a", "Value": "2"}]})
        == []
    )


def test_loading_never_changes_the_schema_document(raw) -> None:
    """The meta-schema layer's compiled check must not write the meta-schema's defaults
    (insertionOrder, arrayType, items) into the schema it checks."""
    data = copy.deepcopy(raw)
    schema_from_dict(data)
    assert data == raw
