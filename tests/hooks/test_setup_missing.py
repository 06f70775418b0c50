"""A hook that reads AWS, run against a setup stack the local AWS could not deploy whole: what
it allows may depend on the resource that is missing, so an allowed target of an invalid input
is not judged. Found trying AwsCommunity::Lambda::Invoker, whose setup registers the compliance
Lambda through a custom resource moto skips: the hook found nothing to call and allowed every
target, 1,089 MUST hook-refuses-invalid-input findings on a correct hook. Fixture: a copy of
parameter-gate whose setup stack's parameter allows the invalid input's queue name, and whose
custom resource (skipped) stands for what would have made it strict."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .conftest import PARAMETER_GATE, cfn_debug, document

SETUP = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  QueuePrefix:
    Type: AWS::SSM::Parameter
    Properties:
      Name: /cfn-debug/queue-prefix
      Type: String
      Value: ord
  Tighten:
    Type: AWS::CloudFormation::CustomResource
    Properties:
      ServiceToken: arn:aws:lambda:us-east-1:123456789012:function:tighten-prefix
      Parameter: /cfn-debug/queue-prefix
"""


@pytest.mark.slow
def test_an_allowed_invalid_target_is_not_judged_on_a_partial_setup(tmp_path: Path) -> None:
    project = tmp_path / "parameter-gate"
    shutil.copytree(PARAMETER_GATE, project)
    (project / "test" / "setup.yml").write_text(SETUP)
    proc = cfn_debug(
        "scenario", "contract_pre_create_failed", "--project", str(project), "--local-aws",
        "--json", home=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    (scenario,) = document(proc)["scenarios"]
    (verdict,) = [v for v in scenario["verdicts"] if v["rule_id"] == "hook-refuses-invalid-input"]
    assert verdict["status"] == "skip", verdict
    assert "Tighten (AWS::CloudFormation::CustomResource)" in verdict["message"]
    assert "ssm GetParameter" in verdict["message"]


@pytest.mark.slow
def test_run_does_not_judge_it_either(tmp_path: Path) -> None:
    """`run` on the same partial setup (its prefix exported for the compliant input): the invalid
    input's target is allowed after the hook read AWS, and no MUST hook-refuses-invalid-input is
    made of it (exit 0)."""
    project = tmp_path / "parameter-gate"
    shutil.copytree(PARAMETER_GATE, project)
    exported = "Outputs:\n  QueuePrefix:\n    Value: ord\n    Export:\n      Name: QueuePrefix\n"
    (project / "test" / "setup.yml").write_text(SETUP + exported)
    proc = cfn_debug(
        "run", "--project", str(project), "--local-aws", "--json", "--no-journal",
        home=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    runs = document(proc)["runs"]
    assert [r.get("verdict") for r in runs] == ["allowed", "allowed"]
    calls = {
        (c["service"], c["operation"]) for r in runs for s in r["steps"] for c in s["aws_calls"]
    }
    assert ("ssm", "GetParameter") in calls
    rules = [f["rule_id"] for r in runs for f in r.get("chain_findings", [])]
    assert "hook-refuses-invalid-input" not in rules, rules
