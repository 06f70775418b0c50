"""`cfn-debug export JOURNAL --format json|md|html|junit [--output FILE] [--schema FILE]
[--reveal-write-only]`: write a session journal (or a saved JSON transcript) in another form."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from cfn_debug.crash import one_line
from cfn_debug.errors import CfnDebugError, ExitCode
from cfn_debug.export.formats import FORMATS, export_session
from cfn_debug.export.json import load_session
from cfn_debug.export.source import runs_and_meta
from cfn_debug.hooks.project import is_hook_project
from cfn_debug.project import find_schema, read_settings
from cfn_debug.schema import load_schema

#: What _schema_path says for a hook's session: no writeOnly property to mask, nothing to warn.
HOOK_PROJECT = Path("-hook-")


def _schema_path(schema_arg: str | None, meta: dict[str, Any]) -> Path | None:
    """--schema, else the schema of the project the session ran (when it is still there)."""
    if schema_arg:
        return Path(schema_arg)
    project = meta.get("project")
    if not isinstance(project, str) or not project:
        return None
    root = Path(project)
    if not root.is_dir():
        return None

    settings = read_settings(root)
    type_name = settings.get("typeName")
    found = find_schema(root, type_name if isinstance(type_name, str) else None)

    if is_hook_project(settings, found):  # a hook's schema has no writeOnly properties
        return HOOK_PROJECT
    return found


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `cfn-debug export`."""
    parser.add_argument(
        "journal", metavar="JOURNAL", help="session journal (.jsonl) or JSON transcript"
    )
    parser.add_argument(
        "--format", choices=("json", "md", "html", "junit"), default="json", help="output format"
    )
    parser.add_argument(
        "--output", "-o", metavar="FILE", help="write here (default: standard output)"
    )
    parser.add_argument("--schema", metavar="FILE", help="schema whose writeOnly values to mask")
    parser.add_argument(
        "--reveal-write-only", action="store_true", help="do not mask writeOnly property values"
    )


def export_command(args: argparse.Namespace) -> int:
    source = Path(args.journal)
    fmt: str = args.format
    if fmt not in FORMATS:
        raise CfnDebugError(f"--format: expected one of {', '.join(FORMATS)}, got {fmt!r}")
    session = load_session(source)
    _runs, meta = runs_and_meta(session)

    for problem in getattr(session, "problems", []):
        print(f"cfn-debug: warning: {one_line(problem)}", file=sys.stderr)
    reveal: bool = bool(args.reveal_write_only)
    schema_path = _schema_path(args.schema, meta)
    write_only: tuple[str, ...] = ()
    if schema_path == HOOK_PROJECT:
        pass
    elif schema_path is not None:
        write_only = tuple(sorted(load_schema(schema_path).write_only))
    elif not reveal:
        print(
            "cfn-debug: warning: no schema (give --schema FILE): writeOnly property values "
            "cannot be recognised and are not masked; credentials are redacted regardless",
            file=sys.stderr,
        )
    options: dict[str, Any] = {"write_only": write_only, "reveal_write_only": reveal}

    if not args.output or args.output == "-":
        # A reader that goes away (`| head`) is handled by cfn_debug.cli for every command.
        _export(session, fmt, sys.stdout, source, options)
        sys.stdout.flush()
        return ExitCode.OK

    target = Path(args.output)
    # Write beside the target and rename, so a failed export never leaves half a file behind.
    try:
        handle, temp = tempfile.mkstemp(
            prefix=f".{target.name}.",
            suffix=".tmp",
            dir=target.parent if str(target.parent) else ".",
        )
    except OSError as error:
        raise CfnDebugError(
            f"cannot write here: {error.strerror}", path=target, field="--output"
        ) from None
    try:
        os.chmod(temp, 0o644)
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            _export(session, fmt, out, source, options)
        os.replace(temp, target)
    except OSError as error:
        raise CfnDebugError(
            f"cannot write the export: {error.strerror}", path=target, field="--output"
        ) from None
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
    return ExitCode.OK


def _export(session: Any, fmt: str, out: Any, source: Path, options: dict[str, Any]) -> None:
    """``export_session``; a session nested deeper than the writers can walk (a hand-made
    transcript: the engine records nothing that deep) is a one-line error naming the file."""
    try:
        export_session(session, fmt, out, **options)
    except RecursionError:
        raise CfnDebugError(
            "expected steps nested at most a few hundred levels deep: a step in this session "
            "nests deeper than cfn-debug can export (and deeper than it ever records)",
            path=source,
        ) from None
