"""`cfn-debug run` with breakpoint() in the demo's READ handler: pdb on the terminal (a real
pseudo-terminal), and without a terminal the breakpoint is skipped with one notice."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .support import CLI, Terminal, cli_env

pytestmark = pytest.mark.slow  # a real endpoint and worker per test (a few seconds)


def test_pdb_on_the_terminal_evaluates_and_continues(demo_copy: Path) -> None:
    term = Terminal([*CLI, "run", "sample_events/read.json", "--no-journal"], demo_copy)
    where = term.expect("(Pdb) ")
    assert "handlers.py" in where and "read_handler()" in where
    term.type("p widget_id")
    assert "'wdg-demo0001'" in term.expect("(Pdb) ")
    term.type("c")
    code, rest = term.finish()
    assert code == 0, rest
    assert "0 MUST" in rest and "stopped in the debugger" in rest


def test_q_ends_the_run_without_a_finding(demo_copy: Path) -> None:
    term = Terminal([*CLI, "run", "sample_events/read.json", "--no-journal"], demo_copy)
    term.expect("(Pdb) ")
    term.type("q")
    code, rest = term.finish()
    assert code == 0, rest
    assert "0 MUST" in rest


def test_no_terminal_skips_the_breakpoint_with_one_notice(demo_copy: Path) -> None:
    done = subprocess.run(
        [*CLI, "run", "sample_events/read.json", "--no-journal", "--json"],
        cwd=demo_copy,
        env=cli_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(done.stdout)
    steps = [step for run in document["runs"] for step in run["steps"]]
    logs = [line for step in steps for line in step["result"]["logs"]]
    assert sum("breakpoint at handlers.py" in line for line in logs) == 1, logs
    assert "BdbQuit" not in done.stdout


def test_break_at_stops_at_that_line(demo_copy: Path) -> None:
    handlers = demo_copy / "src" / "cfndebug_demo_widget" / "handlers.py"
    text = handlers.read_text().replace("    breakpoint()\n", "", 1)
    handlers.write_text(text)
    line = text.splitlines().index('    LOG.info("read: looking up %s", widget_id)') + 1
    where = f"src/cfndebug_demo_widget/handlers.py:{line}"
    term = Terminal(
        [*CLI, "run", "sample_events/read.json", "--no-journal", "--break-at", where], demo_copy
    )
    stopped = term.expect("(Pdb) ")
    assert f"handlers.py({line})read_handler()" in stopped
    term.type("c")
    code, rest = term.finish()
    assert code == 0, rest
    assert "0 MUST" in rest


def test_break_at_survives_a_save_in_watch_mode(demo_copy: Path) -> None:
    import signal

    handlers = demo_copy / "src" / "cfndebug_demo_widget" / "handlers.py"
    text = handlers.read_text().replace("    breakpoint()\n", "", 1)
    handlers.write_text(text)
    line = text.splitlines().index('    LOG.info("read: looking up %s", widget_id)') + 1
    where = f"src/cfndebug_demo_widget/handlers.py:{line}"
    term = Terminal(
        [*CLI, "run", "sample_events/read.json", "--no-journal", "--watch", "--break-at", where],
        demo_copy,
    )
    assert f"handlers.py({line})read_handler()" in term.expect("(Pdb) ")
    term.type("c")
    term.expect("watching")
    handlers.write_text(text.replace("looking up %s", "looking for %s", 1))  # a save
    assert f"handlers.py({line})read_handler()" in term.expect("(Pdb) ")
    term.type("c")
    term.expect("0 MUST")
    term.process.send_signal(signal.SIGINT)
    code, rest = term.finish()
    assert code in (0, 130), rest
