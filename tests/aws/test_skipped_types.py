"""Setup-stack resources moto's CloudFormation skips: properties resolved against the stack."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfn_debug.aws.skipped_types import Unresolved, create_skipped, resolve, template_bodies

PHYSICAL = {"NotesTable": "cfn-debug-setup-NotesTable-X"}
PSEUDO = {"AWS::Region": "us-east-1", "AWS::AccountId": "123456789012"}


def test_short_form_tags_are_kept_and_resolved(tmp_path: Path) -> None:
    template = tmp_path / "setup.yml"
    template.write_text(
        "Resources:\n"
        "  Scaling:\n"
        "    Type: AWS::ApplicationAutoScaling::ScalableTarget\n"
        "    Properties:\n"
        "      ResourceId: !Sub table/${NotesTable}\n"
        "      Name: !Ref NotesTable\n"
        "      Arn: !Join [':', [arn, !Ref 'AWS::Region']]\n"
    )
    body = template_bodies(template)["Scaling"]
    props = resolve(body["Properties"], PHYSICAL, PSEUDO)
    assert props == {
        "ResourceId": "table/cfn-debug-setup-NotesTable-X",
        "Name": "cfn-debug-setup-NotesTable-X",
        "Arn": "arn:us-east-1",
    }


def test_what_cannot_be_resolved_locally_is_said() -> None:
    with pytest.raises(Unresolved):
        resolve({"Fn::GetAtt": ["NotesTable", "Arn"]}, PHYSICAL, PSEUDO)
    with pytest.raises(Unresolved):
        resolve({"Ref": "Nothing"}, PHYSICAL, PSEUDO)


def test_a_type_without_an_api_call_is_a_reason_not_an_error() -> None:
    outcome = create_skipped(
        lambda service: None, "Thing", {"Type": "AWS::Made::Up"}, PHYSICAL, PSEUDO
    )
    assert outcome.physical is None and "no API call" in outcome.reason
