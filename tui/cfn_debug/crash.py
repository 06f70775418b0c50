"""Crash reports: what a bug in cfn-debug leaves behind instead of a traceback on the terminal.

A bug is not the handler's fault, so it never exits 1 (which means "the handler broke the
contract"). ``cli.main`` catches it, writes the traceback to a file under the state directory and
prints one line naming that file; the dashboard can call ``write_crash_report`` the same way.
"""

from __future__ import annotations

import os
import sys
import traceback
from datetime import datetime, timezone
from pathlib import Path

from cfn_debug import __version__
from cfn_debug.locations import crash_dir
from cfn_debug.text.redact import redact_text
from cfn_debug.text.terminal import printable


def write_crash_report(error: BaseException, argv: list[str] | None = None) -> Path | None:
    """Write ``error``'s traceback to a new owner-only file; its path, or None when none could be
    written (the report must never raise a second error over the first)."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S_%fZ")
    path = crash_dir() / f"crash-{stamp}-{os.getpid()}.txt"
    lines = [
        f"cfn-debug {__version__} crashed at {stamp}",
        f"python {sys.version.split()[0]} on {sys.platform}",
        f"arguments: {_shape(argv if argv is not None else sys.argv[1:])}",
        "",
        *traceback.format_exception(type(error), error, error.__traceback__),
    ]

    # Owner-only, and still without credentials: a message may quote a value it choked on.
    text = printable(redact_text("\n".join(line.rstrip("\n") for line in lines) + "\n"))
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(descriptor, "w", encoding="utf-8", errors="backslashreplace") as file:
            file.write(text)
    except OSError:
        return None
    return path


def _shape(argv: list[str]) -> str:
    """The command and its option names, without their values: a value may be a secret (a
    --type-configuration holding a password) and the report must not keep it."""
    shown = [argv[0]] if argv else []
    shown += [arg.split("=", 1)[0] for arg in argv[1:] if arg.startswith("-")]
    return printable(" ".join(shown))


def one_line(text: str) -> str:
    """``text`` safe for a terminal and on one line (newlines shown as ``\\n``), with any access
    key id in it (a file name can hold one) redacted."""
    text = redact_text(text.replace("\r\n", "\n"))
    return printable(text).replace("\n", "\\n").replace("\t", " ")


def crash_message(error: BaseException, report: Path | None) -> str:
    """The one line printed for a bug in cfn-debug."""
    where = (
        f"traceback in {one_line(str(report))}"
        if report is not None
        else "no crash report could be written"
    )

    detail = one_line(redact_text(f"{type(error).__name__}: {error}"))
    if len(detail) > 300:
        detail = detail[:299] + "…"
    return f"cfn-debug: internal error (a bug in cfn-debug, not in the handler): {detail}; {where}"
