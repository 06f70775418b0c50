"""Validation messages that name the constraint they break.

jsonschema says ``'My report' is too short``; a finding should say which limit it is short of:
``'My report' is shorter than minLength 10``. The limit is read from the schema at the
value's pointer; where it cannot be found, the message stays as it was."""

from __future__ import annotations

from typing import Any

from cfn_debug.schema import MISSING, ResourceSchema, resolve_pointer

#: jsonschema's ending -> (keyword by JSON type, wording)
_ENDINGS: dict[str, tuple[dict[type, str], str]] = {
    " is too short": (
        {str: "minLength", list: "minItems", dict: "minProperties"},
        "is shorter than",
    ),
    " should be non-empty": (
        {str: "minLength", list: "minItems", dict: "minProperties"},
        "is shorter than",
    ),
    " is too long": (
        {str: "maxLength", list: "maxItems", dict: "maxProperties"},
        "is longer than",
    ),
    " is expected to be empty": (
        {str: "maxLength", list: "maxItems", dict: "maxProperties"},
        "is longer than",
    ),
    " does not have enough properties": ({dict: "minProperties"}, "has fewer properties than"),
    " has too many properties": ({dict: "maxProperties"}, "has more properties than"),
}
_WORDING_BY_KIND = {list: ("has fewer items than", "has more items than")}


#: what a message says instead of a writeOnly value
WRITE_ONLY_VALUE = "the writeOnly value"


def is_write_only(schema: ResourceSchema, pointer: str) -> bool:
    """Is the value at this model pointer (or a parent of it) writeOnly?"""
    if not pointer or not schema.write_only:
        return False
    try:
        pattern = schema.pattern_of(pointer)
    except Exception:
        return False
    return any(pattern == w or pattern.startswith(w + "/") for w in schema.write_only)


def with_constraint(schema: ResourceSchema, model: Any, pointer: str, message: str) -> str:
    """``message`` about the value at ``pointer`` in ``model``, with the limit it breaks; a
    writeOnly value is not quoted (the request holds it; outputs mask it there)."""
    message = _named(schema, model, pointer, message)
    if is_write_only(schema, pointer):
        value = resolve_pointer(model, pointer)
        quoted = repr(value)
        if value is not MISSING and message.startswith(quoted):
            message = WRITE_ONLY_VALUE + message[len(quoted) :]
    return message


def _named(schema: ResourceSchema, model: Any, pointer: str, message: str) -> str:
    for ending, (keywords, wording) in _ENDINGS.items():
        if not message.endswith(ending):
            continue
        value = resolve_pointer(model, pointer) if pointer else model
        if value is MISSING:
            return message
        keyword = next((k for t, k in keywords.items() if isinstance(value, t)), None)
        if keyword is None:
            return message
        limit = _limit(schema, pointer, keyword)
        if limit is None:
            return message
        if isinstance(value, list) and wording in ("is shorter than", "is longer than"):
            wording = _WORDING_BY_KIND[list][0 if wording == "is shorter than" else 1]
        return f"{message[: -len(ending)]} {wording} {keyword} {limit}"
    return message


def _limit(schema: ResourceSchema, pointer: str, keyword: str) -> Any:
    try:
        subschemas = schema.subschemas(schema.pattern_of(pointer)) if pointer else [schema.raw]
    except Exception:  # an odd pointer: keep jsonschema's words
        return None
    for sub in subschemas:
        limit = sub.get(keyword)
        if isinstance(limit, int) and not isinstance(limit, bool):
            return limit
    return None
