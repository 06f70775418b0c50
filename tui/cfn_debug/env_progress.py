"""The handlers' Python environment being built, shown on a terminal (run, scenario, serve).

The engine reports the build through ``pyenv.EnvProgress`` callbacks; this turns them into a Rich
spinner with pip's latest line on standard error (so ``--json`` output stays clean), and one line
saying which environment is used once it is ready.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TextIO

from rich.console import Console
from rich.markup import escape
from rich.status import Status

from cfn_debug.endpoint.pyenv import EnvProgress, ProgressCallback
from cfn_debug.text.terminal import printable

TITLE = "Building the handlers' Python environment"


@contextlib.contextmanager
def console_env_progress(stream: TextIO | None = None) -> Iterator[ProgressCallback]:
    """A progress callback for ``interpreter_for``; the spinner stops when the block ends."""
    console = Console(file=stream or sys.stderr, highlight=False)
    status: Status | None = None

    def report(event: EnvProgress) -> None:
        nonlocal status
        line = escape(printable(event.message)[:120])
        if event.stage in ("create", "install"):
            if status is None:
                status = console.status(f"{TITLE}...")
                status.start()
            status.update(f"{TITLE}: [dim]{line}[/]")
        elif event.stage in ("ready", "cached", "build"):  # build: npm, go, mvn (runtimes/)
            if status is not None:
                status.stop()
                status = None
            console.print(f"[dim]{line}[/]")

    try:
        yield report
    finally:
        if status is not None:
            status.stop()
