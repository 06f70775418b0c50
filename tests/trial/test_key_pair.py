"""Shapes found trying cfn-debug on AWSSamples::EC2::ImportKeyPair (aws-cloudformation-samples,
resource-types/awssamples-ec2-importkeypair/python), reproduced with a fixture type of our own
(tests/trial/projects/key-pair: real handler code on the embedded endpoint, EC2 in moto's real
server)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.aws.conftest import cfn_debug, document

KEY_PAIR = Path(__file__).parent / "projects" / "key-pair"


@pytest.mark.slow
def test_an_update_that_keeps_the_create_only_value_is_a_should_not_a_must() -> None:
    """update-create-only sends an update CloudFormation never sends (KeyName changed); the
    handler may assume it does not happen and answer with the key pair as EC2 has it. That
    is the SHOULD scenario-create-only-not-updatable, not also a MUST
    requested-properties-returned on /KeyName (exit 1 before)."""
    proc = cfn_debug(
        "scenario", "update-create-only", "--project", str(KEY_PAIR), "--local-aws", "--json"
    )
    doc = document(proc)
    (scenario,) = doc["scenarios"]
    assert proc.returncode == 0, json.dumps(scenario, indent=1)[:3000]
    assert scenario["outcome"] == "warned"
    verdicts = {v["rule_id"]: (v["status"], v["level"]) for v in scenario["verdicts"]}
    assert verdicts == {"scenario-create-only-not-updatable": ("fail", "SHOULD")}
    update = scenario["actions"][1]
    step = update["run"]["steps"][-1]
    returned = step["result"]["progress"]["resourceModel"]
    assert returned["KeyName"] == "cfn-debug-fixture-key"  # EC2's, not the request's
    shown = {f["rule_id"] for f in step["findings"]}
    assert "requested-properties-returned" in shown  # still shown, not counted
    assert "requested-properties-returned" in update["waived"]
    assert scenario["leaked"] == []


QUEUE_SETTING = Path(__file__).parent / "projects" / "queue-setting"


@pytest.mark.slow
def test_an_update_that_trusts_the_create_only_value_may_fail_without_a_must() -> None:
    """JB::EMR::StepConcurrencyLevel's shape: update addresses the resource by its createOnly
    property (CloudFormation never changes it), so a changed one is an AWS error the handler
    never expected and the library's InternalFailure. That is the SHOULD
    scenario-create-only-not-updatable, not also a MUST handler-exception (exit 1 before)."""
    proc = cfn_debug(
        "scenario", "update-create-only", "--project", str(QUEUE_SETTING), "--local-aws", "--json"
    )
    doc = document(proc)
    (scenario,) = doc["scenarios"]
    assert proc.returncode == 0, json.dumps(scenario, indent=1)[:3000]
    assert scenario["outcome"] == "warned"
    (verdict,) = scenario["verdicts"]
    assert (verdict["rule_id"], verdict["status"], verdict["level"]) == (
        "scenario-create-only-not-updatable",
        "fail",
        "SHOULD",
    )
    assert "InternalFailure" in verdict["message"]
    update = scenario["actions"][1]
    shown = {f["rule_id"] for s in update["run"]["steps"] for f in s["findings"]}
    assert "handler-exception" in shown and "handler-exception" in update["waived"]
    assert scenario["leaked"] == []
