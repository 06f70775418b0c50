"""The dashboard with --local-aws / --aws-endpoint-url / --env-vars / --export: the real app
through Pilot, the real embedded endpoint and moto's real server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.helpers import project_config, run_event
from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.config import AppConfig

from .conftest import TABLE_NOTE, client

SIZE = (140, 45)


def config(tmp_path: Path, *options: str) -> AppConfig:
    return project_config(TABLE_NOTE, tmp_path, *options)


@pytest.mark.slow
async def test_the_dashboard_runs_an_input_against_the_local_aws(tmp_path: Path) -> None:
    app = CfnDebugApp(config(tmp_path, "--local-aws"))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "inputs_1_create")
        assert app.workspace is not None
        assert app.workspace.describe_aws().startswith("AWS: local (moto at http://127.0.0.1:")
        run = app.main.view.run
        assert run is not None and run.final_status == "SUCCESS"
        request = app.main.view.steps[0].request  # type: ignore[index]
        assert request["request"]["desiredResourceState"]["TableName"].startswith(
            "cfn-debug-setup-NotesTable-"
        )
        local = app.workspace.aws.local  # type: ignore[union-attr]
        assert local is not None and local.running
    assert not local.running  # the local AWS stops with the dashboard


@pytest.mark.slow
async def test_the_dashboard_takes_endpoint_env_vars_and_exports(
    user_moto: dict[str, Any], tmp_path: Path
) -> None:
    """--env-vars points the workers at a moto the user runs; --export names the table."""
    url = user_moto["url"]
    client("dynamodb", url).create_table(
        TableName="ui-by-hand",
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
    )
    env_file = tmp_path / "env.json"
    env_file.write_text(json.dumps({"Parameters": {"AWS_ENDPOINT_URL": url}}))
    options = ("--env-vars", str(env_file), "--export", "CfnDebugFixtureNotesTable=ui-by-hand")
    app = CfnDebugApp(config(tmp_path, *options))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "inputs_1_create")
        assert app.workspace is not None
        assert app.workspace.describe_aws().startswith(f"AWS: the endpoint {url} (--env-vars")
        assert app.main.view.run is not None and app.main.view.run.final_status == "SUCCESS"
    assert len(client("dynamodb", url).scan(TableName="ui-by-hand")["Items"]) == 1
    app = CfnDebugApp(config(tmp_path, "--aws-endpoint-url", url))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "inputs_1_update")
        assert app.workspace is not None
        assert app.workspace.describe_aws().startswith(f"AWS: the endpoint {url} (--aws-endpoint")
        # the stack "mine" in that moto exports the table; the note was never created there
        assert app.main.view.run is not None and app.main.view.run.final_status == "FAILED"
