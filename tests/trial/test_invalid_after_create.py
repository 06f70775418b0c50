"""`run` sends inputs_N_invalid after inputs_N_create (community registry's
AwsCommunity::Account::AlternateContact and ::DynamoDB::Item): the invalid input names the
resource the create made and left alive, and a handler that looks for it before it checks the
input rightly answers FAILED AlreadyExists. That is no invalid-input-rejected finding."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.aws.conftest import cfn_debug, document

CONTACT = Path(__file__).parent / "projects" / "contact"


@pytest.mark.slow
def test_already_exists_for_the_sessions_own_resource_is_no_finding(tmp_path: Path) -> None:
    project = tmp_path / "contact"
    shutil.copytree(CONTACT, project, ignore=shutil.ignore_patterns("build"))
    invalid = json.loads((project / "inputs" / "inputs_1_create.json").read_text())
    invalid["Email"] = "NO-EMAIL"  # the schema's pattern rejects it; the identifier is the same
    (project / "inputs" / "inputs_1_invalid.json").write_text(json.dumps(invalid))

    proc = cfn_debug("run", "--project", str(project), "--local-aws", "--json", "--no-journal")
    doc = document(proc)
    runs = {r["event_name"]: r for r in doc["runs"]}
    last = runs["inputs/inputs_1_invalid"]["steps"][-1]
    progress = last["result"]["progress"]
    assert (progress["status"], progress["errorCode"]) == ("FAILED", "AlreadyExists")
    rules = [f["rule_id"] for r in doc["runs"] for s in r["steps"] for f in s["findings"]]
    assert "invalid-input-rejected" not in rules, json.dumps(doc["runs"], indent=1)[:3000]
    assert proc.returncode == 0, proc.stderr
