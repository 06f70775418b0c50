"""``--debug-port`` and ``--break-at``: the command-line options and what they become."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfn_debug.debugger.terminal import TerminalDebugger, terminal_usable
from cfn_debug.errors import CfnDebugError


@dataclass(frozen=True)
class DebugOptions:
    """How the embedded endpoint's workers stop in a debugger.

    on_session: the front-end of pdb (a terminal, the dashboard's Debugger panel), given each
    worker's endpoint/debugchannel.DebugSession; None: ``breakpoint()`` is skipped with a notice.
    port: debugpy listens in the worker on 127.0.0.1:PORT and waits for an IDE (--debug-port).
    break_at: (absolute path, line) pdb breakpoints set in every worker (--break-at).
    """

    on_session: Callable[[Any], None] | None = None
    port: int | None = None
    break_at: tuple[tuple[str, int], ...] = ()

    @property
    def wanted(self) -> bool:
        """Whether any of it needs the embedded endpoint."""
        return self.port is not None or bool(self.break_at)


def break_point(text: str, base: Path | None = None) -> tuple[str, int]:
    """``FILE:LINE`` as (absolute path, line); CfnDebugError naming what was expected."""
    path, sep, line = text.rpartition(":")
    if not sep or not path or not line.isdigit() or int(line) < 1:
        raise CfnDebugError(
            f"expected FILE:LINE (a Python file of the handler and a line number), got {text!r}",
            field="--break-at",
        )
    resolved = (base or Path.cwd()) / path
    if not resolved.is_file():
        raise CfnDebugError(f"no such file: {resolved}", field="--break-at")
    return str(resolved.resolve()), int(line)


def debug_options(args: argparse.Namespace, *, terminal: bool) -> DebugOptions:
    """What --debug-port and --break-at ask for; ``terminal``: pdb may use this process's
    terminal (``run`` without --json) when stdin and stdout are one."""
    port = getattr(args, "debug_port", None)
    project = getattr(args, "project", None) or getattr(args, "project_dir", None)
    points = []
    for text in getattr(args, "break_at", None) or []:
        try:
            points.append(break_point(text))
        except CfnDebugError:
            if project is None:
                raise
            points.append(break_point(text, Path(project)))  # relative to the project
    on_session = None
    if terminal and terminal_usable():
        on_session = TerminalDebugger().on_session
    if points and on_session is None:
        raise CfnDebugError(
            "pdb needs a terminal (stdin and stdout, and no --json); without one, use "
            "--debug-port PORT and an IDE",
            field="--break-at",
        )
    return DebugOptions(on_session, port, tuple(points))
