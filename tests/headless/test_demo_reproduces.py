"""The demo reproduces every documented fault on every run: a second and a third headless run of
the same sample events give the same MUST findings as the first (the seed widgets are restored and
an upserting update's Name freed before each run: ``cfn_debug.demo.seeds``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EVENTS = REPO / "sample_events"

#: the faults whose state a run changes (the others reproduce by construction), and delete.json,
#: whose seed widget a run deletes; fault-slow-read (31 s) is left to test_run_demo
FAULTS = {
    "fault-update-upserts.json": "primary-identifier-matches-request",
    "fault-delete-returns-model.json": "delete-success-no-model",
    "fault-failed-without-error-code.json": "failed-error-code",
    "fault-missing-primary-identifier.json": "primary-identifier-present",
    "fault-identifier-changes-mid-chain.json": "primary-identifier-stable",
    "fault-drop-requested-property.json": "requested-properties-returned",
    "fault-write-only-on-read.json": "write-only-not-returned",
    "fault-schema-violation.json": "model-conforms-to-schema",
    "fault-unhandled-exception.json": "handler-exception",
    "fault-read-in-progress.json": "read-list-not-in-progress",
}


def _run(state: Path) -> dict[str, object]:
    env = {**os.environ, "CFN_DEBUG_DEMO_STATE": str(state), "NO_COLOR": "1"}
    files = [str(EVENTS / name) for name in [*FAULTS, "delete.json"]]
    proc = subprocess.run(
        [sys.executable, "-m", "cfn_debug.cli", "run", *files, "--json", "--max-delay", "0",
         "--no-journal"],
        capture_output=True, text=True, env=env, timeout=240, cwd=REPO,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    return {Path(run["event_path"]).name: run for run in json.loads(proc.stdout)["runs"]}


def _musts(run: object) -> set[str]:
    steps = run["steps"]  # type: ignore[index]
    found = {f["rule_id"] for s in steps for f in s["findings"] if f["level"] == "MUST"}
    return found | {f["rule_id"] for f in run["chain_findings"] if f["level"] == "MUST"}  # type: ignore[index]


@pytest.mark.slow
def test_every_fault_gives_its_must_on_the_second_and_third_run(tmp_path: Path) -> None:
    state = tmp_path / "demo-state"
    for attempt in (1, 2, 3):
        runs = _run(state)
        for name, rule_id in FAULTS.items():
            assert rule_id in _musts(runs[name]), (attempt, name, runs[name]["final_status"])
        assert runs["delete.json"]["final_status"] == "SUCCESS", attempt
