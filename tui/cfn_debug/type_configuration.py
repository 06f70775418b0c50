"""The type configuration a request carries: --type-configuration (a JSON object, or a file
holding one) with --fault NAME merged in (short for {"Fault": NAME}, the bundled demo's switch),
checked against the schema's typeConfiguration definition before anything runs."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator
from referencing.exceptions import Unresolvable

from cfn_debug.errors import CfnDebugError, EventError
from cfn_debug.filesafe import read_json


def type_configuration(args: argparse.Namespace, schema: Any) -> dict[str, Any] | None:
    """--type-configuration (JSON text or a file) with --fault merged in; checked against the
    schema's typeConfiguration when it has one."""
    config: dict[str, Any] | None = None
    given = getattr(args, "type_configuration", None)
    if given:
        source: Path | None = Path(given) if _names_a_file(given) else None
        if source is not None:
            loaded = read_json(source)
        else:
            try:
                loaded = json.loads(given)
            except json.JSONDecodeError as exc:
                raise CfnDebugError(
                    f"expected a JSON object or a file holding one; not JSON at column "
                    f"{exc.colno}: {exc.msg}",
                    field="--type-configuration",
                ) from None
            except (ValueError, RecursionError):  # an integer over the digit limit; too deep
                raise CfnDebugError(
                    "expected a JSON object of plain values (integers of at most 4,300 digits, "
                    "nested at most a few hundred levels)",
                    field="--type-configuration",
                ) from None
        if not isinstance(loaded, dict):
            raise EventError(
                'expected a JSON object, e.g. {"Fault": "ReadInProgress"}',
                path=source,
                field="--type-configuration",
            )
        config = loaded
    if getattr(args, "fault", None):
        config = {**(config or {}), "Fault": args.fault}
    definition = schema.raw.get("typeConfiguration") if schema is not None else None
    if config is not None and isinstance(definition, dict):
        validator = Draft7Validator(_with_definitions(definition, schema.raw))
        try:
            errors = sorted(validator.iter_errors(config), key=lambda e: e.path)
        except Unresolvable as error:  # a $ref the schema does not hold: the schema's fault
            raise CfnDebugError(
                f"its typeConfiguration refers to what it does not define ({error})"[:300],
                path=schema.path,
                field="typeConfiguration",
            ) from None
        if errors:
            first = errors[0]
            where = "/".join(str(p) for p in first.absolute_path)
            option = "--fault" if where == "Fault" and getattr(args, "fault", None) else None
            raise CfnDebugError(
                f"not a valid type configuration for {schema.type_name}"
                + (f" at {where}" if where else "")
                + f": {first.message}",
                path=schema.path,
                field=option or "--type-configuration",
            )
    return config


def _with_definitions(definition: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    """``definition`` with the schema's ``definitions`` beside its own: its ``$ref``s
    (``#/definitions/Credentials``) name the resource schema's, as `cfn generate` reads them."""
    shared = raw.get("definitions")
    if not isinstance(shared, dict):
        return definition
    own = definition.get("definitions")
    return {**definition, "definitions": {**shared, **(own if isinstance(own, dict) else {})}}


def _names_a_file(given: str) -> bool:
    """Whether --type-configuration names an existing file (a long JSON text is no file name)."""
    try:
        return Path(given).is_file()
    except (OSError, ValueError):  # too long for a file name; a NUL in it
        return False
