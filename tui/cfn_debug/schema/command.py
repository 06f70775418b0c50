"""``cfn-debug schema SCHEMA... [--json]``: resource schemas as cfn-debug reads them.

Each file is loaded the way a run loads it (JSON, typeName, properties, identifiers, pointer
lists, ``$ref`` resolution, the provider definition meta-schema where rpdk is installed), its
patterns compiled with the ECMA-262 engines, its insertionOrder arrays and handler timeouts
looked at; one line per problem: ``file: pointer: level: message``.

Levels: ``error`` (cfn-debug cannot use the schema as written: unreadable, no typeName or
properties, no usable primaryIdentifier), ``warning`` (cfn-debug works around it: a dangling
pointer, a pattern no engine compiles, a meta-schema departure, an odd timeout) and ``note``.
Exit 1 when any file has an error, 2 on usage or when a file cannot be read as JSON, else 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfn_debug.errors import ExitCode, SchemaError
from cfn_debug.filesafe import read_json
from cfn_debug.hooks.schema import hook_schema_problems, looks_like_hook_schema
from cfn_debug.schema import ResourceSchema, SchemaNote, join_pointer, schema_from_dict
from cfn_debug.schema.slips import slips
from cfn_debug.text.terminal import one_line, terminal_json

#: Handler timeouts CloudFormation accepts for timeoutInMinutes (the meta-schema's bounds).
TIMEOUT_RANGE = (2, 2160)


@dataclass
class SchemaReport:
    """What ``cfn-debug schema`` found in one file."""

    path: Path
    loaded: bool
    type_name: str | None = None
    unreadable: bool = False  # not a JSON file at all (missing, not UTF-8, not JSON): exit 2
    notes: list[SchemaNote] = field(default_factory=list)

    @property
    def has_error(self) -> bool:
        return any(note.level == "error" for note in self.notes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": str(self.path),
            "typeName": self.type_name,
            "loaded": self.loaded,
            "problems": [
                {"pointer": n.pointer, "level": n.level, "message": n.message} for n in self.notes
            ],
        }


def check_schema_file(path: Path) -> SchemaReport:
    """Load one schema leniently and list its problems; never raises for a bad file."""
    try:
        data = read_json(path, SchemaError)
    except SchemaError as error:
        note = SchemaNote("", "error", error.detail)
        return SchemaReport(path, False, notes=[note], unreadable=True)

    if looks_like_hook_schema(data):  # a hook's schema (cfn_debug.hooks)
        type_name, problems = hook_schema_problems(data, path)
        notes = [SchemaNote(pointer, level, message) for pointer, level, message in problems]
        return SchemaReport(path, type_name is not None, type_name, notes=notes)
    try:
        schema = schema_from_dict(data, path=path, strict=False)
    except SchemaError as error:
        pointer = error.field or ""
        if pointer and not pointer.startswith("/"):
            pointer = "/" + pointer
        return SchemaReport(path, False, notes=[SchemaNote(pointer, "error", error.detail)])
    except RecursionError:
        note = SchemaNote("", "error", "nested too deep for cfn-debug to walk")
        return SchemaReport(path, False, notes=[note])

    notes = list(schema.notes)
    notes.extend(SchemaNote(*slip) for slip in slips(data) if slip[1] != "error")
    notes.extend(_handler_notes(schema))
    notes.extend(_insertion_order_notes(schema))
    notes.extend(_compile_notes(schema))
    return SchemaReport(path, True, schema.type_name, notes=_unique(notes))


def _unique(notes: list[SchemaNote]) -> list[SchemaNote]:
    seen: set[SchemaNote] = set()
    out = []
    for note in notes:
        if note not in seen:
            seen.add(note)
            out.append(note)
    return out


def _handler_notes(schema: ResourceSchema) -> list[SchemaNote]:
    handlers = schema.raw.get("handlers")
    if not isinstance(handlers, dict):
        return []
    out: list[SchemaNote] = []
    low, high = TIMEOUT_RANGE
    for action, handler in handlers.items():
        where = join_pointer("/handlers", action)
        if action not in ("create", "read", "update", "delete", "list"):
            out.append(SchemaNote(where, "warning", f"unknown handler {action!r}: ignored"))
            continue
        if not isinstance(handler, dict):
            out.append(SchemaNote(where, "warning", "expected an object with permissions"))
            continue
        minutes = handler.get("timeoutInMinutes")
        if minutes is None:
            continue
        pointer = join_pointer(where, "timeoutInMinutes")
        if isinstance(minutes, bool) or not isinstance(minutes, int | float):
            message = f"expected a number of minutes, got {minutes!r}: the 120-minute default"
            out.append(SchemaNote(pointer, "warning", message + " applies"))
        elif not low <= minutes <= high:
            out.append(
                SchemaNote(
                    pointer,
                    "warning",
                    f"{minutes} minutes is outside the {low}..{high} CloudFormation accepts",
                )
            )
    return out


def _insertion_order_notes(schema: ResourceSchema) -> list[SchemaNote]:
    """insertionOrder set to something other than a boolean, or on a non-array."""
    out: list[SchemaNote] = []
    stack: list[tuple[Any, str]] = [(schema.raw, "")]
    while stack:
        node, pointer = stack.pop()
        if isinstance(node, list):
            stack.extend((v, join_pointer(pointer, i)) for i, v in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        if "insertionOrder" in node:
            value = node["insertionOrder"]
            where = join_pointer(pointer, "insertionOrder")
            if not isinstance(value, bool):
                out.append(
                    SchemaNote(where, "warning", f"expected true or false, got {value!r}: ignored")
                )
            elif node.get("type") not in (None, "array") and "items" not in node:
                out.append(
                    SchemaNote(where, "note", f"on a {node.get('type')!r}, not an array: ignored")
                )
        stack.extend(
            (v, join_pointer(pointer, k)) for k, v in node.items() if k != "insertionOrder"
        )
    out.sort(key=lambda n: n.pointer)
    return out


def _compile_notes(schema: ResourceSchema) -> list[SchemaNote]:
    """Build the jsonschema validators a run builds (with the ECMA pattern keywords) and use
    them once, so a schema that breaks them shows here. (The compiled fast checks are left
    out: they fall back to these validators whenever they cannot be built.)"""
    try:
        schema.slow_model_errors({})
        schema.slow_input_errors({})
    except Exception as error:  # a bug in cfn-debug: said, not raised (exit 2 via the caller)
        return [SchemaNote("", "error", f"cfn-debug cannot validate against it: {error!r}")]
    return []


def schema_warning_lines(schema: ResourceSchema) -> list[str]:
    """What a run says once about its schema before the first step: each warning and error
    note, and the meta-schema departures as one count (``cfn-debug schema`` lists them)."""
    where = schema.path if schema.path is not None else schema.type_name
    lines: list[str] = []
    departures = 0
    for note in schema.notes:
        if note.level == "note":
            continue
        if "meta-schema" in note.message:
            departures += 1
            continue
        lines.append(f"schema {note.level}: {where}: {note.pointer or '/'}: {note.message}")
    if departures:
        lines.append(
            f"schema warning: {where}: {departures} departure(s) from the resource provider "
            f"definition meta-schema (cfn-debug schema {where} lists them)"
        )
    # Names, pointers and the file's path come from the schema file: never raw on a terminal.
    return [one_line(line) for line in lines]


def format_line(report: SchemaReport, note: SchemaNote) -> str:
    """One line per note; what came from the file (its path, names, pointers) made printable."""
    return one_line(f"{report.path}: {note.pointer or '/'}: {note.level}: {note.message}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `cfn-debug schema`."""
    parser.add_argument("schemas", nargs="+", metavar="SCHEMA", help="resource schema file(s)")
    parser.add_argument("--json", action="store_true", help="print the problems as JSON")


def schema_command(args: argparse.Namespace) -> int:
    paths = [Path(p) for p in args.schemas]
    reports = [check_schema_file(p) for p in paths]
    if args.json:
        document = {
            "schemas": [r.to_dict() for r in reports],
            # as every --json document of cfn-debug: what went wrong, one line each
            "errors": [format_line(r, n) for r in reports for n in r.notes if n.level == "error"],
        }
        sys.stdout.write(terminal_json(json.dumps(document, indent=2, ensure_ascii=False)) + "\n")
    else:
        for report in reports:
            for note in report.notes:
                print(format_line(report, note))
        counts: dict[str, int] = {}
        for report in reports:
            for note in report.notes:
                counts[note.level] = counts.get(note.level, 0) + 1
        summary = ", ".join(f"{counts.get(k, 0)} {k}s" for k in ("error", "warning", "note"))
        print(f"{len(reports)} schema(s) checked: {summary}", file=sys.stderr)
    if any(r.unreadable for r in reports):
        return ExitCode.ERROR
    return ExitCode.FINDINGS if any(r.has_error for r in reports) else ExitCode.OK
