"""`cfn-debug run` against AWS: --local-aws, --aws-endpoint-url, --env-vars, the shell's
AWS_ENDPOINT_URL and --export, through the real CLI process, the embedded endpoint, the fixture
types' real handlers and moto's real server. A handler whose boto3 is not pointed at the local
AWS tries the real one (no credentials, no network) and fails: these tests fail that way
without the wiring."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import BUCKET_OBJECT, QUEUE_TAG, TABLE_NOTE, cfn_debug, clean_env, client, document

CREATE = "inputs/inputs_1_create.json"


def statuses(doc: dict[str, Any]) -> list[str]:
    return [run["final_status"] for run in doc["runs"]]


@pytest.mark.slow
@pytest.mark.parametrize("project", [TABLE_NOTE, BUCKET_OBJECT, QUEUE_TAG])
def test_run_local_aws_runs_the_projects_events(project: Path) -> None:
    """No EVENT: every event the project has (inputs/ create, update, invalid), placeholders
    filled from the setup stack's exports, the handlers' calls answered by the local AWS."""
    proc = cfn_debug("run", "--project", str(project), "--local-aws", "--json", "--no-journal")
    doc = document(proc)
    assert doc["aws"]["kind"] == "local" and doc["aws"]["url"].startswith("http://127.0.0.1:")
    names = [run["event_name"] for run in doc["runs"]]
    assert names == ["inputs/inputs_1_create", "inputs/inputs_1_update", "inputs/inputs_1_invalid"]
    create, update, invalid = doc["runs"]
    assert statuses(doc)[:2] == ["SUCCESS", "SUCCESS"], proc.stderr
    assert "{{" not in json.dumps(create["steps"][0]["request"])
    assert update["steps"][0]["request"]["request"]["previousResourceState"]
    # an input invalid on purpose that the handler accepts: invalid-input-rejected (SHOULD)
    rules = {f["rule_id"] for f in invalid["steps"][0]["findings"]}
    assert rules & {"input-valid", "invalid-input-rejected"}, rules
    assert proc.stderr.splitlines()[0].startswith("local AWS: starting")
    assert any(
        line.startswith("AWS: local (moto at http://127.0.0.1:")
        for line in proc.stderr.splitlines()
    )


def test_first_line_without_aws_says_none_and_an_unfilled_placeholder_is_exit_2() -> None:
    proc = cfn_debug("run", "--project", str(TABLE_NOTE), CREATE_ABS(), "--no-journal")
    assert proc.returncode == 2
    assert proc.stdout == ""
    line = proc.stderr.strip()
    assert line == (
        f"cfn-debug: error: {TABLE_NOTE / CREATE}: /TableName: unresolved placeholder "
        "{{CfnDebugFixtureNotesTable}}: no exports to fill it from; deploy test/setup.yml with "
        "--local-aws, read an account's exports with --profile, or give --export NAME=VALUE"
    )


def CREATE_ABS() -> str:
    return str(TABLE_NOTE / CREATE)


def test_run_without_aws_says_so_first(tmp_path: Path) -> None:
    proc = cfn_debug(
        "run",
        "--project",
        str(TABLE_NOTE),
        CREATE_ABS(),
        "--export",
        "CfnDebugFixtureNotesTable=some-table",
        "--no-journal",
        "--max-reinvoke",
        "0",
    )
    first = proc.stdout.splitlines()[0]
    assert first.startswith("AWS: none (requests carry placeholder credentials")
    assert "first AWS call will fail" in first
    # the handler's DynamoDB call had nowhere to go: the run says why, once
    assert proc.stdout.count("note: no AWS was configured for the handlers") == 1, proc.stdout


@pytest.mark.slow
def test_aws_endpoint_url_env_vars_and_the_shell_reach_the_workers(
    user_moto: dict[str, Any], tmp_path: Path
) -> None:
    """A moto server the user runs, named three ways; its exports fill the placeholders, and
    the note each run creates is in its table afterwards."""
    url = user_moto["url"]
    table = user_moto["exports"]["CfnDebugFixtureNotesTable"]
    env_file = tmp_path / "env.json"
    env_file.write_text(json.dumps({"Parameters": {"AWS_ENDPOINT_URL": url}}))
    ways = {
        "--aws-endpoint-url": (["--aws-endpoint-url", url], clean_env()),
        "--env-vars": (["--env-vars", str(env_file)], clean_env()),
        "AWS_ENDPOINT_URL in the shell": ([], clean_env(AWS_ENDPOINT_URL=url)),
    }
    titles = []
    for number, (origin, (options, env)) in enumerate(ways.items(), start=1):
        titles.append(f"note-{number}")
        event = tmp_path / f"inputs_{number}_create.json"
        event.write_text(
            json.dumps(
                {"TableName": "{{CfnDebugFixtureNotesTable}}", "Title": titles[-1], "Text": origin}
            )
        )
        proc = cfn_debug(
            "run",
            "--project",
            str(TABLE_NOTE),
            str(event),
            *options,
            "--json",
            "--no-journal",
            env=env,
        )
        doc = document(proc)
        assert doc["aws"]["kind"] == "endpoint" and doc["aws"]["origin"] == origin, origin
        assert statuses(doc) == ["SUCCESS"], (origin, proc.stderr)
    items = client("dynamodb", url).scan(TableName=table)["Items"]
    assert sorted(item["pk"]["S"] for item in items) == [f"note#{t}" for t in titles]


@pytest.mark.slow
def test_export_defines_and_overrides(user_moto: dict[str, Any], tmp_path: Path) -> None:
    """--export beats the listed export: the note goes to the table named by hand."""
    url = user_moto["url"]
    client("dynamodb", url).create_table(
        TableName="by-hand",
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
    )
    proc = cfn_debug(
        "run",
        "--project",
        str(TABLE_NOTE),
        CREATE_ABS(),
        "--aws-endpoint-url",
        url,
        "--export",
        "CfnDebugFixtureNotesTable=by-hand",
        "--json",
        "--no-journal",
    )
    assert statuses(document(proc)) == ["SUCCESS"], proc.stderr
    assert len(client("dynamodb", url).scan(TableName="by-hand")["Items"]) == 1


def test_usage_mistakes_are_exit_2_before_anything_starts() -> None:
    for options, field in [
        (["--local-aws", "--aws-endpoint-url", "http://127.0.0.1:1"], "--aws-endpoint-url"),
        (["--aws-endpoint-url", "localhost:5000"], "--aws-endpoint-url"),
        (["--setup", "x.yml"], "--setup"),
        (["--export", "nope"], "--export"),
    ]:
        proc = cfn_debug("run", "--project", str(TABLE_NOTE), *options, "--no-journal")
        assert proc.returncode == 2, options
        assert proc.stderr.startswith(f"cfn-debug: error: {field}: "), proc.stderr


@pytest.mark.slow
def test_setup_option_deploys_another_template_and_a_failure_names_the_resource(
    tmp_path: Path,
) -> None:
    other = tmp_path / "other-setup.yml"
    other.write_text(
        "Resources:\n"
        "  OtherTable:\n"
        "    Type: AWS::DynamoDB::Table\n"
        "    Properties:\n"
        "      BillingMode: PAY_PER_REQUEST\n"
        "      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]\n"
        "      KeySchema: [{AttributeName: pk, KeyType: HASH}]\n"
        "Outputs:\n"
        "  Name:\n"
        "    Value: !Ref OtherTable\n"
        "    Export: {Name: CfnDebugFixtureNotesTable}\n"
    )
    proc = cfn_debug(
        "run", CREATE_ABS(), "--project", str(TABLE_NOTE), "--local-aws", "--setup", str(other),
        "--json", "--no-journal",
    )  # fmt: skip
    doc = document(proc)
    assert statuses(doc) == ["SUCCESS"], proc.stderr
    desired = doc["runs"][0]["steps"][0]["request"]["request"]["desiredResourceState"]
    assert desired["TableName"].startswith("cfn-debug-setup-OtherTable-")
    broken = tmp_path / "broken-setup.yml"
    broken.write_text("Resources:\n  Thing:\n    Type: AWS::NoSuch::Thing\n")
    proc = cfn_debug(
        "run", CREATE_ABS(), "--project", str(TABLE_NOTE), "--local-aws", "--setup", str(broken),
        "--no-journal",
    )  # fmt: skip
    # a type moto skips is a warning naming it, and the run goes on: here the export the
    # input needs is missing, which is the error (exit 2) that names it
    assert proc.returncode == 2
    assert "warning: Thing (AWS::NoSuch::Thing) not created" in proc.stdout + proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert "unresolved placeholder" in last and "CfnDebugFixtureNotesTable" in last
    assert "▶" not in proc.stdout  # nothing ran


@pytest.mark.slow
def test_profile_fills_placeholders_from_the_accounts_exports(
    user_moto: dict[str, Any], tmp_path: Path
) -> None:
    """--profile: the account's ListExports fills the placeholders, as `cfn test` does. The
    "account" is the moto server, reached through the profile's own endpoint_url setting."""
    config = tmp_path / "config"
    config.write_text(
        "[profile fixture]\n"
        "region = us-east-1\n"
        f"endpoint_url = {user_moto['url']}\n"
        "aws_access_key_id = AKIAPROFILEFIXTURE00\n"
        "aws_secret_access_key = profile-fixture-secret\n"
    )
    env = clean_env(AWS_CONFIG_FILE=str(config), AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "no"))
    proc = cfn_debug(
        "run", CREATE_ABS(), "--project", str(TABLE_NOTE), "--profile", "fixture", "--json",
        "--no-journal",
        "--max-reinvoke", "0", env=env,
    )  # fmt: skip
    doc = document(proc)
    assert doc["aws"]["kind"] == "real" and doc["aws"]["account"] == "123456789012"
    assert doc["aws"]["description"].startswith("AWS: real account 123456789012 (profile fixture")
    desired = doc["runs"][0]["steps"][0]["request"]["request"]["desiredResourceState"]
    assert desired["TableName"] == user_moto["exports"]["CfnDebugFixtureNotesTable"]
    assert "profile-fixture-secret" not in proc.stdout + proc.stderr


@pytest.mark.slow
def test_setup_none_deploys_nothing_and_takes_values_by_hand() -> None:
    proc = cfn_debug(
        "run", CREATE_ABS(), "--project", str(TABLE_NOTE), "--local-aws", "--setup", "none",
        "--export", "CfnDebugFixtureNotesTable=never-made", "--json", "--no-journal",
    )  # fmt: skip
    doc = document(proc)
    assert "--setup none: no setup stack to deploy" in proc.stderr
    assert doc["aws"]["setup_stack"] is None
    step = doc["runs"][0]["steps"][0]
    assert step["request"]["request"]["desiredResourceState"]["TableName"] == "never-made"
    assert doc["runs"][0]["final_status"] == "FAILED"  # no such table in the local AWS
    assert "never-made does not exist" in json.dumps(step["result"])
