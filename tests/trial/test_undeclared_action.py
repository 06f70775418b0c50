"""`run` with no EVENT takes every event of the project, but not one whose action the schema
declares no handler for (community registry's AwsCommunity::S3::DeleteBucketContents has an
inputs_1_update and no update handler): CloudFormation never sends it and `cfn test` skips it,
so sending it only showed the library's FAILED InternalFailure "No handler for UPDATE"."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.aws.conftest import cfn_debug, document

STAMP = Path(__file__).parent / "projects" / "stamp"


@pytest.mark.slow
def test_an_event_of_an_action_with_no_handler_is_skipped_and_said(tmp_path: Path) -> None:
    project = tmp_path / "stamp"
    shutil.copytree(STAMP, project, ignore=shutil.ignore_patterns("build"))
    update = json.loads((project / "sample_events" / "create.json").read_text())
    update["action"] = "UPDATE"
    update["request"]["previousResourceState"] = update["request"]["desiredResourceState"]
    (project / "sample_events" / "update.json").write_text(json.dumps(update))

    proc = cfn_debug("run", "--project", str(project), "--json", "--no-journal")
    doc = document(proc)
    assert [r["action"] for r in doc["runs"]] == ["CREATE", "CREATE"], proc.stderr
    assert "sample_events/update  skipped: the schema declares no update handler" in proc.stderr
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_a_project_whose_every_event_is_skipped_has_nothing_to_run(tmp_path: Path) -> None:
    """Skipped events leave nothing to send: exit 2 (usage), as a project without events, never
    a clean exit 0 with "0 run(s)" that a CI job would take for a pass."""
    project = tmp_path / "stamp"
    shutil.copytree(STAMP, project, ignore=shutil.ignore_patterns("build"))
    for path in (project / "sample_events").glob("*.json"):
        event = json.loads(path.read_text())
        event["action"] = "UPDATE"
        event["request"]["previousResourceState"] = event["request"]["desiredResourceState"]
        path.write_text(json.dumps(event))

    proc = cfn_debug("run", "--project", str(project), "--json", "--no-journal")
    assert proc.returncode == 2, proc.stderr
    assert "no events to run" in proc.stderr
    assert "sample_events/create  skipped: the schema declares no update handler" in proc.stderr
