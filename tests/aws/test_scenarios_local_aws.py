"""`cfn-debug scenario all --local-aws --json` on the fixture types, as the community registry's
projects are laid out: the setup stack is deployed, every placeholder filled, every scenario run
against moto's real server, and none is blocked for a resource that should already exist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import BUCKET_OBJECT, QUEUE_TAG, TABLE_NOTE, cfn_debug, client, document

#: Scenarios that fail on these correct handlers for reasons of the scenario, not the handler
#: (reported to the scenario owners): update-without-create puts the create input's createOnly
#: values over the fresh identifier, so a handler that checks createOnly says NotUpdatable.
KNOWN_SCENARIO_ISSUES = {"update-without-create"}


@pytest.mark.slow
@pytest.mark.parametrize("project", [TABLE_NOTE, BUCKET_OBJECT, QUEUE_TAG], ids=lambda p: p.name)
def test_scenario_all_with_local_aws(project: Path) -> None:
    proc = cfn_debug(
        "scenario", "all", "--project", str(project), "--local-aws", "--json", "--examples", "3"
    )
    assert proc.returncode in (0, 1), proc.stderr
    doc = document(proc)
    assert doc["aws"]["kind"] == "local"
    assert doc["aws"]["setup_stack"] == "cfn-debug-setup"
    outcomes = {s["name"]: s["outcome"] for s in doc["scenarios"]}
    assert len(outcomes) >= 15  # every scenario of the catalogue that applies
    assert "blocked" not in outcomes.values(), proc.stderr
    assert "error" not in outcomes.values(), proc.stderr
    failed = {name for name, outcome in outcomes.items() if outcome == "failed"}
    assert failed <= KNOWN_SCENARIO_ISSUES, json.dumps(doc["scenarios"], indent=1)[:4000]
    text = json.dumps(doc)
    assert "{{" not in text  # every placeholder filled before anything was sent
    assert "cfn-debug-setup-" in text  # the setup stack's resources were what the handlers used


@pytest.mark.slow
def test_scenario_takes_an_endpoint_url_env_vars_and_exports(
    user_moto: dict[str, object], tmp_path: Path
) -> None:
    """A moto the user runs, named by --aws-endpoint-url or an --env-vars file; the table
    named by --export (over the endpoint's own export)."""
    url = str(user_moto["url"])
    client("dynamodb", url).create_table(
        TableName="scenario-by-hand",
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
    )
    env_file = tmp_path / "env.json"
    env_file.write_text(json.dumps({"Parameters": {"AWS_ENDPOINT_URL": url}}))
    for options in (["--aws-endpoint-url", url], ["--env-vars", str(env_file)]):
        proc = cfn_debug(
            "scenario",
            "create-read",
            "--project",
            str(TABLE_NOTE),
            *options,
            "--export",
            "CfnDebugFixtureNotesTable=scenario-by-hand",
            "--json",
        )
        doc = document(proc)
        assert doc["aws"]["kind"] == "endpoint" and doc["aws"]["url"] == url
        assert [s["outcome"] for s in doc["scenarios"]] == ["passed"], proc.stderr
        assert "scenario-by-hand" in json.dumps(doc["scenarios"])


def test_scenario_without_aws_says_so_first_and_after_the_failure() -> None:
    proc = cfn_debug(
        "scenario", "create-read", "--project", str(TABLE_NOTE),
        "--export", "CfnDebugFixtureNotesTable=t",
    )  # fmt: skip
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("AWS: none (requests carry placeholder credentials")
    # an AWS the handler cannot reach is an infrastructure error ("could not run"), exit 2
    assert proc.returncode == 2
    assert any(line.startswith("note: no AWS was configured") for line in lines[-3:])
