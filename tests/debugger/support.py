"""Helpers of the debugger tests: a copy of the bundled demo whose READ handler has a
breakpoint() (the original is never touched), and a driver of `cfn-debug` under a
pseudo-terminal."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

from cfn_debug.project import DEMO_DIR

ROOT = Path(__file__).resolve().parents[2]
MARK = '    widget_id = _widget_id(request, "read")\n'


def make_demo_copy(tmp_path: Path) -> Path:
    """The demo project with ``breakpoint()`` after the READ handler's first line."""
    project = tmp_path / "demo"
    shutil.copytree(DEMO_DIR, project, ignore=shutil.ignore_patterns("__pycache__", "build"))
    handlers = project / "src" / "cfndebug_demo_widget" / "handlers.py"
    text = handlers.read_text()
    assert MARK in text
    handlers.write_text(text.replace(MARK, MARK + "    breakpoint()\n", 1))
    (project / "sample_events").mkdir()
    for name in ("read.json", "fault-unhandled-exception.json"):
        shutil.copy(ROOT / "sample_events" / name, project / "sample_events" / name)
    return project


def breakpoint_line(project: Path) -> int:
    """The line of the READ handler's breakpoint() call."""
    handlers = project / "src" / "cfndebug_demo_widget" / "handlers.py"
    lines = handlers.read_text().splitlines()
    return lines.index("    breakpoint()") + 1


def cli_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tui"), "COLUMNS": "200", **extra}
    env.pop("PYTHONBREAKPOINT", None)
    return env


class Terminal:
    """A process on a pseudo-terminal: read until a text shows, type lines."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        import pty

        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=cli_env(),
            start_new_session=True,
        )
        os.close(slave)
        self.seen = b""

    def expect(self, text: str, timeout_s: float = 60.0) -> str:
        """Everything up to and including ``text``."""
        wanted = text.encode()
        deadline = time.monotonic() + timeout_s
        while wanted not in self.seen:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.master], [], [], max(left, 0))
            if not ready:
                raise AssertionError(f"no {text!r} within {timeout_s} s: {self.seen[-3000:]!r}")
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                raise AssertionError(f"ended before {text!r}: {self.seen[-3000:]!r}")
            self.seen += chunk
        at = self.seen.index(wanted) + len(wanted)
        head, self.seen = self.seen[:at], self.seen[at:]
        return head.decode("utf-8", "replace")

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def finish(self, timeout_s: float = 60.0) -> tuple[int, str]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    chunk = b""
                if chunk:
                    self.seen += chunk
                    continue
            if self.process.poll() is not None:
                break
        code = self.process.wait(timeout=max(deadline - time.monotonic(), 1))
        os.close(self.master)
        return code, self.seen.decode("utf-8", "replace")


CLI = [sys.executable, "-m", "cfn_debug.cli"]
