"""`cfn-debug run --watch --local-aws`: a saved input file is read again with its placeholders
filled from the setup stack's exports, and re-runs against the local AWS."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.lines import Lines, interrupt

from .conftest import TABLE_NOTE, clean_env

WAIT_S = 120.0  # a bound on how long to wait for a line, not a timing assertion


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
    out = Lines(proc, wait_s=WAIT_S)
    try:
        out.until("SUCCESS after 1 step")
        out.until("watching")
        model = json.loads(event.read_text())
        event.write_text(json.dumps({**model, "Title": "saved-again"}))
        out.until("SUCCESS after 1 step")  # a new note: the placeholder was filled
        assert not any("unresolved placeholder" in line for line in out.text)
    finally:
        interrupt(proc)
    assert proc.returncode == 130
