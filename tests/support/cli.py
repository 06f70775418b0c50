"""The real `cfn-debug` run as a child process, as a user or CI runs it: the one runner the test
suites share (each suite passes its own environment: a state directory, a clean AWS_* set)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
#: `cfn-debug` without relying on the console script being on PATH
COMMAND = (sys.executable, "-m", "cfn_debug.cli")


def cli_env(**extra: str) -> dict[str, str]:
    """This process's environment with colour off, plus ``extra``."""
    return {**os.environ, "NO_COLOR": "1", **extra}


def run_cli(
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path = REPO,
    timeout: float = 180,
    text: bool = True,
    stdin: int | None = None,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[Any]:
    """``cfn-debug ARGS`` to its end: exit code, stdout and stderr captured (str, or bytes with
    ``text=False``); ``env`` defaults to :func:`cli_env`."""
    return subprocess.run(
        [*COMMAND, *args],
        capture_output=True,
        text=text,
        env=cli_env() if env is None else env,
        cwd=cwd,
        timeout=timeout,
        stdin=stdin,
        preexec_fn=preexec_fn,
        check=False,
    )
