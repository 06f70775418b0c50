"""Read-back on single runs: `cfn-debug run` READs after a CREATE/UPDATE SUCCESS and holds the
SUCCESS model against it. The handlers are the findings corpus' Corpus::Test::Member
(tests/scenarios/projects/member, cloudformation-cli-python-lib), behind the embedded endpoint."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
MEMBER = REPO / "tests" / "scenarios" / "projects" / "member"
OPTS = ("--json",)
MODEL = {"GroupName": "engineering", "MemberName": "bob", "Zone": "zone-a"}


def run(tmp_path: Path, *events: dict[str, Any], extra: tuple[str, ...] = ()) -> Any:
    files = []
    for index, event in enumerate(events):
        path = tmp_path / f"event-{index}.json"
        path.write_text(json.dumps(event))
        files.append(str(path))
    state = tmp_path / "state"
    state.mkdir(exist_ok=True)
    env = {**os.environ, "CORPUS_STATE": str(state), "NO_COLOR": "1"}
    if "--journal" not in extra:
        extra = (*extra, "--no-journal")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "cfn_debug.cli",
            "run",
            *files,
            "--project",
            str(MEMBER),
            *OPTS,
            *extra,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=REPO,
    )
    return proc, json.loads(proc.stdout) if proc.stdout.strip() else None


def create(fault: str | None = None, **extra: str) -> dict[str, Any]:
    desired = {**MODEL, **extra}
    request: dict[str, Any] = {"clientRequestToken": "t-create", "desiredResourceState": desired}
    if fault:
        request["typeConfiguration"] = {"Fault": fault}
    return {"action": "CREATE", "request": request}


def update(fault: str | None = None) -> dict[str, Any]:
    request: dict[str, Any] = {
        "clientRequestToken": "t-update",
        "desiredResourceState": {**MODEL, "Description": "changed"},
        "previousResourceState": MODEL,
    }
    if fault:
        request["typeConfiguration"] = {"Fault": fault}
    return {"action": "UPDATE", "request": request}


def musts(run_doc: dict[str, Any]) -> list[tuple[int, str, str | None]]:
    return [
        (step["index"], f["rule_id"], f["pointer"])
        for step in run_doc["steps"]
        for f in step["findings"]
        if f["level"] == "MUST"
    ]


def test_a_read_only_property_dropped_on_update_is_a_must(tmp_path: Path) -> None:
    """The update's SUCCESS model lacks Revision and Arn, which the READ right after returns:
    before read-back only a SHOULD (read-only-properties-present) said so, and run exited 0."""
    proc, doc = run(tmp_path, create(), update("DropReadOnlyOnUpdate"))
    assert proc.returncode == 1, proc.stderr
    created, updated = doc["runs"]
    assert musts(created) == []
    assert sorted(musts(updated)) == [
        (0, "read-back-complete", "/resourceModel/Arn"),
        (0, "read-back-complete", "/resourceModel/Revision"),
    ]
    # one finding per cause: the SHOULD that could not know is gone
    assert not [f for f in updated["steps"][0]["findings"] if f["rule_id"].startswith("read-only")]
    read = updated["steps"][-1]
    assert read["origin"] == "read-back" and read["action"] == "READ"
    assert read["request"]["request"]["desiredResourceState"] == {
        "GroupName": "engineering",
        "MemberName": "bob",
    }


def test_the_read_back_step_reaches_the_journal_marked(tmp_path: Path) -> None:
    from cfn_debug.journal.session import load_journal

    journal = tmp_path / "journal.jsonl"
    proc, _ = run(tmp_path, create(), extra=("--journal", str(journal)))
    assert proc.returncode == 0, proc.stderr
    [loaded] = load_journal(journal).runs
    assert [s.origin for s in loaded.steps] == [None, "read-back"]


def test_no_read_back_turns_it_off(tmp_path: Path) -> None:
    proc, doc = run(tmp_path, create(), update("DropReadOnlyOnUpdate"), extra=("--no-read-back",))
    assert proc.returncode == 0, proc.stderr
    assert all(step["action"] != "READ" for r in doc["runs"] for step in r["steps"])


def test_a_read_that_fails_after_create_is_a_must_on_the_create(tmp_path: Path) -> None:
    proc, doc = run(tmp_path, create("ReadNotFound"))
    assert proc.returncode == 1, proc.stderr
    (created,) = doc["runs"]
    assert musts(created) == [(0, "read-back-succeeds", "/resourceModel")]
    finding = next(f for f in created["steps"][0]["findings"] if f["level"] == "MUST")
    assert "FAILED NotFound" in finding["message"]
    assert created["final_status"] == "SUCCESS"


def test_a_correct_handler_reads_back_clean(tmp_path: Path) -> None:
    """Its READ keeps every requested property but the writeOnly InitialPassword."""
    proc, doc = run(tmp_path, create(InitialPassword="correct-horse"), update())
    assert proc.returncode == 0, proc.stderr
    for run_doc in doc["runs"]:
        assert [s["action"] for s in run_doc["steps"]][-1] == "READ"
        assert musts(run_doc) == []
        assert not [
            f for s in run_doc["steps"] for f in s["findings"] if "read-back" in f["rule_id"]
        ]


def test_a_read_that_drops_a_requested_property_is_a_should(tmp_path: Path) -> None:
    """The READ right after the create leaves out the Description the request set (and the
    SUCCESS model returned); the writeOnly InitialPassword it leaves out too is no finding."""
    fault = create("ReadDropsDescription", Description="first", InitialPassword="correct-horse")
    proc, doc = run(tmp_path, fault)
    assert proc.returncode == 0, proc.stderr  # a SHOULD
    (created,) = doc["runs"]
    found = [(f["rule_id"], f["level"], f["pointer"]) for f in created["steps"][0]["findings"]]
    assert found == [("read-back-keeps-requested", "SHOULD", "/resourceModel/Description")]
    assert '= "first" is missing from the READ' in created["steps"][0]["findings"][0]["message"]
