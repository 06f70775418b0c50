"""The command line as a shell pipeline uses it."""

from __future__ import annotations

import os
import subprocess
import sys


def test_a_reader_that_goes_away_is_no_error() -> None:
    """`cfn-debug rules --json | head -0`: the pipe is closed before anything is written."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "cfn_debug.cli", "rules", "--json"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert proc.returncode == 0
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr
