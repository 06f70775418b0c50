"""`cfn-debug run`: run events as chains without the dashboard, for terminals and CI.

Exit status: 0 when no MUST finding, 1 when any, 2 for usage or infrastructure errors (an endpoint
that cannot be used, a malformed event, a broken schema). With ``--watch`` it runs until Ctrl-C and
exits 130.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from cfn_debug import __version__
from cfn_debug.aws.target import no_aws_note
from cfn_debug.chain import INTERNAL_ERROR_RULE
from cfn_debug.chain_end import inconclusive_runs
from cfn_debug.console import (
    ConsolePrinter,
    MaskedPrinter,
    OutputMasker,
    escape,
    print_notices,
    summary_line,
)
from cfn_debug.debugger.options import debug_options
from cfn_debug.errors import CfnDebugError, ExitCode
from cfn_debug.events import load_event
from cfn_debug.hooks.project import load_hook_event_file
from cfn_debug.infrastructure import step_infrastructure_error
from cfn_debug.journal.session import Journal
from cfn_debug.locations import default_journal_path
from cfn_debug.options import (
    add_aws_options,
    add_debug_options,
    add_hook_settings_option,
    add_target_options,
)
from cfn_debug.project import INPUT_DIRS, with_creates
from cfn_debug.records import ChainEvent, EndReason, RunEnded, RunRecord
from cfn_debug.schema.command import schema_warning_lines
from cfn_debug.targets import chain_options, open_workspace
from cfn_debug.text.terminal import printable
from cfn_debug.type_configuration import type_configuration
from cfn_debug.watch import Watcher, WatchEvent

if TYPE_CHECKING:
    from cfn_debug.events import EventSpec


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `cfn-debug run`."""
    parser.add_argument(
        "events",
        nargs="*",
        metavar="EVENT",
        help="event file(s) to run, or inputs/inputs_N_create|update|invalid.json (default: "
        "every event the project has)",
    )
    add_target_options(parser)
    add_hook_settings_option(parser)
    add_aws_options(parser)
    add_debug_options(parser)
    parser.add_argument("--json", action="store_true", help="print one machine-readable document")
    parser.add_argument(
        "--journal",
        metavar="FILE",
        help="append the session journal to FILE (default: a new file in the user's state dir)",
    )
    parser.add_argument("--no-journal", action="store_true", help="keep no journal of this run")
    parser.add_argument(
        "--reveal-write-only",
        action="store_true",
        help="print writeOnly property values instead of masking them",
    )
    parser.add_argument(
        "--logs", action="store_true", help="print the handler's log lines of every step"
    )
    parser.add_argument(
        "--no-read-back",
        action="store_true",
        help="do not READ the resource after a CREATE or UPDATE ends SUCCESS (by default "
        "cfn-debug sends one with the returned identifier and compares)",
    )
    parser.add_argument(
        "--watch",
        action="store_true",
        help="run, then run again on every save of the handler sources, the schema or an "
        "event file, until Ctrl-C",
    )
    parser.add_argument(
        "--build",
        metavar="CMD",
        help="with --watch: shell command run before each re-run (e.g. 'sam build'); "
        "a failed build is reported and nothing re-runs",
    )


