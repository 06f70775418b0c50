"""What an event's model must hold for its action, as the event editor checks it while you type.

CREATE and UPDATE send a whole desired state: full Draft 7 against the schema, `required`
included (the input assumption of create and update, judged as input-valid judges it: a readOnly
property a schema lists as required is not asked for). READ and DELETE need only an identifier:
the model's shape is checked (a wrong type is still wrong) but create-time `required` is not,
and a missing identifier is the problem. LIST needs neither.
"""

from __future__ import annotations

from typing import Any

from cfn_debug.contract.input_checks import desired_state_errors
from cfn_debug.records import Action
from cfn_debug.schema import ResourceSchema

IDENTIFIED = (Action.READ, Action.DELETE)


def model_problems(
    schema: ResourceSchema, action: Action, desired: dict[str, Any] | None
) -> list[tuple[str, str]]:
    """(model pointer, message) for every problem of ``desired`` for ``action``."""
    if action in (Action.CREATE, Action.UPDATE):
        return [] if desired is None else desired_state_errors(schema, desired)
    if action not in IDENTIFIED:
        return [] if desired is None else schema.model_errors(desired)
    found = [] if desired is None else list(schema.model_errors(desired))
    if schema.primary_identifier and schema.any_identifier_of(desired or {}) is None:
        names = ", ".join(p.rsplit("/", 1)[-1] for p in schema.primary_identifier)
        found.insert(
            0,
            (
                schema.primary_identifier[0].replace("/properties", "", 1),
                f"{action.value} needs the resource's identifier ({names}) in the desired state",
            ),
        )
    return found
