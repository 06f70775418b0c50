"""The console report of a scenario counts as its verdicts and exit status do: a finding the
scenario provokes on purpose (update-create-only's changed createOnly value) is announced as
"expected here, not counted" and not shown as a MUST on the step nor counted in its run line
(AwsCommunity::ApplicationAutoscaling::ScheduledAction's report said "1 MUST" under a pass)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MEMBER = REPO / "tests" / "scenarios" / "projects" / "member"


def test_an_expected_finding_is_not_shown_as_a_must(tmp_path: Path) -> None:
    env = {**os.environ, "CORPUS_STATE": str(tmp_path), "NO_COLOR": "1", "COLUMNS": "200"}
    proc = subprocess.run(
        [sys.executable, "-m", "cfn_debug.cli", "scenario", "update-create-only",
         "--project", str(MEMBER)],
        capture_output=True, text=True, env=env, timeout=120, cwd=REPO,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    out = proc.stdout
    assert "expected here, not counted: input-create-only-unchanged" in out
    update = out[out.index("▶ update-create-only: update with createOnly") :]
    update = update[: update.index("PASS SHOULD scenario-create-only-not-updatable")]
    assert "input-create-only-unchanged" not in update, update
    assert "0 MUST, 0 SHOULD" in update, update
