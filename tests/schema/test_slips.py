"""Authoring slips `cfn-debug schema` warns about, and the $ref cycle it refuses."""

from __future__ import annotations

from cfn_debug.schema.slips import ref_cycle, slips


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


def test_a_bare_ref_cycle_is_an_error_naming_the_pointer() -> None:
    data = {
        "definitions": {"A": {"$ref": "#/definitions/B"}, "B": {"$ref": "#/definitions/A"}},
        "properties": {"Tree": {"$ref": "#/definitions/A", "description": "x"}},
    }
    assert ref_cycle(data) == (
        "/definitions/A",
        "/definitions/A -> /definitions/B -> /definitions/A",
    )
    ((pointer, level, _),) = slips(data)
    assert level == "error" and pointer == "/definitions/A"


def test_a_recursive_structure_is_no_cycle() -> None:
    node = {
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$ref": "#/definitions/Node"}}},
    }
    data = {"definitions": {"Node": node}, "properties": {"Tree": {"$ref": "#/definitions/Node"}}}
    assert ref_cycle(data) is None and slips(data) == []
