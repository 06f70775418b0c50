"""The Workspace the target options of `run` and `scenario` name, opened: the project, schema,
endpoint and AWS, with the local AWS's and the environment builder's progress on a console.

`targets.open_workspace` imports this module on first use: it pulls in the engine, which
`scenario list`, `--help` and usage errors never need."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from cfn_debug.aws.progress import SetupProgressPrinter
from cfn_debug.aws.session import AwsOptions
from cfn_debug.debugger.launch import launch_text
from cfn_debug.debugger.options import DebugOptions
from cfn_debug.env_progress import console_env_progress
from cfn_debug.workspace import Workspace


def open_target_workspace(
    args: argparse.Namespace, console: Any = None, debug: DebugOptions | None = None
) -> Workspace:
    """The project, schema, endpoint and AWS the target options name; ``close()`` it when done.

    ``console`` (Rich) shows the local AWS starting and the setup stack's progress, and the
    launch.json entry when ``debug`` asks for --debug-port.
    """
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
