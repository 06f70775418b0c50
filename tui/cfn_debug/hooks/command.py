"""`cfn-debug scenario` on a hook project: the hook contract scenarios, headless.

Same output as the resource scenarios (the console printer, the summary table, the ``--json``
document with its ``scenarios``, ``counts`` and ``errors``) and the same exit status: 0 when
every scenario passed, warned or did not apply, 1 on a MUST, 2 when the endpoint could not be
used. The hook's settings are ``--type-configuration`` (see :mod:`cfn_debug.hooks.project`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from cfn_debug.console import print_notices
from cfn_debug.errors import CfnDebugError, ExitCode
from cfn_debug.hooks.lambda_hooks import find_lambda_hook
from cfn_debug.hooks.project import is_hook_project
from cfn_debug.hooks.scenarios import HOOK_SCENARIOS, HookScenarioRunner, select_hook_scenarios
from cfn_debug.project import find_schema, is_project_dir, read_settings
from cfn_debug.scenarios.document import scenario_document
from cfn_debug.scenarios.printer import ScenarioPrinter, summary_table
from cfn_debug.scenarios.results import Outcome, ScenarioEnded, ScenarioResult
from cfn_debug.targets import chain_options, open_workspace
from cfn_debug.text.terminal import printable


def is_hook_target(args: argparse.Namespace) -> bool:
    """Whether the project the options name is a hook (read cheaply, before anything starts)."""
    given = getattr(args, "project", None)
    root = Path(given).expanduser() if given else Path.cwd()
    if not root.is_dir() or (not given and not is_project_dir(root)):
        return False
    try:
        settings = read_settings(root)
    except CfnDebugError:
        return False
    schema = Path(args.schema) if getattr(args, "schema", None) else None

    if is_hook_project(settings, schema or find_schema(root, settings.get("typeName"))):
        return True
    if settings.get("artifact_type"):
        return False

    try:
        return find_lambda_hook(root) is not None
    except CfnDebugError:
        return False


def hook_scenario_command(args: argparse.Namespace, partial: dict[str, Any]) -> int:
    console = Console(stderr=args.json, highlight=False)
    if args.list:
        for entry in HOOK_SCENARIOS:
            console.print(f"[bold]{entry.name}[/]: {entry.title}")
            console.print(f"  {entry.description}")
        return ExitCode.OK

    select_hook_scenarios(args.names)  # unknown names fail before any endpoint starts
    chain = chain_options(args)
    workspace = open_workspace(args, console)
    partial["workspace"] = workspace
    results: list[ScenarioResult] = []
    partial["results"] = results
    try:
        console.print(printable(workspace.describe_aws()), markup=False)

        partial["notices"] = print_notices(console, workspace)
        runner = HookScenarioRunner(workspace, chain)
        partial["runner"] = runner
        partial["type_configuration"] = workspace.hook.settings.model
        chosen = runner.chosen(args.names)
        printer = None if args.json else ScenarioPrinter(console, show_logs=args.logs)
        if printer is not None:
            console.print(
                f"[bold]{len(chosen)} hook contract scenario(s)[/] for "
                f"{workspace.hook.schema.type_name} at {workspace.endpoint_label}; "
                f"targets: {runner.inputs.source}"
            )

        async def run_all() -> None:
            async for event in runner.run([s.name for s in chosen]):
                if printer is not None:
                    printer.handle(event)
                if isinstance(event, ScenarioEnded):
                    results.append(event.result)

        asyncio.run(run_all())
    finally:
        workspace.close()
    if args.json:
        document = hook_document(args, partial)
        json.dump(document, sys.stdout, indent=2, default=str, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        console.print()
        console.print(summary_table(results))
    if any(r.outcome is Outcome.ERROR for r in results):
        return ExitCode.ERROR
    failed = any(r.outcome is Outcome.FAILED for r in results)
    return ExitCode.FINDINGS if failed else ExitCode.OK


def hook_document(args: argparse.Namespace, partial: dict[str, Any]) -> dict[str, Any]:
    """The resource scenarios' --json document (it names the hook's type)."""
    return scenario_document(args, partial)
