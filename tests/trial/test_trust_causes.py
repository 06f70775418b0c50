"""Causes of false verdicts found trying cfn-debug on published Python types, each reproduced
with a fixture type of our own (tests/trial/projects: real handler code on the embedded
endpoint, moto's real server as the local AWS)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.aws.conftest import cfn_debug, document

PROJECTS = Path(__file__).parent / "projects"
OLD_LIB = PROJECTS / "old-lib"
RANDOM_ID = PROJECTS / "random-id"
HAND_TABLE = PROJECTS / "hand-table"
SCALED_TABLE = PROJECTS / "scaled-table"
SELF_REF = PROJECTS / "self-ref"


def _statuses(doc: dict[str, object]) -> list[object]:
    return [run["final_status"] for run in doc["runs"]]  # type: ignore[attr-defined,index]


@pytest.mark.slow
def test_an_old_library_gets_the_request_shape_it_reads() -> None:
    """cloudformation-cli-python-lib 2.0.0 takes no region or awsAccountId in a test request:
    cfn-debug sent them, the library raised a TypeError before the handler ran, and `run`
    exited 0 with nothing tested."""
    create, update = (
        OLD_LIB / "inputs" / "inputs_1_create.json",
        OLD_LIB / "inputs" / "inputs_1_update.json",
    )
    proc = cfn_debug(
        "run", str(create), str(update), "--project", str(OLD_LIB), "--local-aws", "--json",
        "--no-journal",
    )  # fmt: skip
    doc = document(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _statuses(doc) == ["SUCCESS", "SUCCESS"]
    sent = doc["runs"][0]["steps"][0]["request"]["request"]
    assert "region" not in sent and "awsAccountId" not in sent


@pytest.mark.slow
def test_a_property_the_model_class_lacks_is_the_inputs_fault(tmp_path: Path) -> None:
    """An input with a property the handler's model class does not have: the library's
    recast_object raises KeyError before the handler runs. No finding on the handler (there
    were scenario findings), exit 2 with one line naming library and field; input-valid still
    says what the schema finds in the input."""
    event = tmp_path / "inputs_1_create.json"
    event.write_text(json.dumps({"Name": "/cfndebug/old-lib-extra", "Value": "v", "Colour": "x"}))
    proc = cfn_debug(
        "run", str(event), "--project", str(OLD_LIB), "--local-aws", "--no-journal",
    )  # fmt: skip
    assert proc.returncode == 2, proc.stdout[-2000:]
    assert "cloudformation-cli-python-lib 2.0.0's model class has no property 'Colour'" in (
        proc.stdout
    )
    assert "1 MUST finding(s), 0 SHOULD finding(s)" in proc.stdout
    assert "input-valid /request/desiredResourceState" in proc.stdout


@pytest.mark.slow
def test_an_update_after_a_failed_create_is_not_sent(tmp_path: Path) -> None:
    """The create fails (its SNS topic does not exist), so no identifier exists to update:
    the update was sent anyway and cfn-debug blamed the handler with a MUST
    input-identifier-present on the request cfn-debug built."""
    project = tmp_path / "random-id"
    shutil.copytree(RANDOM_ID, project, symlinks=True)
    topic = "arn:aws:sns:us-east-1:123456789012:no-such-topic"
    for name, value in (("create", "first"), ("update", "second")):
        path = project / "inputs" / f"inputs_1_{name}.json"
        path.write_text(json.dumps({"Value": value, "TopicArn": topic}))
    proc = cfn_debug(
        "run", str(project / "inputs" / "inputs_1_create.json"),
        str(project / "inputs" / "inputs_1_update.json"), "--project", str(project),
        "--local-aws", "--no-journal",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "inputs_1_update  skipped: inputs_1_create did not succeed" in proc.stdout
    assert "MUST   input-identifier-present" not in proc.stdout


@pytest.mark.slow
def test_an_update_given_alone_runs_its_create_first() -> None:
    """The primary identifier is readOnly: only the create's answer has it. Run alone, the
    update was sent without it (MUST input-identifier-present, no hint)."""
    update = RANDOM_ID / "inputs" / "inputs_1_update.json"
    proc = cfn_debug(
        "run", str(update), "--project", str(RANDOM_ID), "--local-aws", "--json", "--no-journal",
    )  # fmt: skip
    doc = document(proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "running inputs/inputs_1_create.json first" in proc.stderr
    assert _statuses(doc) == ["SUCCESS", "SUCCESS"]
    created = doc["runs"][0]["steps"][0]["result"]["progress"]["resourceModel"]["Id"]
    sent = doc["runs"][1]["steps"][0]["request"]["request"]["desiredResourceState"]
    assert sent["Id"] == created


@pytest.mark.slow
def test_a_create_that_is_not_idempotent_is_found_without_a_list_handler() -> None:
    """create-idempotent was skipped for a type with no LIST handler, although the two
    answers' identifiers and their READs show two resources."""
    proc = cfn_debug(
        "scenario", "create-idempotent", "--project", str(RANDOM_ID), "--local-aws", "--json",
    )  # fmt: skip
    doc = document(proc)
    (scenario,) = doc["scenarios"]
    assert proc.returncode == 1, json.dumps(scenario, indent=1)[:3000]
    failed = [v for v in scenario["verdicts"] if v["status"] == "fail" and v["level"] == "MUST"]
    assert [v["rule_id"] for v in failed] == ["scenario-create-idempotent"]
    assert "both exist" in failed[0]["message"]
    assert scenario["leaked"] == []


