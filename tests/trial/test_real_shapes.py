"""Shapes found trying cfn-debug on published Python resource types (the community registry's
AwsCommunity::DynamoDB::Item, ::S3::DeleteBucketContents, ::any::sleepTimer), reproduced with
fixture types of our own: real handler code (cloudformation-cli-python-lib) on the embedded
endpoint, against moto's real server where the type needs AWS.

Each is a MUST that a correct handler used to trigger:

- update-without-create replaced every part of the primary identifier with a generated value,
  the table the setup stack made included, so a handler correctly saying "no such table"
  failed scenario-update-not-found;
- create-create expected AlreadyExists from a type whose identifier the handler chooses (two
  creates of one input are rightly two resources; `cfn test` skips the test for such types),
  so a second resource with its own identifier now passes;
- generated-inputs made a MUST of every create that did not succeed, though a generated name of
  a table that must exist can only be answered FAILED (now the SHOULD
  scenario-generated-inputs-created);
- input-valid made a MUST of a readOnly property the schema lists as required, on a request
  that no one could write otherwise.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.aws.conftest import cfn_debug, document

PROJECTS = Path(__file__).parent / "projects"
TABLE_ITEM = PROJECTS / "table-item"
STAMP = PROJECTS / "stamp"


def _scenario(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in doc["scenarios"] if s["name"] == name)


def _verdicts(scenario: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {v["rule_id"]: (v["status"], v["level"]) for v in scenario["verdicts"]}


@pytest.mark.slow
def test_update_without_create_keeps_the_table_the_setup_stack_made() -> None:
    proc = cfn_debug(
        "scenario", "update-without-create", "--project", str(TABLE_ITEM), "--local-aws", "--json"
    )
    doc = document(proc)
    scenario = _scenario(doc, "update-without-create")
    assert scenario["outcome"] == "passed", json.dumps(scenario, indent=1)[:3000]
    assert proc.returncode == 0, proc.stderr
    sent = scenario["actions"][0]["run"]["steps"][0]["request"]["request"]
    desired = sent["desiredResourceState"]
    assert desired["TableName"].startswith("cfn-debug-setup-ItemsTable")  # the export's value
    assert desired["ItemId"] and desired["ItemId"] != "written by the contract tests"


@pytest.mark.slow
def test_create_create_accepts_a_second_resource_when_the_handler_names_it() -> None:
    proc = cfn_debug(
        "scenario", "create-create", "--project", str(TABLE_ITEM), "--local-aws", "--json"
    )
    doc = document(proc)
    scenario = _scenario(doc, "create-create")
    assert proc.returncode == 0, json.dumps(scenario, indent=1)[:3000]
    assert scenario["outcome"] == "passed"
    assert _verdicts(scenario)["scenario-create-already-exists"] == ("pass", "MUST")
    message = scenario["verdicts"][0]["message"]
    assert "a second resource" in message and "/ItemId" in message
    assert scenario["leaked"] == [] and len(scenario["cleanup"]) == 2  # both items deleted


@pytest.mark.slow
def test_generated_names_of_missing_tables_are_a_should_not_a_must(tmp_path: Path) -> None:
    project = tmp_path / "table-item"
    shutil.copytree(TABLE_ITEM, project, ignore=shutil.ignore_patterns("inputs", "build"))
    proc = cfn_debug(
        "scenario", "generated-inputs", "--project", str(project), "--local-aws",
        "--examples", "3", "--seed", "7", "--json",
    )  # fmt: skip
    doc = document(proc)
    scenario = _scenario(doc, "generated-inputs")
    verdicts = _verdicts(scenario)
    assert proc.returncode == 0, json.dumps(scenario, indent=1)[:3000]
    assert verdicts["scenario-generated-inputs-created"] == ("fail", "SHOULD")
    assert verdicts["scenario-generated-inputs"][0] == "skip"
    created = next(v for v in scenario["verdicts"] if v["rule_id"].endswith("-created"))
    assert "NotFound" in created["message"] and "no such table" in created["message"]
    assert scenario["outcome"] == "warned"


def test_a_required_read_only_property_is_no_input_finding(tmp_path: Path) -> None:
    proc = cfn_debug(
        "run", str(STAMP / "sample_events" / "create.json"), "--project", str(STAMP),
        "--json", "--no-journal",
    )  # fmt: skip
    doc = document(proc)
    rules = [f["rule_id"] for r in doc["runs"] for s in r["steps"] for f in s["findings"]]
    assert "input-valid" not in rules, json.dumps(doc["runs"], indent=1)[:3000]
    assert proc.returncode == 0, proc.stderr
    assert doc["runs"][0]["steps"][0]["result"]["progress"]["resourceModel"]["StampId"]


CONTACT = PROJECTS / "contact"


@pytest.mark.slow
def test_a_do_nothing_setup_resource_moto_skips_is_no_error() -> None:
    """AwsCommunity::Account::AlternateContact's setup: a WaitConditionHandle (a template needs a
    resource) and an export of the account id; moto skips the handle, no handler can see it."""
    proc = cfn_debug("scenario", "create-read", "--project", str(CONTACT), "--local-aws", "--json")
    doc = document(proc)
    assert proc.returncode == 0, proc.stderr
    assert [s["outcome"] for s in doc["scenarios"]] == ["passed"]
    assert "123456789012|OPERATIONS" in json.dumps(doc["scenarios"])


@pytest.mark.slow
def test_update_without_create_keeps_the_account_when_nothing_can_be_made_unique() -> None:
    """No identifier part takes a suffix (an export and an enum): the account stays the one
    that exists, and the request cfn-debug builds is valid (ECMA-262's \\d is ASCII)."""
    proc = cfn_debug(
        "scenario", "update-without-create", "--project", str(CONTACT), "--local-aws",
        "--setup", "none", "--export", "CfnDebugFixtureContactAccount=123456789012", "--json",
    )  # fmt: skip
    doc = document(proc)
    scenario = _scenario(doc, "update-without-create")
    assert proc.returncode == 0, json.dumps(scenario, indent=1)[:3000]
    assert scenario["outcome"] == "passed"
    step = scenario["actions"][0]["run"]["steps"][0]
    assert step["request"]["request"]["desiredResourceState"]["AccountId"] == "123456789012"
    assert step["findings"] == []


@pytest.mark.slow
def test_values_cloudformation_sends_as_strings_are_valid_input(tmp_path: Path) -> None:
    """CloudFormation sends every primitive as a string ("2", "true"; OC::Organizations::
    PasswordPolicy's sam-tests events do too) and the library recasts them: no input-valid,
    and the typed value the handler returns is the one requested. A string that is no valid
    value stays a finding: the library refuses that input before the handler runs (the run
    could not run, exit 2, the handler not judged), and input-valid still names each field."""
    sent = STAMP / "sample_events" / "create-as-cloudformation-sends.json"
    proc = cfn_debug("run", str(sent), "--project", str(STAMP), "--json", "--no-journal")
    doc = document(proc)
    first = doc["runs"][0]["steps"][0]
    # the fixture's READ keeps neither Copies nor Inked (its id holds only the label): true
    # SHOULD findings of the read-back, not about the strings
    found = [(f["rule_id"], f["level"], f["pointer"]) for f in first["findings"]]
    assert found == [
        ("read-back-keeps-requested", "SHOULD", "/resourceModel/Copies"),
        ("read-back-keeps-requested", "SHOULD", "/resourceModel/Inked"),
    ], json.dumps(first["findings"], indent=1)
    assert first["result"]["progress"]["resourceModel"]["Copies"] == 2
    assert proc.returncode == 0, proc.stderr

    event = json.loads(sent.read_text())
    event["request"]["desiredResourceState"].update({"Copies": "0", "Inked": "yes"})
    bad = tmp_path / "create-bad.json"
    bad.write_text(json.dumps(event))
    proc = cfn_debug("run", str(bad), "--project", str(STAMP), "--json", "--no-journal")
    doc = document(proc)
    found = {
        (f["rule_id"], f["pointer"].rsplit("/", 1)[-1])
        for f in doc["runs"][0]["steps"][0]["findings"]
    }
    assert found == {("input-valid", "Copies"), ("input-valid", "Inked")}, found
    (error,) = doc["errors"]
    assert "could not read the input" in error["message"], error
    assert "handler never ran" in error["message"], error
    assert proc.returncode == 2


@pytest.mark.slow
def test_a_blocked_scenario_exits_2_not_1(tmp_path: Path) -> None:
    """AwsCommunity::S3::DeleteBucketContents without inputs/: the generated bucket name names
    no bucket, create fails, every scenario that stands on it is blocked. Nothing was judged:
    no MUST finding (exit 1), but a run that could not do what it was asked (exit 2), each
    blocked scenario in --json's errors."""
    project = tmp_path / "table-item"
    shutil.copytree(TABLE_ITEM, project, ignore=shutil.ignore_patterns("inputs", "build"))
    proc = cfn_debug(
        "scenario", "create-read", "delete-read", "--project", str(project), "--local-aws",
        "--json",
    )  # fmt: skip
    doc = document(proc)
    assert [s["outcome"] for s in doc["scenarios"]] == ["blocked", "blocked"]
    assert proc.returncode == 2, proc.stderr
    assert [(e["kind"], e["scenario"]) for e in doc["errors"]] == [
        ("blocked", "create-read"),
        ("blocked", "delete-read"),
    ]
    assert "NotFound" in doc["errors"][0]["message"]


@pytest.mark.slow
def test_run_sends_inputs_update_with_the_identifier_the_create_returned() -> None:
    """`cfn test` updates what inputs_N_create made; an identifier the service names cannot be
    in inputs_N_update (AwsCommunity::ApplicationAutoscaling::ScheduledAction's ARN), so `run`
    fills it from the create's answer instead of sending an update with no identifier (an
    input-identifier-present MUST on a request cfn-debug built)."""
    proc = cfn_debug("run", "--project", str(TABLE_ITEM), "--local-aws", "--json", "--no-journal")
    doc = document(proc)
    assert proc.returncode == 0, json.dumps(doc["runs"], indent=1)[:3000]
    create, update = doc["runs"]
    created = create["steps"][0]["result"]["progress"]["resourceModel"]
    sent = update["steps"][0]["request"]["request"]
    assert sent["desiredResourceState"]["ItemId"] == created["ItemId"]
    assert sent["desiredResourceState"]["Body"] == "updated by the contract tests"
    assert sent["previousResourceState"] == created
    assert update["steps"][0]["findings"] == []


@pytest.mark.slow
def test_a_service_moto_does_not_implement_is_an_infrastructure_limit() -> None:
    """moto's server answers a service it lacks (Cloud Control here) with an HTML 500 page; the
    handler's correct GeneralServiceException then said nothing about its contract, yet
    update-without-create judged it a MUST (not NotFound). Now: could not run, exit 2."""
    proc = cfn_debug(
        "scenario", "update-without-create", "--project", str(PROJECTS / "unserved"),
        "--local-aws", "--json",
    )  # fmt: skip
    doc = document(proc)
    scenario = _scenario(doc, "update-without-create")
    assert scenario["outcome"] == "error", json.dumps(scenario, indent=1)[:3000]
    assert proc.returncode == 2
    assert [v for v in scenario["verdicts"] if v["status"] == "fail"] == []
    message = doc["errors"][0]["message"]
    assert "cloudcontrol GetResource" in message and "moto does not implement" in message
