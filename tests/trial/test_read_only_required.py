"""A schema that lists a readOnly property as required (as published types do: the stamp
fixture's StampId) asks no input for it: no request can carry it. input-valid already judged so;
the generated inputs and the event editor now judge the same way. Before, drawing a create input
for such a schema failed every example (Hypothesis Unsatisfiable: ``scenario`` crashed with an
internal error on a project with no inputs/ and no events), and the editor asked for the
property on a create event."""

from __future__ import annotations

from cfn_debug.contract.input_checks import desired_state_errors
from cfn_debug.event_checks import model_problems
from cfn_debug.records import Action
from cfn_debug.scenarios.generate import example_create, example_update
from cfn_debug.schema import ResourceSchema

SCHEMA = ResourceSchema(
    {
        "typeName": "Corpus::Test::Stamped",
        "properties": {
            "Copies": {"type": "integer", "minimum": 1, "maximum": 9},
            "Inked": {"type": "boolean"},
            "StampId": {"type": "integer"},
        },
        "additionalProperties": False,
        "required": ["Copies", "StampId"],
        "readOnlyProperties": ["/properties/StampId"],
        "primaryIdentifier": ["/properties/StampId"],
    }
)


def test_generated_inputs_need_no_read_only_property() -> None:
    create = example_create(SCHEMA)
    assert "StampId" not in create and 1 <= create["Copies"] <= 9
    assert desired_state_errors(SCHEMA, create) == []
    assert "StampId" not in example_update(SCHEMA)


def test_the_event_editor_does_not_ask_for_it() -> None:
    assert model_problems(SCHEMA, Action.CREATE, {"Copies": 2}) == []
    assert [p for p, _ in model_problems(SCHEMA, Action.CREATE, {"Inked": True})] == [""]
