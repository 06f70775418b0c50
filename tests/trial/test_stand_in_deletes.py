"""A second delete that succeeds only because the local AWS answers a delete of something gone
with success (moto's IAM DeleteSAMLProvider; AWS answers NoSuchEntity, which a correct handler
passes on as NotFound) is not judged: found trying Community::IAM::SamlProvider, whose delete
maps NoSuchEntity to NotFound and got a MUST scenario-not-found-after-delete on moto. Fixture:
tests/trial/projects/idp (real handlers, moto's real server)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.aws.conftest import cfn_debug, document

IDP = Path(__file__).parent / "projects" / "idp"


@pytest.mark.slow
def test_a_delete_only_the_local_aws_lets_succeed_twice_is_not_judged() -> None:
    proc = cfn_debug(
        "scenario", "delete-delete", "delete-read", "--project", str(IDP), "--local-aws",
        "--json",
    )  # fmt: skip
    doc = document(proc)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    outcomes = {s["name"]: s for s in doc["scenarios"]}
    again = outcomes["delete-delete"]
    (verdict,) = again["verdicts"]
    if verdict["status"] == "skip":  # moto lets the delete of a gone provider succeed
        assert "iam DeleteSAMLProvider" in verdict["message"], verdict
    else:  # a moto that answers NoSuchEntity: the handler's NotFound is judged
        assert verdict["status"] == "pass", verdict
    # the handler's own NotFound (its read after the delete) is still judged
    assert outcomes["delete-read"]["outcome"] == "passed", outcomes["delete-read"]
