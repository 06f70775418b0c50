"""The command line as a shell pipeline uses it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EVENT = Path(__file__).resolve().parents[1] / "sample_events" / "read.json"


def closed_pipe_run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run cfn-debug with a stdout pipe whose reader is gone before anything is written."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "cfn_debug.cli", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("journal") / "session.jsonl"
    subprocess.run(
        [sys.executable, "-m", "cfn_debug.cli", "run", str(EVENT), "--journal", str(path)],
        capture_output=True,
        check=True,
        timeout=120,
    )
    return path


@pytest.mark.parametrize("command", ["rules", "export"])
def test_a_reader_that_goes_away_is_no_error(command: str, journal: Path) -> None:
    """`cfn-debug rules --json | head -0`, `cfn-debug export J --format md | head -0`."""
    args = ["rules", "--json"] if command == "rules" else ["export", str(journal), "--format", "md"]
    proc = closed_pipe_run(*args)
    assert proc.returncode == 0
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr
