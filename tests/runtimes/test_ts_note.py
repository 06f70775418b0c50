"""The TypeScript fixture (ts-note: cloudformation-cli-typescript-lib from npm, DynamoDB through the
AWS SDK for JavaScript v3) end to end on the real embedded endpoint and moto's real server:
`cfn-debug run`, `scenario all` and watch mode, as for the Python fixtures. The project is built
once per session (see conftest.ts_note_built); every test here is slow."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.lines import Lines, interrupt

from .conftest import DEMO_FAULT, TS_NOTE, cfn_debug, clean_env

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

WAIT_S = 240.0  # a bound on how long to wait for a line, not a timing assertion
FAULT = "sample_events/fault-delete-returns-model.json"
TABLE = "CfnDebugFixtureTsNotesTable=any-table"


def document(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def rules(run: dict[str, Any]) -> set[str]:
    return {f["rule_id"] for step in run["steps"] for f in step["findings"]}


def test_run_local_aws_runs_the_typescript_handlers(ts_note_built: Path) -> None:
    """Every event of the project: the inputs succeed against the local AWS, and the planted
    fault is found with the rule the same fault gets in the Python demo."""
    proc = cfn_debug(
        "run", "--project", str(ts_note_built), "--local-aws", "--json", "--no-journal"
    )
    doc = document(proc)
    runs = {run["event_name"]: run for run in doc["runs"]}
    create = runs["inputs/inputs_1_create"]
    assert create["final_status"] == "SUCCESS", proc.stderr
    assert runs["inputs/inputs_1_update"]["final_status"] == "SUCCESS"
    step = create["steps"][0]
    assert not [f for f in step["findings"] if f["level"] == "MUST"]
    # the SDK v3 call, recorded by the --require hook, in aws_recorder's record shape
    calls = step["aws_calls"]
    put = next(c for c in calls if c["operation"] == "PutItem")
    assert put["service"] == "dynamodb" and put["http_status"] == 200
    assert put["params"]["TableName"].startswith("cfn-debug-setup-NotesTable-")
    # the handler's own log line, with its request id, beside the step
    request_id = step["result"]["request_id"]
    assert any(
        f"\t{request_id}\tINFO\tputting note contract-note" in line
        for line in step["result"]["logs"]
    )
    python = document(cfn_debug("run", "--json", "--no-journal", str(DEMO_FAULT)))
    assert rules(runs["sample_events/fault-delete-returns-model"]) == {"delete-success-no-model"}
    assert rules(python["runs"][0]) == {"delete-success-no-model"}


def test_scenario_all_with_local_aws_on_the_typescript_type(ts_note_built: Path) -> None:
    proc = cfn_debug(
        "scenario", "all", "--project", str(ts_note_built), "--local-aws", "--json",
        "--examples", "1",
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    doc = document(proc)
    outcomes = {s["name"]: s["outcome"] for s in doc["scenarios"]}
    assert len(outcomes) >= 15, outcomes
    assert "blocked" not in outcomes.values(), proc.stderr
    assert "error" not in outcomes.values(), proc.stderr
    failed = {name for name, outcome in outcomes.items() if outcome == "failed"}
    # as for the Python table-note fixture (tests/aws/test_scenarios_local_aws.py)
    assert failed <= {"update-without-create"}, json.dumps(doc["scenarios"], indent=1)[:4000]


def test_watch_mode_rebuilds_the_typescript_on_save(ts_note_copy: Path) -> None:
    """A save of src/handlers.ts makes dist/ older than src/: the endpoint rebuilds it (saying
    so) and re-runs the event on the new code; nothing else is written into the project. (The
    build of a project without dist/ or node_modules/ is conftest.ts_note_built's, through the
    same NodeRuntime.prepare; one tsc build here keeps the test lean.)"""
    project = ts_note_copy
    event = project / "inputs" / "inputs_1_create.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cfn_debug.cli", "run", "--watch", "--local-aws", "--logs",
         "--project", str(project), str(event), "--no-journal"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=clean_env(), cwd=project, start_new_session=True,
    )  # fmt: skip
    out = Lines(proc, wait_s=WAIT_S)
    try:
        out.until("SUCCESS after 1 step")
        out.until("watching")
        handlers = project / "src" / "handlers.ts"
        text = handlers.read_text()
        marker = "console.log(`putting note ${model.title} into ${table}`);"
        assert marker in text
        handlers.write_text(text.replace(marker, marker + "\n        console.log('saved again');"))
        out.until("npm run build")  # the progress line of the rebuild
        out.until("saved again")  # the rebuilt handler ran on the re-run
    finally:
        interrupt(proc)
    assert (project / "dist" / "handlers.js").read_text().count("saved again") == 1
    assert sorted(p.name for p in project.iterdir()) == sorted(
        [*(p.name for p in TS_NOTE.iterdir()), "node_modules", "dist"]
    )  # nothing but the project's own build output was written into it


def test_a_built_project_is_not_built_again(ts_note_built: Path) -> None:
    from cfn_debug.endpoint.runtimes import RuntimeOptions, runtime_for
    from cfn_debug.endpoint.template import load_functions

    reported: list[str] = []
    spec = load_functions(ts_note_built)["TypeFunction"]
    runtime = runtime_for(spec, ts_note_built, RuntimeOptions(progress=reported.append))
    runtime.check()
    runtime.prepare()
    assert reported == []
