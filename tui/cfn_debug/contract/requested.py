"""Compare what a request asked for with a model a handler returned or read back."""

from __future__ import annotations

import json
from typing import Any

from cfn_debug.diff import Encodings, diff_models
from cfn_debug.records import ChangeKind
from cfn_debug.schema import ResourceSchema, join_pointer, resolve_pointer, split_pointer


def short(value: Any, limit: int = 120) -> str:
    """A value as JSON, cut to ``limit`` characters, for a finding's message."""
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def requested_differences(
    expected: dict[str, Any],
    actual: dict[str, Any],
    schema: ResourceSchema | None,
    *,
    verb: str = "returned",
    encodings: Encodings | None = None,
) -> list[tuple[str, str]]:
    """(model pointer, text) for every requested value ``actual`` does not hold, equal.

    ``expected`` is the request with the properties the caller exempts already dropped. Extra
    properties in ``actual`` are fine; arrays are compared whole (an extra element is reported,
    at the array's pointer), insertionOrder-false arrays as multisets. A requested empty array
    or object left out is no difference: the contract forbids returning properties without
    values, and cloudformation-cli-python-lib turns [] and {} into None before a Python handler
    sees them. ``encodings``: shared with the step's other diffs (see diff.Encodings).
    """
    problems: list[tuple[str, str]] = []
    for change in diff_models(expected, actual, schema, encodings=encodings):
        tokens = split_pointer(change.pointer)
        parent = join_pointer("", *tokens[:-1])
        in_array = isinstance(resolve_pointer(actual, parent), list) or isinstance(
            resolve_pointer(expected, parent), list
        )
        if change.kind is ChangeKind.ADDED and not in_array:
            continue  # a property the request did not set: allowed
        if change.kind is ChangeKind.REMOVED and not in_array:
            if change.before in ([], {}):
                continue
            text = f"requested {change.pointer} = {short(change.before)} is missing"
        elif change.kind is ChangeKind.REMOVED:
            text = f"requested element {short(change.before)} of {parent} is missing"
        elif change.kind is ChangeKind.ADDED:
            text = f"element {short(change.after)} of {parent} was not requested"
        else:
            text = (
                f"requested {change.pointer} = {short(change.before)}, {verb} {short(change.after)}"
            )
        if change.note:
            text += f" ({change.note})"
        problems.append((parent if in_array else change.pointer, text))
    return problems
