"""``example_inputs/``: examples, used only where the schema accepts them.

`cfn init` writes example_inputs/ for the example schema a project starts from (TPSCode, Title,
Memo ...), and `cfn test` reads inputs/ alone. cfn-debug reads example_inputs/ too when a project
has no inputs/, as ``run``'s events and as the scenarios' input. A set whose create model the
schema rejects (as input-valid judges a request: :func:`desired_state_errors`) is that example
left behind, or one older than the schema: not an input the user gives the handler. Its files
(create, update, invalid) are passed over with a note saying why, rather than sent: sent, they
made input-valid MUSTs (exit 1) that say nothing about the handler. inputs/ is the user's own and
is always sent as written.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from cfn_debug.contract.input_checks import desired_state_errors

EXAMPLES = "example_inputs"
_NAME = re.compile(r"^inputs_(\d+)_(create|update|invalid)\.json$")


def example_number(path: Path | None) -> int | None:
    """N of an ``example_inputs/inputs_N_*.json`` file, else None."""
    if path is None or path.parent.name != EXAMPLES:
        return None
    found = _NAME.match(path.name)
    return int(found.group(1)) if found else None


def rejected_example(path: Path, model: Any, schema: Any) -> str | None:
    """The note for an example_inputs create model the schema rejects, else None."""
    if example_number(path) is None or not path.name.endswith("_create.json"):
        return None
    errors = desired_state_errors(schema, model)
    if not errors:
        return None
    pointer, message = errors[0]
    number = example_number(path)
    return (
        f"{EXAMPLES}/inputs_{number}_*.json passed over: {path.name} is not valid against the "
        f"schema ({pointer or '/'}: {message}); `cfn init` writes example_inputs/ for its "
        "example schema and `cfn test` reads inputs/ only: put inputs that fit the schema there"
    )


def without_rejected_examples(events: list[Any], schema: Any) -> tuple[list[Any], list[str]]:
    """``events`` without the example_inputs/ sets whose create model ``schema`` rejects, and a
    note for each set passed over."""
    if schema is None:
        return events, []
    notes: dict[int, str] = {}
    for event in events:
        path = getattr(event, "path", None)
        number = example_number(path)
        if number is None or number in notes:
            continue
        note = rejected_example(path, event.normalized.desired, schema)
        if note is not None:
            notes[number] = note
    kept = [e for e in events if example_number(getattr(e, "path", None)) not in notes]
    return kept, [notes[n] for n in sorted(notes)]
