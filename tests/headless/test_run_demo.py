"""`cfn-debug run` end to end: the real CLI process, the embedded endpoint, the real demo handlers.

The expected rule for each fault is the contract sentence it breaks (sample_events/README.md);
the table below is the specification, written by hand, not produced by the code under test.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.cli import run_cli

REPO = Path(__file__).resolve().parents[2]
EVENTS = REPO / "sample_events"

FAULT_RULES = {
    "fault-delete-returns-model.json": "delete-success-no-model",
    "fault-drop-requested-property.json": "requested-properties-returned",
    "fault-failed-without-error-code.json": "failed-error-code",
    "fault-identifier-changes-mid-chain.json": "primary-identifier-stable",
    "fault-missing-primary-identifier.json": "primary-identifier-present",
    "fault-read-in-progress.json": "read-list-not-in-progress",
    "fault-schema-violation.json": "model-conforms-to-schema",
    "fault-slow-read.json": "invocation-time-limit",
    "fault-unhandled-exception.json": "handler-exception",
    "fault-update-upserts.json": "primary-identifier-matches-request",
    "fault-write-only-on-read.json": "write-only-not-returned",
}
GOOD = ["create.json", "read.json", "update.json", "list.json", "delete.json"]


def cfn_debug(*args: str, state: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CFN_DEBUG_DEMO_STATE": str(state), "NO_COLOR": "1"}
    return run_cli(*args, env=env, timeout=timeout, cwd=REPO)


@pytest.fixture(scope="module")
def all_events_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every sample event in one headless run, as CI would do it."""
    state = tmp_path_factory.mktemp("demo-state")
    files = [str(EVENTS / name) for name in [*GOOD, *FAULT_RULES]]
    proc = cfn_debug("run", *files, "--json", "--max-delay", "0", state=state)
    assert proc.returncode == 1, proc.stderr  # the faults give MUST findings
    document = json.loads(proc.stdout)
    return {Path(run["event_path"]).name: run for run in document["runs"]} | {"_doc": document}


def _rules(run: dict[str, Any], level: str | None = None) -> set[str]:
    findings = [f for step in run["steps"] for f in step["findings"]] + run["chain_findings"]
    return {f["rule_id"] for f in findings if level is None or f["level"] == level}


@pytest.mark.parametrize("event", GOOD)
def test_good_paths_have_no_must_finding(all_events_run: dict[str, Any], event: str) -> None:
    run = all_events_run[event]
    assert run["final_status"] == "SUCCESS"
    assert _rules(run, "MUST") == set()


@pytest.mark.parametrize(("event", "rule_id"), sorted(FAULT_RULES.items()))
def test_each_fault_is_reported_with_its_rule(
    all_events_run: dict[str, Any], event: str, rule_id: str
) -> None:
    assert rule_id in _rules(all_events_run[event], "MUST")


def test_create_chain_replays_callback_context(all_events_run: dict[str, Any]) -> None:
    steps = [s for s in all_events_run["create.json"]["steps"] if s.get("origin") is None]
    assert [s["result"]["progress"]["status"] for s in steps][-1] == "SUCCESS"
    assert len(steps) > 1, "the demo create stabilizes over several IN_PROGRESS steps"
    # each re-invocation carries the callbackContext the previous step returned
    for before, after in itertools.pairwise(steps):
        assert (
            after["request"]["callbackContext"] == before["result"]["progress"]["callbackContext"]
        )


@pytest.mark.parametrize("event", ["create.json", "update.json"])
def test_a_create_or_update_success_is_read_back(
    all_events_run: dict[str, Any], event: str
) -> None:
    """cfn-debug's own READ follows the SUCCESS, marked as its own; the run stays SUCCESS."""
    run = all_events_run[event]
    last = run["steps"][-1]
    assert last["origin"] == "read-back" and last["action"] == "READ"
    assert last["result"]["progress"]["status"] == "SUCCESS"
    model = run["steps"][-2]["result"]["progress"]["resourceModel"]
    sent = last["request"]["request"]["desiredResourceState"]
    assert sent == {"WidgetId": model["WidgetId"]}
    assert run["final_status"] == "SUCCESS"
    assert all(s.get("origin") is None for s in all_events_run["read.json"]["steps"])


