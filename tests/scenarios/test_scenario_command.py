"""`cfn-debug scenario` as CI runs it: the real CLI process, the embedded endpoint, the demo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cfn_debug.scenarios import SCENARIOS
from conftest import REPO, empty_state, widgets


def cfn_debug(*args: str, state: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CFN_DEBUG_DEMO_STATE": str(state), "NO_COLOR": "1", "COLUMNS": "120"}
    return subprocess.run(
        [sys.executable, "-m", "cfn_debug.cli", "scenario", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=REPO,
    )


FAST = ("--max-delay", "0", "--examples", "3", "--seed", "2")


def test_all_json_passes_on_the_demo(tmp_path: Path) -> None:
    state = empty_state(tmp_path / "state")
    proc = cfn_debug("all", "--json", *FAST, state=state)
    assert proc.returncode == 0, proc.stderr[-2000:]
    document = json.loads(proc.stdout)
    assert document["ok"] is True
    assert document["inputs"] == "example_inputs/inputs_1_create.json, inputs_1_update.json"
    # the demo has example_inputs/: `all` leaves generated-inputs out unless --generate
    assert [s["name"] for s in document["scenarios"]] == [
        s.name for s in SCENARIOS if s.name != "generated-inputs"
    ]
    assert {s["outcome"] for s in document["scenarios"]} == {"passed"}
    create_read = next(s for s in document["scenarios"] if s["name"] == "create-read")
    steps = [step for a in create_read["actions"] for step in a["run"]["steps"]]
    assert steps and all("findings" in step for step in steps)
    assert widgets(state) == []


def test_a_must_failure_exits_1_and_names_the_rule(tmp_path: Path) -> None:
    state = empty_state(tmp_path / "state")
    proc = cfn_debug(
        "update-without-create",
        "delete-read",
        "--json",
        "--fault",
        "UpdateUpserts",
        *FAST,
        state=state,
    )
    assert proc.returncode == 1, proc.stderr[-2000:]
    document = json.loads(proc.stdout)
    assert document["ok"] is False
    assert document["type_configuration"] == {"Fault": "UpdateUpserts"}
    outcomes = {s["name"]: s["outcome"] for s in document["scenarios"]}
    assert outcomes == {"update-without-create": "failed", "delete-read": "passed"}
    scenario = next(s for s in document["scenarios"] if s["name"] == "update-without-create")
    verdict = scenario["verdicts"][-1]
    assert verdict["rule_id"] == "scenario-update-not-found" and verdict["status"] == "fail"
    assert "MUST return FAILED with a `NotFound` error code" in verdict["contract"]


def test_the_console_report_shows_verdicts_with_their_contract_sentence(tmp_path: Path) -> None:
    state = empty_state(tmp_path / "state")
    proc = cfn_debug("create-create", "--fault", "FailedWithoutErrorCode", *FAST, state=state)
    assert proc.returncode == 1, proc.stderr[-2000:]
    out = proc.stdout
    assert "FAIL MUST scenario-create-already-exists" in out
    assert "MUST return FAILED with an AlreadyExists error code" in out
    assert "failed-error-code" in out  # the step finding, as `cfn-debug run` prints it
    assert "cleanup: deleted wdg-" in out


def test_an_unusable_endpoint_exits_2(tmp_path: Path) -> None:
    state = empty_state(tmp_path / "state")
    proc = cfn_debug(
        "create-read", "--json", "--endpoint", "http://127.0.0.1:9", *FAST, state=state
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    document = json.loads(proc.stdout)
    assert document["scenarios"][0]["outcome"] == "error"


def test_bad_options_are_typed_errors(tmp_path: Path) -> None:
    state = empty_state(tmp_path / "state")
    fault = cfn_debug("create-read", "--fault", "NoSuchFault", state=state)
    assert fault.returncode == 2
    assert "--fault" in fault.stderr and "NoSuchFault" in fault.stderr
    assert "Traceback" not in fault.stderr
    name = cfn_debug("no-such-scenario", state=state)
    assert name.returncode == 2 and "no scenario 'no-such-scenario'" in name.stderr
    config = cfn_debug("create-read", "--type-configuration", "[1]", state=state)
    assert config.returncode == 2 and "--type-configuration" in config.stderr