def run_command(args: argparse.Namespace) -> int:
    """`cfn-debug run`; with --json the document is printed whatever happens (an ``errors``
    list says what went wrong), then the error goes on to cli.main as usual (exit 2)."""
    if not getattr(args, "json", False):
        return _run_command(args, {})
    partial: dict[str, Any] = {}
    try:
        return _run_command(args, partial)
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt | SystemExit):
            raise
        kind = "usage or infrastructure" if isinstance(error, CfnDebugError) else "internal"
        message = str(error) if isinstance(error, CfnDebugError) else repr(error)
        document = _document(
            partial.get("workspace"), partial.get("runs", []), partial.get("masked")
        )
        document["ok"] = False
        document["errors"].append({"kind": kind, "message": message})
        json.dump(document, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
        sys.stdout.flush()
        raise


def _run_command(args: argparse.Namespace, partial: dict[str, Any]) -> int:
    options = chain_options(args)
    watch = bool(getattr(args, "watch", False))
    build = getattr(args, "build", None)
    if args.json and watch:
        raise CfnDebugError("--json: cannot be combined with --watch (it prints one document)")
    if build is not None and not watch:
        raise CfnDebugError("--build: runs before each re-run, so it needs --watch")
    reveal = bool(getattr(args, "reveal_write_only", False))
    # soft_wrap: a CI log is wider than the 80 columns Rich assumes off a terminal.
    console = Console(stderr=args.json, highlight=False, soft_wrap=True)
    printer = None if args.json else ConsolePrinter(console, show_logs=args.logs)
    runs: list[RunRecord] = []
    partial["runs"] = runs

    debug = debug_options(args, terminal=not args.json)
    workspace = open_workspace(args, console, debug)
    partial["workspace"] = workspace
    try:
        events, run_notes = _events_to_run(args, workspace, load_event)
        events = _with_type_configuration(args, workspace, events)
    except BaseException:
        workspace.close()
        raise
    # First, before any event: which AWS the handlers talk to.
    console.print(printable(workspace.describe_aws()), markup=False)
    notices = print_notices(console, workspace)
    for note in run_notes:
        console.print(printable(note), markup=False)
    if workspace.schema is not None:
        for line in schema_warning_lines(workspace.schema):
            console.print(line, markup=False, highlight=False)
    journal = _open_journal(args, workspace)
    write_only = workspace.schema.write_only if workspace.schema is not None else ()
    masked = OutputMasker(write_only, reveal=reveal)
    partial["masked"] = masked
    if printer is not None:
        printer = MaskedPrinter(printer, masked)

    async def run_all() -> None:
        for event in events:  # an inputs_N_update follows its create (Workspace.request_for)
            skipped = workspace.inputs_chain.skip_reason(event)
            if skipped is not None:
                console.print(f"\n▷ {printable(event.name)}  {skipped}", markup=False)
                continue
            async for chain_event in workspace.run(event, options):
                if journal is not None:
                    journal.record(chain_event)
                if printer is not None:
                    printer.handle(chain_event)
                if isinstance(chain_event, RunEnded):
                    runs.append(chain_event.run)

    try:
        if watch:
            assert printer is not None
            return _watch(workspace, events, options, printer, journal, build, runs)
        asyncio.run(run_all())
    finally:
        if journal is not None:
            journal.close()
        workspace.close()

    if args.json:
        document = {**_document(workspace, runs, masked), "notices": notices}
        json.dump(document, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    else:
        console.print()
        console.print(summary_line(runs))
    _no_aws_hint(console, workspace, runs)
    if journal is not None:
        console.print(f"[dim]journal: {escape(str(journal.path))}[/]")
    if any(run.end_reason is EndReason.ERROR for run in runs) or _internal_errors(runs):
        return ExitCode.ERROR  # a bug in cfn-debug is not the handler's: 2, never 1
    if inconclusive_runs(runs):
        return ExitCode.ERROR  # a chain the re-invoke cap stopped decided nothing: never a pass
    return ExitCode.FINDINGS if any(run.must_failures for run in runs) else ExitCode.OK


def _internal_errors(runs: list[Any]) -> bool:
    """Whether cfn-debug's own checks failed on a step or chain (chain.INTERNAL_ERROR_RULE)."""
    return any(finding.rule_id == INTERNAL_ERROR_RULE for run in runs for finding in run.findings)


def _open_journal(args: argparse.Namespace, workspace: Any) -> Any:
    """The crash-safe journal every run appends to: --journal FILE, else the user's state dir."""
    if getattr(args, "no_journal", False):
        return None
    path = Path(args.journal) if args.journal else default_journal_path()
    return Journal(path, project=str(workspace.project.root), endpoint=workspace.endpoint_label)


def _watch(
    workspace: Any,
    events: list[Any],
    options: Any,
    printer: Any,
    journal: Any,
    build: str | None,
    runs: list[Any],
) -> int:
    """`run --watch`: run once, then again on every save until Ctrl-C (exit 130)."""

    def on_event(event: WatchEvent) -> None:
        if journal is not None and isinstance(event, ChainEvent):
            journal.record(event)
        if isinstance(event, RunEnded):
            runs.append(event.run)
        printer.handle_watch(event)

    watcher = Watcher(
        workspace,
        options,
        on_event=on_event,
        build=build,
        event_files=[event.path for event in events if event.path is not None],
    )
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(watcher.watch(initial=events))
    printer.console.print()
    printer.console.print(f"stopped watching: {summary_line(runs)}")
    return ExitCode.INTERRUPTED


def _no_aws_hint(console: Any, workspace: Any, runs: list[Any]) -> None:
    """A failed run with no AWS configured: say that its AWS calls had nowhere to go."""
    note = no_aws_note(workspace.aws_target)
    if note and any(run.final_status == "FAILED" for run in runs):
        console.print(note, markup=False, style="yellow")


def _events_to_run(
    args: argparse.Namespace, workspace: Any, load_event: Any
) -> tuple[list[Any], list[str]]:
    """The EVENT files (their placeholders filled from the workspace's exports; an
    inputs_N_update given without its create gets the create first, said in the lines
    returned), else every event the project has; a file that would not load is an error
    (exit 2), not skipped."""
    exports = workspace.project.exports
    if args.events and workspace.hook is not None:
        return [load_hook_event_file(Path(path), exports) for path in args.events], []
    if args.events:
        given = [load_event(Path(path), exports=exports) for path in args.events]
        events, notes = with_creates(
            given, workspace.schema, lambda path: load_event(path, exports=exports)
        )
        return events, notes
    if workspace.project.event_errors:
        raise workspace.project.event_errors[0]
    events = lifecycle_order(workspace.project.events)
    notes: list[str] = []
    if workspace.hook is None and workspace.schema is not None:
        events, notes = declared_only(events, workspace.schema)
    if not events:  # nothing to send is a usage error (exit 2), never a clean run
        said = [*workspace.example_notes, *(n.removeprefix("▷ ") for n in notes)]
        passed_over = "".join(f" ({note})" for note in said)
        raise CfnDebugError(
            "no events to run: expected EVENT files, or sample_events/, sam-tests/ or inputs/ "
            "in the project" + passed_over,
            path=workspace.project.root,
            field="EVENT",
        )
    return events, notes


def declared_only(events: Sequence[EventSpec], schema: Any) -> tuple[list[EventSpec], list[str]]:
    """The project's events whose action the schema declares a handler for, and a line for
    each one left out: CloudFormation never sends an action a type has no handler for (a type
    without an update handler is replaced instead), and `cfn test` skips it, so sending it
    would only show the library's "No handler for UPDATE". A schema with no handlers object
    (or an empty one) declares nothing to go by: every event is kept."""
    handlers = schema.raw.get("handlers")
    if not isinstance(handlers, dict) or not handlers:
        return list(events), []
    kept: list[EventSpec] = []
    notes: list[str] = []
    for event in events:
        if schema.has_handler(event.action):
            kept.append(event)
            continue
        notes.append(
            f"▷ {event.name}  skipped: the schema declares no {event.action.value.lower()} "
            "handler, so CloudFormation never sends one (`cfn test` skips it too)"
        )
    return kept, notes


def _with_type_configuration(
    args: argparse.Namespace, workspace: Any, events: list[Any]
) -> list[Any]:
    """--type-configuration: every event carries it (checked against the schema's
    typeConfiguration definition first, as `scenario` checks it)."""
    if not getattr(args, "type_configuration", None) or getattr(workspace, "hook", None):
        return events  # a hook's settings are the hook workspace's (hooks.workspace)

    config = type_configuration(args, workspace.schema)
    return [
        dataclasses.replace(
            event,
            normalized=dataclasses.replace(event.normalized, type_configuration=config),
        )
        for event in events
    ]


_LIFECYCLE = {"CREATE": 0, "READ": 1, "UPDATE": 2, "LIST": 3, "DELETE": 4}


def lifecycle_order(events: Sequence[EventSpec]) -> list[EventSpec]:
    """Events of one directory (sam-tests/, sample_events/) in the order a resource lives:
    create, read, update, list, delete (a name sorts `delete` before `read`); files of the same
    action keep their name order, and inputs/ keeps its N-by-N create-update-invalid order."""
    directories: dict[Path | None, int] = {}  # in the order the project listed them
    for event in events:
        directories.setdefault(event.path.parent if event.path else None, len(directories))

    def key(indexed: tuple[int, EventSpec]) -> tuple[int, int, int]:
        index, event = indexed
        parent = event.path.parent if event.path else None
        inputs = parent is None or parent.name in INPUT_DIRS
        stage = 0 if inputs else _LIFECYCLE.get(event.action.value, 0)  # a hook's: file order
        return (directories[parent], stage, index)

    return [event for _, event in sorted(enumerate(events), key=key)]


def _document(workspace: Any, runs: list[Any], masked: OutputMasker | None) -> dict[str, Any]:
    must = sum(len(run.must_failures) for run in runs)
    errors = run_errors(runs)
    schema = workspace.schema if workspace is not None else None
    target = workspace.aws_target if workspace is not None else None
    return {
        "cfn_debug": __version__,
        "endpoint": workspace.endpoint_label if workspace is not None else None,
        "aws": target.to_dict() if target is not None else None,
        "type_name": schema.type_name if schema else _hook_type_name(workspace),
        "ok": must == 0 and not errors,
        "must_findings": must,
        "runs": [masked.run_dict(run) for run in runs] if masked is not None else [],
        "errors": errors,
    }


def _hook_type_name(workspace: Any) -> str | None:
    hook = getattr(workspace, "hook", None)
    return hook.schema.type_name if hook is not None else None


def run_errors(runs: list[Any]) -> list[dict[str, Any]]:
    """One entry per run that could not run (EndReason.ERROR): what went wrong, in words."""
    errors = []
    for run in runs:
        if run.end_reason is not EndReason.ERROR:
            continue
        last = run.steps[-1].result if run.steps else None
        message = "no answer"
        if last is not None:
            message = (
                step_infrastructure_error(run.steps[-1])
                or last.error_message
                or f"{last.kind.value}" + (f" ({last.error_type})" if last.error_type else "")
            )
        errors.append(
            {
                "kind": "infrastructure",
                "event": run.event_name,
                "run_id": run.run_id,
                "message": message,
            }
        )

    for run, why in inconclusive_runs(runs):
        errors.append(
            {"kind": "inconclusive", "event": run.event_name, "run_id": run.run_id, "message": why}
        )
    return errors
