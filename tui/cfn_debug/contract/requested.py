"""Compare what a request asked for with a model a handler returned or read back."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

from cfn_debug.diff import Encodings, diff_models
from cfn_debug.records import ChangeKind
from cfn_debug.schema import (
    MISSING,
    ResourceSchema,
    expand_pattern,
    join_pointer,
    resolve_pointer,
    split_pointer,
)


def short(value: Any, limit: int = 120) -> str:
    """A value as JSON, cut to ``limit`` characters, for a finding's message (a value nested
    deeper than the JSON encoder follows is shown as its type's brackets around "...")."""
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    except RecursionError:
        text = "{...}" if isinstance(value, dict) else "[...]" if isinstance(value, list) else "..."
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
        elif schema is not None and _sent_as_string(
            schema, change.pointer, change.before, change.after
        ):
            continue  # "6" requested, 6 returned: CloudFormation's string, the library's recast
        else:
            text = (
                f"requested {change.pointer} = {short(change.before)}, {verb} {short(change.after)}"
            )
        if change.note:
            text += f" ({change.note})"
        problems.append((parent if in_array else change.pointer, text))
    return problems


_INTEGER = re.compile(r"^-?[0-9]+$")


def as_answered(schema: ResourceSchema | None, progress: Any, model: Any) -> Any:
    """``model`` as CloudFormation reads the answer it came in. The Go plugin writes every
    scalar of a model as a string (its encoding.Stringify: an integer 3 comes back as "3") and
    CloudFormation reads them back as the schema's types; its answers, alone among the
    plugins', carry the request's bearerToken. Any other answer's model is taken as it is."""
    if schema is None or not isinstance(model, dict):
        return model
    if not isinstance(progress, dict) or "bearerToken" not in progress:
        return model
    return typed_as_sent(schema, model)


def typed_as_sent(schema: ResourceSchema, value: Any, pointer: str = "") -> Any:
    """``value`` with every string where the schema wants an integer, number or boolean, and
    that reads as one ("6", "2.5", "false"), turned into it: CloudFormation sends every
    primitive as a string and cloudformation-cli-python-lib recasts them to the model's types,
    so such a request is what a handler really gets, not an invalid one."""
    if isinstance(value, dict):
        return {k: typed_as_sent(schema, v, join_pointer(pointer, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [typed_as_sent(schema, v, join_pointer(pointer, i)) for i, v in enumerate(value)]
    if not isinstance(value, str) or not pointer:
        return value
    types: set[str] = set()
    for sub in schema.subschemas(pointer):
        kind = sub.get("type")
        types.update([kind] if isinstance(kind, str) else kind if isinstance(kind, list) else [])
    if not types or "string" in types:
        return value
    if "boolean" in types and value in ("true", "false"):
        return value == "true"
    if types & {"integer", "number"} and _INTEGER.match(value):
        return int(value)
    if "number" in types:
        try:
            number = float(value)
        except ValueError:
            return value
        return number if math.isfinite(number) else value
    return value


def _sent_as_string(schema: ResourceSchema, pointer: str, before: Any, after: Any) -> bool:
    """Whether ``before``, a string, is how CloudFormation sends the value ``after``."""
    if not isinstance(before, str) or isinstance(after, str):
        return False
    typed = typed_as_sent(schema, before, pointer)
    if isinstance(typed, bool) or isinstance(after, bool):
        return isinstance(typed, bool) and isinstance(after, bool) and typed == after
    return isinstance(typed, (int, float)) and isinstance(after, (int, float)) and typed == after


def comparable_request(
    schema: ResourceSchema, model: dict[str, Any], *, also: Iterable[str] = ()
) -> dict[str, Any]:
    """``model`` (a request's desired state) without what no returned or read model need hold
    as requested: its writeOnly values (never returned) and its readOnly ones (the request
    cannot set them: they are the handler's, and may change with every update), nor the values
    the patterns ``also`` match. ``model`` is not changed (see :func:`drop_patterns`)."""
    return drop_patterns(model, {*schema.write_only, *schema.read_only, *also})


def drop_patterns(model: dict[str, Any], patterns: Iterable[str]) -> dict[str, Any]:
    """``model`` without the values the patterns match (deepest first).

    ``model`` itself is never changed: the objects and arrays on the way to a removed value are
    copied (shallowly), everything else is shared; with nothing to remove, ``model`` is returned.
    """
    matches = [p for pattern in patterns for p, _ in expand_pattern(model, pattern)]
    if not matches:
        return model
    result = dict(model)
    copied = {id(result)}
    for pointer in sorted(matches, key=removal_order, reverse=True):
        tokens = split_pointer(pointer)
        parent: Any = result
        for token in tokens[:-1]:
            if isinstance(parent, dict) and token in parent:
                key: str | int = token
            elif isinstance(parent, list) and token.isdigit() and int(token) < len(parent):
                key = int(token)
            else:
                parent = MISSING
                break
            child = parent[key]  # type: ignore[index]
            if isinstance(child, dict | list) and id(child) not in copied:
                child = dict(child) if isinstance(child, dict) else list(child)
                parent[key] = child  # type: ignore[index]
                copied.add(id(child))
            parent = child
        if isinstance(parent, dict):
            parent.pop(tokens[-1], None)
        elif isinstance(parent, list) and tokens[-1].isdigit():
            del parent[int(tokens[-1])]
    return result


def removal_order(pointer: str) -> list[tuple[int, int | str]]:
    """Deeper pointers and higher indices sort last, so reversed they are removed first."""
    return [(0, int(t)) if t.isdigit() else (1, t) for t in split_pointer(pointer)]


def transformed_properties(schema: ResourceSchema) -> set[str]:
    """The model pointers of the properties the schema's propertyTransform names."""
    transform = schema.raw.get("propertyTransform")
    if not isinstance(transform, dict):
        return set()
    out = set()
    for key in transform:
        tokens = split_pointer(key) if isinstance(key, str) and key.startswith("/") else []
        if tokens[:1] == ["properties"] and len(tokens) > 1:
            out.add(join_pointer("", *tokens[1:]))
    return out
