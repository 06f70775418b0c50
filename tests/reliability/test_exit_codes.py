"""Exit codes under hostile conditions: a bug in cfn-debug exits 2 (never 1, which says the handler
broke the contract) with one line naming a crash report; a port outside 1..65535 is a usage error.
Each command is run as a real process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cfn_debug.cli import COMMANDS
from reliability.support import REPO, child_env

pytestmark = pytest.mark.timeout(120)

# Replace one command's function with one that fails as a bug would, then run the real main().
_BUGGY = """
import importlib, sys
from cfn_debug import cli
command = cli.COMMANDS[sys.argv[1]]
module, name = command.module, command.run
def boom(args):
    raise KeyError("\\x1b]0;owned\\x07 [bold]no-such-key[/]")
setattr(importlib.import_module(module), name, boom)
sys.exit(cli.main(sys.argv[1:]))
"""

_ARGS = {
    "ui": [],
    "serve": [],
    "run": ["event.json"],
    "export": ["journal.jsonl"],
    "rules": [],
    "scenario": ["--type-configuration", '{"ApiToken": "crash-report-secret-value"}'],
    "open": ["transcript.json"],
    "schema": ["schema.json"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_bug_in_any_command_exits_2_with_one_line_and_a_crash_report(
    command: str, tmp_path: Path
) -> None:
    """Tries: every subcommand raising an unexpected exception. Must hold: exit 2, one line on
    stderr (no traceback, no raw escape), naming a crash report that holds the traceback."""
    state = tmp_path / "state"
    proc = subprocess.run(
        [sys.executable, "-c", _BUGGY, command, *_ARGS[command]],
        capture_output=True,
        text=True,
        env=child_env(XDG_STATE_HOME=str(state)),
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "\x1b" not in proc.stderr
    assert "internal error" in lines[0] and "KeyError" in lines[0]
    reports = list((state / "cfn-debug" / "crashes").iterdir())
    assert len(reports) == 1 and str(reports[0]) in lines[0]
    report = reports[0].read_text(encoding="utf-8")
    assert "Traceback" in report and "boom" in report and "\x1b" not in report
    assert "crash-report-secret-value" not in report  # option values are left out
    assert reports[0].stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("port", ["0", "65536", "70000", "-1", "http"])
def test_serve_on_a_port_outside_1_to_65535_is_a_usage_error(port: str, tmp_path: Path) -> None:
    """Tries: `serve --port` out of range. Must hold: exit 2, argparse's usage line, no bind."""
    proc = subprocess.run(
        [sys.executable, "-m", "cfn_debug.cli", "serve", "--port", port],
        capture_output=True,
        text=True,
        env=child_env(XDG_STATE_HOME=str(tmp_path)),
        cwd=REPO,
        timeout=30,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "1-65535" in proc.stderr


def test_a_usage_error_quoting_a_hostile_argument_is_escaped(tmp_path: Path) -> None:
    """argparse quotes unrecognized arguments as given: an escape sequence in one is shown as
    ``\\x1b``, on one line, exit 2."""
    proc = subprocess.run(
        [sys.executable, "-m", "cfn_debug.cli", "rules", "a", "\x1b]0;owned\x07\x9b2J"],
        capture_output=True,
        text=True,
        env=child_env(XDG_STATE_HOME=str(tmp_path)),
        cwd=REPO,
        timeout=30,
    )
    assert proc.returncode == 2, proc.stderr
    assert "\x1b" not in proc.stderr and "\x9b" not in proc.stderr
    assert "\\x1b]0;owned\\x07" in proc.stderr
