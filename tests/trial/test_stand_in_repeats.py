"""A second delete (or create) that succeeds only because the local AWS answers a delete of
something gone (a create of a name taken) with success is not judged: moto's IAM
DeleteSAMLProvider and CreateSAMLProvider do, where AWS answers NoSuchEntity and
EntityAlreadyExists, which a correct handler passes on as NotFound and AlreadyExists. Found trying
Community::IAM::SamlProvider, whose delete maps NoSuchEntity to NotFound and got a MUST
scenario-not-found-after-delete on moto. Fixture: tests/trial/projects/idp (real handlers,
moto's real server)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.aws.conftest import cfn_debug, document

IDP = Path(__file__).parent / "projects" / "idp"


@pytest.mark.slow
def test_what_only_the_local_aws_lets_succeed_twice_is_not_judged() -> None:
    proc = cfn_debug(
        "scenario", "delete-delete", "delete-read", "create-create", "--project", str(IDP),
        "--local-aws", "--json",
    )  # fmt: skip
    doc = document(proc)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    outcomes = {s["name"]: s for s in doc["scenarios"]}
    for name, operation in (("delete-delete", "Delete"), ("create-create", "Create")):
        (verdict,) = outcomes[name]["verdicts"]
        if verdict["status"] == "skip":  # moto lets the repeated call succeed
            assert f"iam {operation}SAMLProvider" in verdict["message"], verdict
        else:  # a moto that answers as AWS does: the handler's answer is judged
            assert verdict["status"] == "pass", verdict
    # the handler's own NotFound (its read after the delete) is still judged
    assert outcomes["delete-read"]["outcome"] == "passed", outcomes["delete-read"]
