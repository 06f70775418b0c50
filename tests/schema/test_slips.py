"""Authoring slips `cfn-debug schema` warns about, and the $ref cycles it cuts."""

from __future__ import annotations

from cfn_debug.schema.load import schema_from_dict
from cfn_debug.schema.slips import ref_cycle, slips, without_ref_cycles


def test_pointer_style_required_entries_are_warned_about() -> None:
    notes = slips(
        {"properties": {"Name": {"type": "string"}}, "required": ["/properties/Name", "Nmae"]}
    )
    assert [(n[0], n[1]) for n in notes] == [
        ("/required/0", "warning"),
        ("/required/1", "warning"),
    ]
    assert "'Name'" in notes[0][2] and "'Nmae'" in notes[1][2]


def test_bare_names_in_pointer_lists_are_warned_about() -> None:
    notes = slips({"properties": {"Id": {}}, "primaryIdentifier": ["Id"]})
    assert [(n[0], n[1]) for n in notes] == [("/primaryIdentifier/0", "warning")]
    assert "/properties/Id" in notes[0][2]


def test_a_bare_ref_cycle_is_a_warning_naming_the_pointer() -> None:
    data = {
        "definitions": {"A": {"$ref": "#/definitions/B"}, "B": {"$ref": "#/definitions/A"}},
        "properties": {"Tree": {"$ref": "#/definitions/A", "description": "x"}},
    }
    assert ref_cycle(data) == (
        "/definitions/A",
        "/definitions/A -> /definitions/B -> /definitions/A",
    )
    ((pointer, level, _),) = slips(data)
    assert level == "warning" and pointer == "/definitions/A"
    cut, cycles = without_ref_cycles(data)
    assert cycles == [("/definitions/A", "/definitions/A -> /definitions/B -> /definitions/A")]
    assert ref_cycle(cut) is None and "$ref" in data["definitions"]["B"]  # the input unchanged


def test_a_cycle_cut_lets_its_property_take_any_value() -> None:
    """AWS::EC2::VerifiedAccessTrustProvider publishes ``SseSpecification: {"$ref":
    "#/definitions/SseSpecification"}``: the schema loads, with a warning, and the property
    validates any value instead of recursing until "nested too deep"."""
    data = {
        "typeName": "Test::Cycle::Sse",
        "properties": {
            "Id": {"type": "string"},
            "Sse": {"$ref": "#/definitions/Sse"},
        },
        "definitions": {"Sse": {"$ref": "#/definitions/Sse", "description": "x"}},
        "primaryIdentifier": ["/properties/Id"],
        "readOnlyProperties": ["/properties/Id"],
        "additionalProperties": False,
    }
    schema = schema_from_dict(data, strict=False)
    warnings = [n for n in schema.notes if "$ref cycle" in n.message]
    assert [(n.pointer, n.level) for n in warnings] == [("/definitions/Sse", "warning")]
    assert schema.input_errors({"Id": "i", "Sse": {"Any": [1, "x"]}}) == []
    assert schema.model_errors({"Id": "i", "Sse": "text"}) == []
    assert schema.input_errors({"Id": "i", "Other": 1}) != []


def test_a_recursive_structure_is_no_cycle() -> None:
    node = {
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$ref": "#/definitions/Node"}}},
    }
    data = {"definitions": {"Node": node}, "properties": {"Tree": {"$ref": "#/definitions/Node"}}}
    assert ref_cycle(data) is None and slips(data) == []
