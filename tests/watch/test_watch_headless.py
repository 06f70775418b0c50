"""`cfn-debug run --watch` as a user runs it: the real CLI process on a copy of the demo, a save
of a handler file, then Ctrl-C (SIGINT to the whole process group, as a terminal sends it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from watch_support import HANDLERS, WAIT_S, edit

from support.lines import Lines

GUARDED = 'if fault == "WriteOnlyOnRead" and record.get("secret"):'
UNGUARDED = 'if record.get("secret"):'


def run_watch(project: Path, state: Path, event: str) -> subprocess.Popen[str]:
    """`cfn-debug run --watch` on one of the project's sample events, in a session of its own
    (so the test can send it Ctrl-C as a terminal would)."""
    env = {**os.environ, "CFN_DEBUG_DEMO_STATE": str(state), "NO_COLOR": "1", "COLUMNS": "200"}
    command = [sys.executable, "-m", "cfn_debug.cli", "run", "--watch", "--project", str(project)]
    return subprocess.Popen(
        [*command, "--max-delay", "0", str(project / "sample_events" / event)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=project,
        start_new_session=True,
    )


def test_run_watch_reruns_on_save_and_exits_130_on_ctrl_c(project: Path, state: Path) -> None:
    proc = run_watch(project, state, "read.json")
    try:
        out = Lines(proc, wait_s=WAIT_S)
        out.until("watching")
        edit(project / HANDLERS, GUARDED, UNGUARDED)
        out.until("changed (source)")
        out.until(str(HANDLERS))
        assert "1 new" in out.until("vs previous run")
        out.until("write-only-not-returned")
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=WAIT_S) == 130
        out.until("stopped watching: 2 run(s), 1 MUST finding(s)")
        stderr = proc.stderr.read() if proc.stderr else ""
        assert "Traceback" not in stderr, stderr
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_build_needs_watch_and_json_excludes_it(capsys, tmp_path: Path) -> None:
    from cfn_debug.cli import main

    event_file = str(Path(__file__).resolve().parents[2] / "sample_events" / "read.json")
    assert main(["run", "--build", "make", event_file]) == 2
    assert "--build" in capsys.readouterr().err
    assert main(["run", "--watch", "--json", event_file]) == 2
    assert "--json" in capsys.readouterr().err


def test_run_watch_reruns_the_demo_create_without_already_exists(
    project: Path, state: Path
) -> None:
    """Issue 13 item 4 through the CLI: each save re-runs the create as a new request (fresh
    token and Name), so every run succeeds instead of the second answering AlreadyExists."""
    proc = run_watch(project, state, "create.json")
    try:
        out = Lines(proc, wait_s=WAIT_S)
        out.until("watching")
        edit(project / HANDLERS, GUARDED, UNGUARDED)
        out.until("vs previous run")
        edit(project / HANDLERS, UNGUARDED, GUARDED)
        out.until("changed (source)")
        out.until("vs previous run")
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=WAIT_S) == 130
        out.until("stopped watching: 3 run(s)")
        text = "".join(out.text)
        assert "AlreadyExists" not in text, text
        stderr = proc.stderr.read() if proc.stderr else ""
        assert "Traceback" not in stderr, stderr
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    # three widgets, one per run, each with its own Name
    names = {p.name for p in (state / "names").iterdir()}
    created = {n for n in names if n.startswith("my-first-widget-")}
    assert len(created) == 3, names
