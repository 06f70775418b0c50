"""The target options `run` and `scenario` share (cli._add_target_options), turned into what
the engine takes: checked chain limits and an open Workspace."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from cfn_debug.chain import ChainOptions
from cfn_debug.errors import CfnDebugError

if TYPE_CHECKING:
    from cfn_debug.debugger.options import DebugOptions
    from cfn_debug.workspace import Workspace


def chain_options(args: argparse.Namespace) -> ChainOptions:
    """--max-reinvoke and --max-delay, checked (exit 2 on a negative value) before anything runs."""
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
    """The Workspace the target options name (target_workspace.open_target_workspace)."""
    # lazy: the engine (workspace, boto3's session, the endpoint's environment builder) loads
    # only when a command opens a workspace; `run --help` and `scenario list` never pay for it
    from cfn_debug.target_workspace import open_target_workspace

    return open_target_workspace(args, console, debug)
