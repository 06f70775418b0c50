"""`cfn-debug run --watch --local-aws`: a saved input file is read again with its placeholders
filled from the setup stack's exports, and re-runs against the local AWS."""

from __future__ import annotations

import json
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from .conftest import TABLE_NOTE, clean_env

WAIT_S = 120.0  # a bound on how long to wait for a line, not a timing assertion


def until(lines: queue.Queue[str | None], seen: list[str], needle: str) -> str:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        if line is None:
            break
        seen.append(line)
        if needle in line:
            return line
    raise AssertionError(f"{needle!r} never printed; got:\n{''.join(seen)}")


@pytest.mark.slow
def test_a_saved_input_reruns_with_its_placeholders_filled(tmp_path: Path) -> None:
    project = tmp_path / "table-note"
    shutil.copytree(TABLE_NOTE, project)
    event = project / "inputs" / "inputs_1_create.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cfn_debug.cli", "run", "--watch", "--local-aws",
         "--project", str(project), str(event), "--no-journal"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=clean_env(), cwd=project, start_new_session=True,
    )  # fmt: skip
    lines: queue.Queue[str | None] = queue.Queue()
    seen: list[str] = []

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    try:
        until(lines, seen, "SUCCESS after 1 step")
        until(lines, seen, "watching")
        model = json.loads(event.read_text())
        event.write_text(json.dumps({**model, "Title": "saved-again"}))
        until(lines, seen, "SUCCESS after 1 step")  # a new note: the placeholder was filled
        assert not any("unresolved placeholder" in line for line in seen)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