def test_json_document_summarises_for_ci(all_events_run: dict[str, Any]) -> None:
    document = all_events_run["_doc"]
    assert document["ok"] is False
    assert document["must_findings"] >= len(FAULT_RULES)
    assert document["type_name"] == "CfnDebug::Demo::Widget"


def test_credentials_never_reach_the_output(tmp_path: Path) -> None:
    event = json.loads((EVENTS / "read.json").read_text())
    event["credentials"] = {
        "accessKeyId": "AKIAZZZZZZZZZZZZZZZZ",
        "secretAccessKey": "s3cr3t-key-that-must-not-leak",
        "sessionToken": "token-that-must-not-leak",
    }
    path = tmp_path / "read-with-creds.json"
    path.write_text(json.dumps(event))
    journal = tmp_path / "journal.jsonl"
    for extra in ([], ["--json"]):
        proc = cfn_debug(
            "run", str(path), "--logs", "--journal", str(journal), *extra, state=tmp_path / "s"
        )
        assert proc.returncode == 0, proc.stderr
        everything = proc.stdout + proc.stderr + journal.read_text()
        for secret in event["credentials"].values():
            assert secret not in everything


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "line 1"),
        ('{"action": "CRAETE", "request": {}, "credentials": {}}', "action"),
    ],
)
def test_malformed_event_is_one_line_and_exit_2(
    tmp_path: Path, content: str, expected: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    proc = cfn_debug("run", str(path), state=tmp_path / "s")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert str(path) in proc.stderr and expected in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_dead_endpoint_is_exit_2_with_advice(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a loopback port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = cfn_debug(
        "run",
        str(EVENTS / "read.json"),
        "--endpoint",
        f"http://127.0.0.1:{port}",
        state=tmp_path / "s",
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "start" in (proc.stdout + proc.stderr).lower()


def test_broken_schema_is_one_line_and_exit_2(tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(
        '{"typeName": "Not A Type", "properties": {}, "primaryIdentifier": ["/properties/X"]}'
    )
    proc = cfn_debug(
        "run", str(EVENTS / "read.json"), "--schema", str(schema), state=tmp_path / "s"
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert str(schema) in proc.stderr


def test_every_run_is_journalled_by_default(tmp_path: Path, state_home: Path) -> None:
    from cfn_debug.journal.session import load_journal

    before = set(state_home.rglob("*.jsonl"))
    proc = cfn_debug("run", str(EVENTS / "create.json"), "--max-delay", "0", state=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (journal,) = set(state_home.rglob("*.jsonl")) - before
    assert str(journal) in proc.stdout
    session = load_journal(journal)
    (run,) = session.runs
    assert run.final_status == "SUCCESS" and len(run.steps) >= 2
    assert session.meta["project"] and Path(session.meta["project"]).is_dir()

    proc = cfn_debug("run", str(EVENTS / "read.json"), "--no-journal", state=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert set(state_home.rglob("*.jsonl")) - before == {journal}


@pytest.mark.parametrize("extra", [[], ["--json"], ["--logs"]])
def test_write_only_values_are_masked_unless_revealed(tmp_path: Path, extra: list[str]) -> None:
    secret = json.loads((EVENTS / "create.json").read_text())["request"]["desiredResourceState"][
        "Secret"
    ]
    args = ["run", str(EVENTS / "create.json"), "--max-delay", "0", "--no-journal", *extra]
    proc = cfn_debug(*args, state=tmp_path / "a")
    assert proc.returncode == 0, proc.stderr
    assert secret not in proc.stdout + proc.stderr
    assert "***WRITE-ONLY***" in proc.stdout
    revealed = cfn_debug(*args, "--reveal-write-only", state=tmp_path / "b")
    assert secret in revealed.stdout
