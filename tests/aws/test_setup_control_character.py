"""A setup stack whose Output holds a control character (moto writes it raw into its XML
answer, which botocore cannot parse) is a one-line SetupError naming the template, not an
internal error. The real local AWS."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfn_debug.aws.deploy import deploy_setup
from cfn_debug.aws.local import LocalAws
from cfn_debug.aws.setup_stack import SetupError

from .conftest import client


@pytest.mark.slow
def test_an_output_holding_a_control_character_is_a_setup_error(tmp_path: Path) -> None:
    template = tmp_path / "setup.yml"
    template.write_text(
        "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n"
        'Outputs:\n  Bell:\n    Value: "a\\x1b[2Jb"\n    Export:\n      Name: BellExport\n'
    )
    with LocalAws() as local, pytest.raises(SetupError) as caught:
        deploy_setup(client("cloudformation", local.url), template)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(template))
    assert "control character" in message
