"""Nothing lost: kill -9 the headless run and the dashboard in the middle of a chain; the journal
loads back with every step that completed, a torn last line is reported and skipped, and the
same journal takes the next run."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import pytest

from cfn_debug.journal.session import load_journal
from reliability.support import (
    HOSTILE,
    REPO,
    alive,
    child_env,
    children_of,
    sam_event,
    wait_for,
    write_json,
)

pytestmark = pytest.mark.timeout(120)


def complete_step_lines(path: Path) -> list[dict]:
    """The step entries whose line was written in full (ends with a newline), read on their own."""
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    entries = [json.loads(line) for line in complete.splitlines() if line.strip()]
    return [entry for entry in entries if entry["type"] == "step"]


def run_headless(event: Path, journal: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cfn_debug.cli",
            "run",
            str(event),
            "--project",
            str(HOSTILE),
            "--function-name",
            "LongChain",
            "--journal",
            str(journal),
            "--max-reinvoke",
            "100000",
            "--max-delay",
            "0",
            "--no-read-back",  # LongChain answers every action as a chain: no READ to compare
            *extra,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=child_env(),
        cwd=REPO,
    )


def test_kill_9_of_the_headless_run_mid_chain_loses_no_completed_step(tmp_path: Path) -> None:
    """`cfn-debug run --journal F` on a 100,000-step IN_PROGRESS chain, SIGKILLed after 8 steps:
    load_journal gives the run (interrupted: no end reason) with exactly the steps whose lines
    were complete, in order, each with the callbackContext the chain replayed; the worker
    processes do not outlive the run; a torn last line (cut as a torn write leaves it) is
    reported and skipped; the same journal then takes a new run that completes."""
    event = write_json(tmp_path / "long.json", sam_event("long", Steps=100_000, SleepMs=20))
    journal = tmp_path / "session.jsonl"
    proc = run_headless(event, journal)
    try:
        wait_for(
            lambda: journal.exists() and len(complete_step_lines(journal)) >= 8,
            "8 steps in the journal",
            timeout=60,
        )
        workers = children_of(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    written = complete_step_lines(journal)
    session = load_journal(journal)
    assert session.problems == []
    [run] = session.runs
    assert run.end_reason is None  # interrupted
    assert len(run.steps) == len(written) >= 8
    assert [s.index for s in run.steps] == list(range(len(run.steps)))
    for step in run.steps[1:]:
        assert step.request["callbackContext"] == {"n": step.index}
        assert step.result.status == "IN_PROGRESS"
    assert workers, "the run had no worker process"
    wait_for(lambda: not any(alive(pid) for pid in workers), "the workers to exit", timeout=15)

    # A torn write: the last line cut in half.
    data = journal.read_bytes()
    last = data.rstrip(b"\n").rfind(b"\n") + 1
    journal.write_bytes(data[: last + (len(data) - last) // 2])
    torn = load_journal(journal)
    assert len(torn.problems) == 1 and "torn last line" in torn.problems[0]
    assert len(torn.runs[0].steps) == len(run.steps) - 1

    # The next run appends to the same journal and both runs load back.
    short = write_json(tmp_path / "short.json", sam_event("short", Steps=2, SleepMs=1))
    again = run_headless(short, journal)
    _, err = again.communicate(timeout=60)
    assert again.returncode == 0, err.decode()
    reloaded = load_journal(journal)
    assert [len(r.steps) for r in reloaded.runs] == [len(run.steps) - 1, 3]
    assert reloaded.runs[1].final_status == "SUCCESS"


def _drain(fd: int, sink: bytearray) -> None:
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return
        if not chunk:
            return
        sink.extend(chunk)


def test_kill_9_of_the_dashboard_mid_chain_loses_no_completed_step(tmp_path: Path) -> None:
    """The real dashboard (`cfn-debug ui`) under a pseudo-terminal runs a long IN_PROGRESS chain
    ("r" on the selected event) and is SIGKILLed after 5 steps: the journal it keeps under
    $XDG_STATE_HOME/cfn-debug/journals loads back with every completed step."""
    project = tmp_path / "project"
    shutil.copytree(HOSTILE, project)
    write_json(
        project / "sample_events" / "long.json", sam_event("long", Steps=100_000, SleepMs=20)
    )
    state = tmp_path / "state"
    primary, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 140, 0, 0))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cfn_debug.cli",
            "ui",
            str(project),
            "--function-name",
            "LongChain",
            "--max-delay",
            "0",
        ],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env=child_env(TERM="xterm-256color", XDG_STATE_HOME=str(state)),
        cwd=tmp_path,
        start_new_session=True,
    )
    os.close(secondary)
    screen = bytearray()
    threading.Thread(target=_drain, args=(primary, screen), daemon=True).start()
    journals = state / "cfn-debug" / "journals"
    try:
        wait_for(lambda: b"long" in screen, "the dashboard to list the event", timeout=30)
        os.write(primary, b"r")

        def journal() -> Path | None:
            found = sorted(journals.glob("*.jsonl")) if journals.is_dir() else []
            return found[-1] if found and len(complete_step_lines(found[-1])) >= 5 else None

        path = wait_for(journal, "5 steps in the dashboard's journal", timeout=12)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        os.close(primary)
    written = complete_step_lines(path)
    session = load_journal(path)
    [run] = session.runs
    assert run.end_reason is None and len(run.steps) == len(written) >= 5
