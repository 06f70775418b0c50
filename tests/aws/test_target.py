"""The one line that says which AWS the handlers talk to, and the options that choose it."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfn_debug.aws.session import AwsOptions, open_aws
from cfn_debug.aws.target import AwsTarget
from cfn_debug.cli import build_parser
from cfn_debug.errors import CfnDebugError


def test_each_kind_says_where_the_calls_go() -> None:
    local = AwsTarget("local", url="http://127.0.0.1:5001", setup_stack="s", exports=2)
    assert local.describe() == (
        "AWS: local (moto at http://127.0.0.1:5001, started for this session, us-east-1); "
        "setup stack s with 2 export(s)"
    )
    endpoint = AwsTarget("endpoint", "eu-west-1", url="http://h:4566", origin="--env-vars")
    assert endpoint.describe() == "AWS: the endpoint http://h:4566 (--env-vars, eu-west-1)"
    real = AwsTarget("real", profile="dev", account="111122223333")
    assert real.describe() == "AWS: real account 111122223333 (profile dev, us-east-1)"
    offline = AwsTarget("real", profile="dev", account_error="EndpointConnectionError: x")
    assert "account unknown (EndpointConnectionError: x)" in offline.describe()
    none = AwsTarget("none").describe()
    assert "placeholder credentials" in none and "first AWS call will fail" in none
    behind = AwsTarget("local", url="http://127.0.0.1:1", external_endpoint="http://sam:3001")
    assert "set AWS_ENDPOINT_URL=http://127.0.0.1:1 there" in behind.describe()


def test_the_shell_endpoint_is_found_and_passed_to_the_workers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:4566")
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:4567")
    session = open_aws(None, root=tmp_path, region=None, profile=None)
    assert session.target.kind == "endpoint"
    assert session.target.origin == "AWS_ENDPOINT_URL in the shell"
    assert session.env_vars is not None
    assert session.env_vars["Parameters"] == {
        "AWS_ENDPOINT_URL": "http://127.0.0.1:4566",
        "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:4567",
    }
    monkeypatch.delenv("AWS_ENDPOINT_URL")
    monkeypatch.delenv("AWS_ENDPOINT_URL_S3")
    assert open_aws(None, root=tmp_path, region=None, profile=None).target.kind == "none"


@pytest.mark.parametrize(
    ("argv", "field"),
    [
        (["--local-aws", "--profile", "p"], "--profile"),
        (["--local-aws", "--endpoint", "aws", "--function-name", "f"], "--local-aws"),
        (["--setup", "s.yml"], "--setup"),
        (["--aws-endpoint-url", "ftp://x"], "--aws-endpoint-url"),
    ],
)
def test_options_that_cannot_work_together(argv: list[str], field: str) -> None:
    args = build_parser().parse_args(["scenario", *argv])
    with pytest.raises(CfnDebugError) as caught:
        AwsOptions.from_args(args)
    assert caught.value.field == field
