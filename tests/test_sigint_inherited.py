"""The suite stands an inherited ignored SIGINT (pytest started from a background shell, `&`):
the processes the tests start get Ctrl-C's default handling back, so a test that stops
`cfn-debug serve` with SIGINT still stops it, and no `serve` is left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TEST = (
    "tests/endpoint/test_serve.py::test_serve_prints_the_url_and_sam_style_logs_and_stops_on_ctrl_c"
)


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.slow
def test_a_ctrl_c_test_passes_when_pytest_inherits_an_ignored_sigint(tmp_path: Path) -> None:
    marker = f"cfn-debug-sigint-{os.getpid()}"
    env = {**os.environ, "CFN_DEBUG_TEST_MARKER": marker}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", TEST, "-q", "-p", "no:cacheprovider", "-x"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
        preexec_fn=_ignore_sigint,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert _carrying(marker) == []


def _carrying(marker: str) -> list[int]:
    """The processes whose environment holds ``marker``: what the run left behind."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if f"CFN_DEBUG_TEST_MARKER={marker}".encode() in environ.split(b"\0"):
            found.append(int(entry.name))
    return found
