"""`cfn-debug run` of the bundled demo reproduces (issue 13 item 4): every run of a demo event
file is a new request, so the sample create succeeds however often it runs against one store.

The real CLI process, the real demo handlers on the embedded endpoint, the state directory of
this test (conftest)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from demo_support import DEMO_DIR, SAMPLE_EVENTS, load_event

from cfn_debug.demo.runs import requested_name


def run_demo(state: Path, event: str, exit_code: int = 0) -> dict[str, Any]:
    env = {**os.environ, "CFN_DEBUG_DEMO_STATE": str(state), "NO_COLOR": "1"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "cfn_debug.cli",
            "run",
            "--project",
            str(DEMO_DIR),
            "--max-delay",
            "0",
            "--no-journal",
            "--json",
            str(SAMPLE_EVENTS / event),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=state.parent,
    )
    assert proc.returncode == exit_code, proc.stdout + proc.stderr
    document: dict[str, Any] = json.loads(proc.stdout)
    [run] = document["runs"]
    return run


def sent(run: dict[str, Any]) -> dict[str, Any]:
    request: dict[str, Any] = run["steps"][0]["request"]
    return request


def test_running_the_sample_create_twice_creates_two_widgets(state_dir: Path) -> None:
    written = load_event("create.json")["request"]
    first, second = run_demo(state_dir, "create.json"), run_demo(state_dir, "create.json")
    for run in (first, second):
        assert run["final_status"] == "SUCCESS", run["steps"][-1]["result"]
    tokens = [sent(run)["request"]["clientRequestToken"] for run in (first, second)]
    names = [requested_name(sent(run)) for run in (first, second)]
    assert tokens[0] != tokens[1] and written["clientRequestToken"] not in tokens
    assert names[0] != names[1]
    for name in names:
        assert name is not None and name.startswith(written["desiredResourceState"]["Name"] + "-")
    claimed = {p.name for p in (state_dir / "names").iterdir()}
    assert set(names) <= claimed


def test_a_create_naming_a_seed_widget_keeps_that_name(state_dir: Path) -> None:
    """FailedWithoutErrorCode needs the Name taken: it names a seed widget on purpose, so that
    Name is pinned (only the token is new) and the fault reproduces on every run."""
    written = load_event("fault-failed-without-error-code.json")["request"]
    for _ in range(2):
        # its MUST finding (FAILED without an errorCode) is the fault reproducing: exit 1
        run = run_demo(state_dir, "fault-failed-without-error-code.json", exit_code=1)
        assert requested_name(sent(run)) == written["desiredResourceState"]["Name"]
        assert sent(run)["request"]["clientRequestToken"] != written["clientRequestToken"]
        assert run["final_status"] == "FAILED"
