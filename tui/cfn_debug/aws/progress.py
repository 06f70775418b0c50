"""The setup stack's progress in a terminal (Rich), for `run`, `scenario` and `serve`."""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from cfn_debug.aws.setup_stack import SetupProgress
from cfn_debug.text.terminal import printable


class SetupProgressPrinter:
    """Prints each step of starting the local AWS and deploying the setup stack, one line each,
    with a bar of the resources created so far."""

    def __init__(self, console: Any) -> None:
        self.console = console

    def __call__(self, progress: SetupProgress) -> None:
        bar = ""
        if progress.total:
            width = 20
            filled = round(width * progress.done / progress.total)
            bar = f"[green]{'━' * filled}[/][dim]{'━' * (width - filled)}[/] "
            bar += f"{progress.done}/{progress.total} "
        self.console.print(f"[dim]local AWS:[/] {bar}{escape(printable(progress.message))}")
