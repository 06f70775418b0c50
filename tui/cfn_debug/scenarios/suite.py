"""`cfn-debug scenario`, run: the workspace opened, the chosen contract scenarios played one
after the other (or --jobs at once), their results printed (or the --json document), the journal
and the JUnit file written, and the exit status. command.py holds the options and imports this
module once they are parsed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console

from cfn_debug.aws.target import no_aws_note
from cfn_debug.console import print_notices
from cfn_debug.contract import rule
from cfn_debug.debugger.options import debug_options
from cfn_debug.errors import CfnDebugError, ExitCode
from cfn_debug.events import Shape
from cfn_debug.export.scenario_report import write_scenarios_junit
from cfn_debug.hooks.command import hook_scenario_command, is_hook_target
from cfn_debug.journal.session import Journal
from cfn_debug.records import ChainEvent
from cfn_debug.scenarios.catalogue import SCENARIOS, select
from cfn_debug.scenarios.document import OK_OUTCOMES, scenario_document
from cfn_debug.scenarios.printer import ScenarioPrinter, summary_table
from cfn_debug.scenarios.results import Outcome, ScenarioEnded, ScenarioResult
from cfn_debug.scenarios.runner import ScenarioOptions, ScenarioRunner
from cfn_debug.scenarios.summary import ENTRY_TYPE, scenario_summary
from cfn_debug.targets import chain_options, open_workspace
from cfn_debug.text.terminal import printable
from cfn_debug.type_configuration import type_configuration


def run_scenario_command(args: argparse.Namespace) -> int:
    """`cfn-debug scenario`; with --json the document is printed whatever happens (an ``errors``
    list says what went wrong), then the error goes on to cli.main as usual (exit 2)."""
    if not getattr(args, "json", False) or getattr(args, "list", False):
        return _scenario_command(args, {})
    partial: dict[str, Any] = {}
    try:
        return _scenario_command(args, partial)
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt | SystemExit):
            raise
        kind = "usage or infrastructure" if isinstance(error, CfnDebugError) else "internal"
        document = scenario_document(args, partial)
        document["ok"] = False
        document["errors"].append(
            {"kind": kind, "message": str(error) if kind != "internal" else repr(error)}
        )
        json.dump(document, sys.stdout, indent=2, default=str, ensure_ascii=False)
        sys.stdout.write("\n")
        sys.stdout.flush()
        raise


def _scenario_command(args: argparse.Namespace, partial: dict[str, Any]) -> int:
    if is_hook_target(args):  # a hook project: the hook contract scenarios
        return hook_scenario_command(args, partial)
    console = Console(stderr=args.json, highlight=False)
    if args.list:
        for entry in SCENARIOS:
            console.print(f"[bold]{entry.name}[/]: {entry.title}")
            console.print(f"  {entry.description}")
            for rule_id in entry.rules:
                console.print(f"  [dim]{rule_id} ({rule(rule_id).level.value})[/]")
        return ExitCode.OK
    chosen = select(args.names)  # unknown names fail before any endpoint starts
    chain = chain_options(args)
    if args.examples < 0:
        raise CfnDebugError("expected a number of inputs >= 0", field="--examples")

    if args.jobs is not None and args.jobs < 1:
        raise CfnDebugError("expected a number of scenarios >= 1", field="--jobs")
    debug = debug_options(args, terminal=not args.json)
    workspace = open_workspace(args, console, debug)
    partial["workspace"] = workspace
    results: list[ScenarioResult] = []
    partial["results"] = results
    try:
        # first: which AWS the handlers talk to
        console.print(printable(workspace.describe_aws()), markup=False)
        partial["notices"] = print_notices(console, workspace)  # models.py out of date
        options = ScenarioOptions(
            chain=chain,
            type_configuration=type_configuration(args, workspace.schema),
            shape=Shape(args.shape.replace("-", "_")) if args.shape else None,
            examples=args.examples,
            seed=args.seed,
            unique=False
            if getattr(args, "no_unique", False)
            else (True if getattr(args, "unique", False) else None),
            generate=bool(getattr(args, "generate", False)),
            concurrency=_concurrency(args, workspace, debug),
        )
        partial["type_configuration"] = options.type_configuration
        runner = ScenarioRunner(workspace, options)
        partial["runner"] = runner
        chosen = runner.chosen(args.names)
        printer = (
            None
            if args.json
            else ScenarioPrinter(
                console,
                show_logs=args.logs,
                write_only=workspace.schema.write_only if workspace.schema else (),
                reveal=bool(getattr(args, "reveal_write_only", False)),
            )
        )
        if printer is not None:
            console.print(
                f"[bold]{len(chosen)} contract scenario(s)[/] for "
                f"{workspace.schema.type_name if workspace.schema else '?'} at "
                f"{workspace.endpoint_label}; inputs: {runner.inputs.source}"
                + (
                    f"; type configuration {json.dumps(options.type_configuration)}"
                    if options.type_configuration is not None
                    else ""
                )
            )

        journal = _open_journal(args, workspace)
        write_only = workspace.schema.write_only if workspace.schema else ()
        reveal = bool(getattr(args, "reveal_write_only", False))

        async def run_all() -> None:
            async for event in runner.run([s.name for s in chosen]):
                if printer is not None:
                    printer.handle(event)
                if journal is not None and isinstance(event, ChainEvent):
                    journal.record(event)
                if isinstance(event, ScenarioEnded):
                    results.append(event.result)
                    if journal is not None:  # writeOnly values masked: exports copy it as is
                        summary = scenario_summary(event.result, write_only)
                        journal.write({"type": ENTRY_TYPE, "scenario": summary})

        try:
            asyncio.run(run_all())
        finally:
            if journal is not None:
                journal.close()
    finally:
        workspace.close()
    if getattr(args, "junit", None):
        _write_junit(Path(args.junit), results, workspace, reveal=reveal)

    if args.json:
        document = scenario_document(args, partial)
        json.dump(document, sys.stdout, indent=2, default=str, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        console.print()
        console.print(summary_table(results))
        note = no_aws_note(workspace.aws_target)
        if note and not all(r.outcome in OK_OUTCOMES for r in results):
            console.print(note, markup=False, style="yellow")
    if any(r.outcome is Outcome.ERROR for r in results):
        return ExitCode.ERROR
    if any(r.outcome is Outcome.FAILED for r in results):
        return ExitCode.FINDINGS
    # blocked: the create a scenario stands on did not succeed, with no MUST finding (a name of
    # a resource that must exist, an AWS moto lacks, a handler that refuses the input): nothing
    # was judged, so it is no finding either; the run could not do what it was asked
    return ExitCode.ERROR if any(r.outcome is Outcome.BLOCKED for r in results) else ExitCode.OK


def _concurrency(args: argparse.Namespace, workspace: Any, debug: Any) -> int:
    """--jobs, else 1. Not more by default: values are sent as written, so two scenarios
    whose creates take the same value of a property the handler keeps unique (a Title, not
    an identifier nor createOnly) collide, and a correct handler's AlreadyExists would block
    them (a false alarm). With a debugger that may stop the handler, always 1."""
    if args.jobs is None or workspace.embedded is None or debug.wanted:
        return 1
    return int(args.jobs)


def _open_journal(args: argparse.Namespace, workspace: Any) -> Any:
    """--journal FILE: the journal the scenarios' runs and results are appended to."""
    if not getattr(args, "journal", None):
        return None
    return Journal(
        Path(args.journal), project=str(workspace.project.root), endpoint=workspace.endpoint_label
    )


def _write_junit(path: Path, results: list[Any], workspace: Any, *, reveal: bool) -> None:
    """--junit FILE: one testcase per scenario (export.scenario_report), written whole or not
    at all (a temporary file beside it, then renamed)."""
    write_only = workspace.schema.write_only if workspace.schema else ()
    summaries = [scenario_summary(r, write_only, reveal=reveal) for r in results]
    meta = {"project": str(workspace.project.root)}
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise CfnDebugError(f"cannot write: {exc.strerror}", path=path, field="--junit") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as out:
            write_scenarios_junit(summaries, meta, out)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise CfnDebugError(f"cannot write: {exc.strerror}", path=path, field="--junit") from None