@pytest.mark.slow
def test_a_hand_named_table_is_sent_as_written() -> None:
    """The inputs name the setup stack's table by hand (no placeholder): cfn-debug gave it a
    unique suffix, the create answered "table does not exist", every scenario was blocked."""
    proc = cfn_debug(
        "scenario", "create-read", "update-read", "--project", str(HAND_TABLE), "--local-aws",
        "--json",
    )  # fmt: skip
    doc = document(proc)
    assert proc.returncode == 0, json.dumps(doc["scenarios"], indent=1)[:3000]
    for scenario in doc["scenarios"]:
        assert scenario["outcome"] == "passed"
        sent = scenario["actions"][0]["run"]["steps"][0]["request"]["request"]
        assert sent["desiredResourceState"]["TableName"] == "cfndebug-hand-named-notes"


@pytest.mark.slow
def test_a_setup_type_moto_skips_is_created_through_its_api() -> None:
    """test/setup.yml puts the table's read capacity under Application Auto Scaling, a type
    moto's CloudFormation skips: the whole run exited 2."""
    create = SCALED_TABLE / "inputs" / "inputs_1_create.json"
    proc = cfn_debug(
        "run", str(create), "--project", str(SCALED_TABLE), "--local-aws", "--no-journal",
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert "ReadScaling (AWS::ApplicationAutoScaling::ScalableTarget) created through its" in (
        proc.stdout + proc.stderr
    )


def test_a_self_referencing_schema_is_warned_about_and_cut() -> None:
    """A definition whose $ref points at itself has nothing to validate: `schema` was silent
    and a run gave two false MUSTs ("nested too deep"); `required` written as pointers was
    not mentioned either. AWS publishes such a schema too (VerifiedAccessTrustProvider), so
    the cycle is a warning and the property takes any value, not an error."""
    schema = SELF_REF / "cfndebug-fixture-randomid.json"
    proc = cfn_debug("schema", str(schema))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "/definitions/Note: warning: $ref cycle with nothing to validate" in proc.stdout
    data = json.loads(schema.read_text())
    data.pop("definitions")
    data["properties"].pop("Note")
    from cfn_debug.schema.slips import slips

    assert [s[:2] for s in slips(data)] == [("/required/0", "warning")]
