"""The editors' work: validating an edited event (the engine's event rules, then the schema's
for the event's action), applying it, reading the file again after $EDITOR; with what the main
screen opens an editor with (``JsonEditor``, ``redact`` for what it shows, ``context_problems``
for a callbackContext). The engine the dashboard loads once the project opens
(``cfn_debug.app.engine``) imports it."""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import TYPE_CHECKING, Any

from cfn_debug.app.editing import context_problems, restore_redacted
from cfn_debug.app.screens.json_editor import JsonEditor
from cfn_debug.errors import CfnDebugError
from cfn_debug.event_checks import model_problems
from cfn_debug.events import load_event, parse_event
from cfn_debug.text.redact import redact

__all__ = [
    "JsonEditor",
    "apply_edit",
    "context_problems",
    "event_problems",
    "redact",
    "reload",
    "run_editor",
]

if TYPE_CHECKING:
    from textual.app import App

    from cfn_debug.events import EventSpec
    from cfn_debug.schema import ResourceSchema


def event_problems(
    spec: EventSpec | None, schema: ResourceSchema | None, data: Any
) -> list[tuple[str, str]]:
    """Validate an edited event: its shape (engine rules), then its model (schema)."""
    try:
        parsed = parse_event(data, name=spec.name if spec else "edited", path=None)
    except CfnDebugError as error:
        return [(error.field or "", error.detail)]
    if schema is None:
        return []
    problems = model_problems(schema, parsed.action, parsed.normalized.desired)
    return [(f"desiredResourceState{pointer}", text) for pointer, text in problems]


def apply_edit(original: EventSpec, value: Any) -> EventSpec:
    """The edited event (the credentials the editor showed redacted put back). Raises
    CfnDebugError when it is no event."""
    return parse_event(
        restore_redacted(value, original.data), name=original.name, path=original.path
    )


def reload(original: EventSpec, exports: Any) -> EventSpec:
    """The event file again. Raises CfnDebugError."""
    assert original.path is not None
    return load_event(original.path, name=original.name, exports=exports)


def run_editor(app: App[Any], spec: EventSpec) -> str | None:
    """Hand the terminal to $VISUAL/$EDITOR on the event's file; the error when it could not."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        with app.suspend():
            subprocess.run([*shlex.split(editor), str(spec.path)], check=False)
    except Exception as error:  # no terminal to hand over (tests, web) or no such editor
        return f"Could not open $EDITOR ({editor}): {error}"
    return None
