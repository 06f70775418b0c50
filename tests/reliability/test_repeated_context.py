"""A 5 MB callbackContext replayed 60 times (BigContext returns the same context at every
IN_PROGRESS step). What must hold: the journal stores the repeated context once and refers to
the step that first returned it (its size does not grow with 5 MB per step), the headless run's
memory stays bounded, and the journal loads back, and exports, with every step's context whole
(the exported transcript is self-contained: no references)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cfn_debug.export.json import load_transcript
from cfn_debug.journal.session import load_journal
from reliability.support import (
    CLI_WITH_PEAK_RSS,
    HOSTILE,
    REPO,
    child_env,
    peak_rss_mb,
    sam_event,
    write_json,
)

pytestmark = [pytest.mark.timeout(600), pytest.mark.slow]

MB = 1024 * 1024
STEPS = 60  # 2 x 5 MB x 61 steps = 610 MB if unshared: well past the 300 MB bound below


def test_a_5_mb_context_replayed_60_times_is_stored_once(tmp_path: Path) -> None:
    event = write_json(tmp_path / "ctx.json", sam_event("ctx", Steps=STEPS, ContextMB=5))
    journal = tmp_path / "ctx.jsonl"
    proc = subprocess.run(
        [
            sys.executable, "-c", CLI_WITH_PEAK_RSS, "run", str(event), "--project", str(HOSTILE),
            "--function-name", "BigContext", "--journal", str(journal),
            "--max-reinvoke", str(STEPS), "--max-delay", "0", "--no-read-back",
        ],
        capture_output=True,
        text=True,
        env=child_env(XDG_STATE_HOME=str(tmp_path / "state")),
        cwd=REPO,
        timeout=540,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    peak_mb = peak_rss_mb(proc.stderr)
    size = journal.stat().st_size
    # One full copy of the context (plus a little per step), not 2 x 5 MB x 61 steps = 610 MB.
    assert size < 3 * 5 * MB, f"journal {size / MB:.0f} MB"
    # The run keeps one context object for the chain, not one per step (300 MB): measured at
    # ~135 MB, 1.1 GB before contexts were shared. (Bound raised to 800 MB for a while: it read
    # ru_maxrss, which in a child of this pytest process starts at pytest's own peak.)
    assert peak_mb < 300, f"peak RSS {peak_mb:.0f} MB"

    (run,) = load_journal(journal).runs
    assert len(run.steps) == STEPS + 1 and run.final_status == "SUCCESS"
    for step in run.steps[1:]:
        assert len(step.request["callbackContext"]["state"]) == 5 * MB
    for step in run.steps[:-1]:
        assert len(step.result.progress["callbackContext"]["state"]) == 5 * MB

    out = tmp_path / "ctx.json.out"
    exported = subprocess.run(
        [sys.executable, "-m", "cfn_debug.cli", "export", str(journal), "-o", str(out)],
        capture_output=True, text=True, env=child_env(), cwd=REPO, timeout=300,
    )  # fmt: skip
    assert exported.returncode == 0, exported.stderr[-2000:]
    with out.open(encoding="utf-8") as head:
        assert "context_refs" not in head.read(1000)
    assert out.stat().st_size > 2 * 5 * STEPS * MB * 0.9  # self-contained: every context in full

    # Loaded back, the repeated context is one object again, as the journal loader keeps it:
    # the child's peak is a few contexts, not the 600 MB text plus a copy per step (~1.2 GB).
    loaded = subprocess.run(
        [sys.executable, "-c", LOAD_WITH_PEAK_RSS, str(out)],
        capture_output=True, text=True, env=child_env(), cwd=REPO, timeout=300,
    )  # fmt: skip
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    assert loaded.stdout.split() == [str(STEPS + 1), "5242880", "shared"], loaded.stdout
    peak_mb = peak_rss_mb(loaded.stderr)
    assert peak_mb < 400, f"peak RSS loading the transcript {peak_mb:.0f} MB"

    (again,) = load_transcript(out).runs
    assert len(again.steps[50].request["callbackContext"]["state"]) == 5 * MB
    json.loads(journal.read_bytes().splitlines()[-1])


#: ``python -c LOAD_WITH_PEAK_RSS TRANSCRIPT``: load it, print the steps, a context's size and
#: whether two steps share one context object, then the process's own peak (VmHWM) on stderr.
LOAD_WITH_PEAK_RSS = """
import sys
from cfn_debug.export.json import load_transcript
(run,) = load_transcript(sys.argv[1]).runs
steps = run.steps
first = steps[1].request["callbackContext"]
same = all(
    s.request["callbackContext"] is first and s.result.progress["callbackContext"] is first
    for s in steps[1:-1]
)
print(len(steps), len(first["state"]), "shared" if same else "copies")
with open("/proc/self/status", encoding="ascii") as status:
    print(next(line for line in status if line.startswith("VmHWM:")), file=sys.stderr)
"""


def test_the_peak_read_in_a_child_is_the_childs_own() -> None:
    """The measurement above is the CLI process's, whatever this pytest process reached before
    (it once read 630 MB after the rest of tests/reliability: the parent's high-water mark)."""
    ballast = b"x" * (400 * MB)  # written, so resident: this process's peak is now 400 MB+
    proc = subprocess.run(
        [sys.executable, "-c", CLI_WITH_PEAK_RSS, "rules"],
        capture_output=True, text=True, env=child_env(), cwd=REPO, timeout=120,
    )  # fmt: skip
    del ballast
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert peak_rss_mb(proc.stderr) < 150, proc.stderr[-500:]
