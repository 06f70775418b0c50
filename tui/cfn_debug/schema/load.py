"""Reading a resource schema file and building its model, with self-validation."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from cfn_debug.errors import SchemaError
from cfn_debug.filesafe import read_text
from cfn_debug.schema.meta import MAX_SCHEMA_DEPTH, _meta_schema_notes, _nesting_depth
from cfn_debug.schema.model import POINTER_LISTS, TYPE_NAME_PATTERN, ResourceSchema
from cfn_debug.schema.notes import SchemaNote
from cfn_debug.schema.slips import cycle_message, without_ref_cycles
from cfn_debug.text.jsondigits import TOO_MANY_DIGITS, is_digit_limit

# --- loading and self-validation ----------------------------------------------------------------


def load_schema(path: Path, *, strict: bool = True) -> ResourceSchema:
    """Read, parse and validate a resource schema file (``strict``: see schema_from_dict)."""
    path = Path(path)
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise SchemaError("no such file", path=path) from None
    except (OSError, UnicodeDecodeError) as error:
        raise SchemaError(f"cannot be read: {error}", path=path) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise SchemaError(
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}",
            path=path,
        ) from None
    except ValueError as error:
        if not is_digit_limit(error):
            raise
        raise SchemaError(TOO_MANY_DIGITS, path=path) from None
    except RecursionError:
        raise SchemaError("nested too deep to read as JSON", path=path) from None
    return schema_from_dict(data, path=path, strict=strict)


def schema_from_dict(data: Any, *, path: Path | None = None, strict: bool = True) -> ResourceSchema:
    """Validate a parsed resource schema and build its model.

    Checks, in order: a JSON object; typeName; properties; primaryIdentifier present; every
    pointer list resolvable; then, where the cloudformation-cli package (``rpdk.core``) is
    installed, the provider definition meta-schema ``cfn validate`` uses. What does not stop
    cfn-debug from using the schema (a meta-schema mismatch, a dangling pointer outside
    primaryIdentifier, a pattern no engine compiles) goes into :attr:`ResourceSchema.notes`.
    ``strict=False`` (``cfn-debug schema``) also loads a schema without a usable
    primaryIdentifier, with an error note, where a run refuses it.
    """
    if not isinstance(data, dict):
        raise SchemaError(
            f"expected a JSON object (a resource schema), got {type(data).__name__}", path=path
        )
    type_name = data.get("typeName")
    if not isinstance(type_name, str) or not TYPE_NAME_PATTERN.match(type_name):
        raise SchemaError(
            f"expected a type name like 'Organization::Service::Resource' matching "
            f"{TYPE_NAME_PATTERN.pattern}, got {type_name!r}",
            path=path,
            field="typeName",
        )
    if not isinstance(data.get("properties"), dict) or not data["properties"]:
        raise SchemaError(
            "expected an object of property definitions", path=path, field="properties"
        )
    primary = data.get("primaryIdentifier")
    missing_primary = not isinstance(primary, list) or not primary
    if missing_primary and not strict:
        data = {**data, "primaryIdentifier": []}
    elif missing_primary:
        raise SchemaError(
            "missing: expected a non-empty list of pointers such as ['/properties/Id']",
            path=path,
            field="primaryIdentifier",
        )
    for keyword in POINTER_LISTS:
        if keyword in data and not isinstance(data[keyword], list):
            raise SchemaError("expected a list of pointers", path=path, field=keyword)
    additional = data.get("additionalIdentifiers", [])
    if not isinstance(additional, list) or not all(isinstance(g, list) for g in additional):
        raise SchemaError(
            "expected a list of lists of pointers, e.g. [['/properties/Arn']]",
            path=path,
            field="additionalIdentifiers",
        )
    handlers = data.get("handlers", {})
    if not isinstance(handlers, dict):
        raise SchemaError("expected an object keyed by action", path=path, field="handlers")

    data, cycles = without_ref_cycles(data)
    depth = _nesting_depth(data)
    if depth > MAX_SCHEMA_DEPTH:
        raise SchemaError(
            f"nested {depth} levels deep: expected at most {MAX_SCHEMA_DEPTH} levels of JSON "
            "(a real resource schema nests a few dozen at most)",
            path=path,
            field="properties",
        )
    try:
        schema = ResourceSchema(data, path=path, strict=strict)
        if missing_primary:
            schema.notes.insert(
                0,
                SchemaNote(
                    "/primaryIdentifier",
                    "error",
                    "missing: expected a non-empty list of pointers such as ['/properties/Id'] "
                    "(cfn-debug cannot run handlers against this schema)",
                ),
            )
        schema.notes.extend(_meta_schema_notes(data))
        schema.notes.extend(SchemaNote(p, "warning", cycle_message(c)) for p, c in cycles)
    except RecursionError:
        raise SchemaError(
            "nested too deep: expected property definitions a validator can walk "
            f"(at most about {sys.getrecursionlimit() // 8} levels)",
            path=path,
            field="properties",
        ) from None
    return schema
