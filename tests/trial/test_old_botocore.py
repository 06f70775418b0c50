"""A handler whose requirements.txt pins a botocore older than 1.31 (SPRT::ApiGateway::Deployment
pins botocore 1.17.43 with boto3 1.14.43) reaches the local AWS: such a botocore ignores
AWS_ENDPOINT_URL, so the worker gives its clients the configured endpoint as a newer botocore
would, instead of the handler calling the real AWS and the run ending "could not reach AWS"
(exit 2) though nothing in the project is wrong."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.aws.conftest import cfn_debug, document

OLD_LIB = Path(__file__).parent / "projects" / "old-lib"
#: the library the fixture pins, and the last boto3 and botocore before AWS_ENDPOINT_URL
OLD_BOTOCORE = "cloudformation-cli-python-lib==2.0.0\nboto3==1.26.165\nbotocore==1.29.165\n"


@pytest.mark.slow
def test_a_botocore_older_than_1_31_reaches_the_local_aws(tmp_path: Path) -> None:
    project = tmp_path / "old-lib"
    shutil.copytree(OLD_LIB, project, ignore=shutil.ignore_patterns("build"))
    (project / "requirements.txt").write_text(OLD_BOTOCORE)

    proc = cfn_debug(
        "run", str(project / "inputs" / "inputs_1_create.json"), "--project", str(project),
        "--local-aws", "--json", "--no-journal",
    )  # fmt: skip
    doc = document(proc)
    step = doc["runs"][0]["steps"][0]
    assert proc.returncode == 0, json.dumps(doc, indent=1)[:3000] + proc.stderr
    assert step["result"]["progress"]["status"] == "SUCCESS"
    calls = [(c["service"], c["operation"], c["http_status"]) for c in step["aws_calls"]]
    assert ("ssm", "PutParameter", 200) in calls, calls
