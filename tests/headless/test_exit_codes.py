"""Exit codes CI can trust: 0 no MUST finding, 1 a MUST finding, 2 usage, infrastructure or
internal error; with --json the document is printed in every case, with an ``errors`` list.

An infrastructure problem is never a finding on the handler: a function the runtime cannot load
(Runtime.ImportModuleError), an AWS the handler cannot reach, an endpoint nothing answers at."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any

from support.cli import run_cli

REPO = Path(__file__).resolve().parents[2]
MEMBER = REPO / "tests" / "scenarios" / "projects" / "member"
MODEL = {"GroupName": "engineering", "MemberName": "carol", "Zone": "zone-b"}


def cfn_debug(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    state = tmp_path / "state"
    state.mkdir(exist_ok=True)
    env = {**os.environ, "CORPUS_STATE": str(state), "NO_COLOR": "1"}
    return run_cli(*args, env=env, timeout=120, cwd=REPO)


def event_file(tmp_path: Path, fault: str | None = None) -> str:
    request: dict[str, Any] = {"clientRequestToken": "t", "desiredResourceState": MODEL}
    if fault:
        request["typeConfiguration"] = {"Fault": fault}
    path = tmp_path / "create.json"
    path.write_text(json.dumps({"action": "CREATE", "request": request}))
    return str(path)


def findings(document: dict[str, Any]) -> list[str]:
    return [f["rule_id"] for r in document["runs"] for s in r["steps"] for f in s["findings"]]


def test_a_handler_that_cannot_be_imported_is_exit_2_not_a_finding(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(MEMBER, project)
    handlers = project / "src" / "corpus_member" / "handlers.py"
    handlers.write_text(handlers.read_text() + "\nimport a_dependency_nobody_installed  # noqa\n")
    proc = cfn_debug(tmp_path, "run", event_file(tmp_path), "--project", str(project), "--json")
    assert proc.returncode == 2, proc.stderr
    document = json.loads(proc.stdout)
    assert document["ok"] is False and document["must_findings"] == 0
    assert findings(document) == []
    [error] = document["errors"]
    assert "a_dependency_nobody_installed" in error["message"]  # names the missing module
    assert error["kind"] == "infrastructure"


def test_an_aws_the_handler_cannot_reach_is_exit_2_not_a_finding(tmp_path: Path) -> None:
    event = event_file(tmp_path, "AwsUnreachable")
    proc = cfn_debug(tmp_path, "run", event, "--project", str(MEMBER), "--json", "--no-journal")
    assert proc.returncode == 2, proc.stderr
    document = json.loads(proc.stdout)
    assert "handler-exception" not in findings(document)
    assert document["must_findings"] == 0
    [error] = document["errors"]
    assert "could not reach AWS" in error["message"]
    assert "EndpointConnectionError" in error["message"]


def test_a_dead_endpoint_still_prints_the_json_document(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}"
    for command in (
        ["run", event_file(tmp_path), "--no-journal"],
        ["scenario", "create-read", "--examples", "0"],
    ):
        proc = cfn_debug(
            tmp_path, *command, "--project", str(MEMBER), "--endpoint", endpoint, "--json"
        )
        assert proc.returncode == 2, (command, proc.stderr)
        document = json.loads(proc.stdout)
        assert document["ok"] is False
        assert document["errors"], command


def test_an_error_before_anything_runs_still_prints_the_json_document(tmp_path: Path) -> None:
    for command in (["run", event_file(tmp_path)], ["scenario", "create-read"]):
        proc = cfn_debug(tmp_path, *command, "--project", str(tmp_path / "nowhere"), "--json")
        assert proc.returncode == 2, (command, proc.stderr)
        document = json.loads(proc.stdout)
        assert document["ok"] is False
        [error] = document["errors"]
        assert error["kind"] == "usage or infrastructure" and error["message"]
        assert "cfn-debug: error:" in proc.stderr
