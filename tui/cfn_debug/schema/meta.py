"""The provider definition meta-schema layer of schema loading, and the nesting-depth limit."""

from __future__ import annotations

import json
import warnings
from functools import cache
from pathlib import Path
from typing import Any

from cfn_debug.schema.notes import SchemaNote
from cfn_debug.schema.pointers import join_pointer

#: Deeper schemas are refused before any recursive walk (ours, jsonschema's, rpdk's) meets them.
MAX_SCHEMA_DEPTH = 200


def _nesting_depth(data: Any) -> int:
    """How many objects and arrays deep ``data`` goes, without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_SCHEMA_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def _meta_schema_notes(data: dict[str, Any]) -> list[SchemaNote]:
    """Where the schema departs from the provider definition meta-schema (rpdk's), one note
    per departure; nothing without rpdk.

    Warnings, not refusals: the layer exists only where rpdk is installed, and published AWS
    schemas depart from it in ways that do not matter to cfn-debug.
    """
    validator = _meta_validator()
    if validator is None:
        return []
    quick = _meta_fast_check()
    if quick is not None and quick(data):
        return []
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    return [
        SchemaNote(
            join_pointer("", *e.absolute_path),
            "warning",
            f"does not match the resource provider definition meta-schema: {_short(e.message)}",
        )
        for e in errors
    ]


def _short(message: str) -> str:
    return message if len(message) <= 120 else message[:117] + "..."


@cache
def _meta_fast_check() -> Any:
    """The provider definition meta-schema compiled by fastjsonschema: True only for a schema
    with nothing to report (rpdk's jsonschema validator, some 25x slower on the AWS schemas,
    then lists what is wrong). Its references resolve to rpdk's own files and the Draft 7
    meta-schema jsonschema ships, never to the network. None where it cannot be built."""
    try:
        import fastjsonschema
        import rpdk.core.data_loaders as loaders
        from jsonschema_specifications import REGISTRY
    except ImportError:
        return None
    root = Path(loaders.__file__).parent / "data" / "schema"

    def local(uri: str) -> Any:
        if "json-schema.org" in uri:
            return REGISTRY.contents("http://json-schema.org/draft-07/schema")
        name = uri.split("#")[0].rsplit("/", 1)[-1]
        return json.loads((root / name).read_text(encoding="utf-8"))

    try:
        meta = json.loads((root / "provider.definition.schema.v1.json").read_text("utf-8"))
        validate = fastjsonschema.compile(
            meta, handlers={"https": local, "http": local}, use_formats=False, use_default=False
        )
    except Exception:  # an rpdk layout we do not know: the jsonschema validator alone
        return None

    def check(data: Any) -> bool:
        try:
            validate(data)
        except Exception:
            return False
        return True

    return check


@cache
def _meta_validator() -> Any:
    """rpdk's own validator for the provider definition meta-schema, or None without rpdk."""
    try:
        with warnings.catch_warnings():  # rpdk imports names jsonschema has deprecated
            warnings.simplefilter("ignore", DeprecationWarning)
            from rpdk.core.data_loaders import make_resource_validator
    except ImportError:
        return None
    try:
        return make_resource_validator()
    except Exception:  # a broken rpdk install must not stop cfn-debug: skip this layer
        return None
