"""The project's own events as the scenarios' input: only those the schema accepts.

A published project's sam-tests may predate its schema (Community::ServiceQuotas::DynamoDB asks
for Tables 200 where the schema's minimum is 256). Sent as the scenarios' input, such an event
made an input-valid MUST in every scenario, and a model-conforms-to-schema MUST on a correct
handler's READ that returned what it was given: findings on cfn-debug's choice of input, not
on the handler. It is passed over, saying so, as cfn test (which never reads sam-tests) would.
"""

from __future__ import annotations

import json
from pathlib import Path

from cfn_debug.project import discover_project
from cfn_debug.scenarios.inputs import resolve_inputs
from cfn_debug.schema import ResourceSchema

SCHEMA = ResourceSchema(
    {
        "typeName": "Corpus::Test::Quota",
        "properties": {
            "Tables": {"type": "integer", "minimum": 256},
            "Id": {"type": "integer"},
        },
        "additionalProperties": False,
        "required": ["Tables"],
        "readOnlyProperties": ["/properties/Id"],
        "primaryIdentifier": ["/properties/Id"],
    }
)


def _event(root: Path, folder: str, name: str, desired: dict[str, object]) -> None:
    (root / folder).mkdir(exist_ok=True)
    (root / folder / name).write_text(json.dumps({"desiredResourceState": desired}))


def test_an_event_the_schema_rejects_is_not_the_scenarios_input(tmp_path: Path) -> None:
    _event(tmp_path, "sam-tests", "create.json", {"Tables": 200})
    inputs = resolve_inputs(discover_project(tmp_path), SCHEMA)
    assert SCHEMA.input_errors(inputs.create) == []
    assert inputs.source.startswith("generated from the schema")
    assert "sam-tests/create.json is not valid against the schema: /Tables" in inputs.source
    assert not inputs.written


def test_a_valid_event_is_taken_over_an_invalid_one(tmp_path: Path) -> None:
    _event(tmp_path, "sam-tests", "create.json", {"Tables": 200})
    _event(tmp_path, "sam-tests", "create-more.json", {"Tables": 300, "Id": 7})
    _event(tmp_path, "sam-tests", "update.json", {"Tables": 10})
    inputs = resolve_inputs(discover_project(tmp_path), SCHEMA)
    assert inputs.create == {"Tables": 300}  # readOnly left out, as before
    assert inputs.update is None  # the update scenarios derive one
    assert inputs.written
    assert "create-more.json" in inputs.source.split(" (")[0]
    assert "create.json is not valid" in inputs.source
    assert "update.json is not valid" in inputs.source


def test_valid_events_are_sent_as_written(tmp_path: Path) -> None:
    _event(tmp_path, "sam-tests", "create.json", {"Tables": 300})
    _event(tmp_path, "sam-tests", "update.json", {"Tables": 400, "Id": 7})
    inputs = resolve_inputs(discover_project(tmp_path), SCHEMA)
    assert (inputs.create, inputs.update) == ({"Tables": 300}, {"Tables": 400})
    assert "not valid" not in inputs.source
