"""A setup stack whose Output refers to a resource moto's CloudFormation does not create (it
skips types it does not model, AWS::WAFv2::WebACL here): moto fails inside create_stack, and the
error must name the skipped resource, not list every resource. The real local AWS."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfn_debug.aws.deploy import deploy_setup
from cfn_debug.aws.local import LocalAws
from cfn_debug.aws.setup_stack import SetupError

from .conftest import client


@pytest.mark.slow
def test_an_output_of_a_skipped_resource_names_it(tmp_path: Path) -> None:
    template = tmp_path / "setup.yml"
    template.write_text(
        "Resources:\n"
        "  Queue:\n    Type: AWS::SQS::Queue\n"
        "  Acl:\n    Type: AWS::WAFv2::WebACL\n"
        "    Properties: {Name: acl, Scope: CLOUDFRONT, DefaultAction: {Allow: {}},"
        " VisibilityConfig: {SampledRequestsEnabled: false, CloudWatchMetricsEnabled: false,"
        " MetricName: acl}}\n"
        "Outputs:\n  AclArn:\n    Value: !GetAtt Acl.Arn\n    Export:\n      Name: AclArn\n"
    )
    with LocalAws() as local, pytest.raises(SetupError) as caught:
        deploy_setup(client("cloudformation", local.url), template)
    message = str(caught.value)
    assert "\n" not in message
    assert "Acl (AWS::WAFv2::WebACL)" in message
    assert "does not create" in message and "Queue (AWS::SQS::Queue)" not in message
