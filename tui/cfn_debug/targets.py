"""The target options `run` and `scenario` share (cli._add_target_options), turned into what
the engine takes: checked chain limits and an open Workspace."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfn_debug.errors import CfnDebugError

if TYPE_CHECKING:
    from cfn_debug.chain import ChainOptions
    from cfn_debug.debugger.options import DebugOptions
    from cfn_debug.workspace import Workspace


def chain_options(args: argparse.Namespace) -> ChainOptions:
    """--max-reinvoke and --max-delay, checked (exit 2 on a negative value) before anything runs."""
    from cfn_debug.chain import ChainOptions  # lazy: as in open_workspace below

    if args.max_reinvoke < 0:
        raise CfnDebugError("expected a number of re-invocations >= 0", field="--max-reinvoke")
    if args.max_delay is not None and args.max_delay < 0:
        raise CfnDebugError("expected a number of seconds >= 0", field="--max-delay")
    return ChainOptions(
        max_reinvoke=args.max_reinvoke,
        max_delay_s=args.max_delay,
        read_back=not getattr(args, "no_read_back", False),
    )


def open_workspace(
    args: argparse.Namespace, console: Any = None, debug: DebugOptions | None = None
) -> Workspace:
    """The project, schema, endpoint and AWS the target options name; ``close()`` it when done.

    ``console`` (Rich) shows the local AWS starting and the setup stack's progress, and the
    launch.json entry when ``debug`` asks for --debug-port.
    """
    # lazy: the engine (workspace, boto3's session, the endpoint's environment builder) loads
    # only when a command opens a workspace; `scenario list` and usage errors never pay for it
    from cfn_debug.aws.progress import SetupProgressPrinter
    from cfn_debug.aws.session import AwsOptions
    from cfn_debug.debugger.launch import launch_text
    from cfn_debug.env_progress import console_env_progress
    from cfn_debug.workspace import Workspace

    aws = AwsOptions.from_args(args)
    progress = None
    if console is not None:
        progress = SetupProgressPrinter(console)
    with console_env_progress() as env_progress:
        workspace = Workspace.open(
            Path(args.project) if args.project else None,
            endpoint=args.endpoint,
            function_name=args.function_name,
            schema_path=Path(args.schema) if args.schema else None,
            region=args.region,
            profile=args.profile,
            python=getattr(args, "python", None),
            node=getattr(args, "node", None),
            on_env_progress=env_progress,
            aws=aws,
            progress=progress,
            debug=debug,
            type_configuration=getattr(args, "type_configuration", None),
        )
    if debug is not None and debug.port is not None and workspace.embedded is not None:
        dirs = [spec.code_dir for spec in workspace.embedded.functions.values()]
        text = launch_text(debug.port, dirs)
        if console is not None:
            console.print(text, markup=False, highlight=False)
        else:
            print(text, file=sys.stderr)
    return workspace
