"""Infrastructure errors in the scenarios, against moto's real server and the real endpoint: an
AWS that goes away mid-scenario still gets the cleanup's delete (and what could not be deleted
is reported), and an AWS nobody answers on ends the run with exit 2, one line saying so and
the scenarios after it not played (they would meet the same AWS), never a traceback nor a
finding (exit 1)."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

from cfn_debug.aws.local import LocalAws
from cfn_debug.aws.session import AwsOptions
from cfn_debug.chain import ChainOptions
from cfn_debug.scenarios import (
    ActionStarted,
    Outcome,
    Purpose,
    ScenarioEnded,
    ScenarioOptions,
    ScenarioRunner,
)
from cfn_debug.workspace import Workspace

from .conftest import TABLE_NOTE, cfn_debug, client, document

EXPORT = "CfnDebugFixtureNotesTable"


@pytest.mark.slow
def test_the_cleanup_deletes_after_the_local_aws_went_away_mid_scenario() -> None:
    """The local AWS stops between create and read: the scenario ends as an infrastructure
    error, and the cleanup still sends its delete for what the create made; the delete fails
    too, so the identifier is reported as left behind."""
    local = LocalAws()
    url = local.start()
    try:
        client("dynamodb", url).create_table(
            TableName="gone-mid-scenario",
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        )
        aws = AwsOptions(endpoint_url=url, exports={EXPORT: "gone-mid-scenario"})
        workspace = Workspace.open(TABLE_NOTE, aws=aws)
        try:
            runner = ScenarioRunner(workspace, ScenarioOptions(chain=ChainOptions(max_delay_s=0)))

            async def play() -> list[object]:
                ended = []
                async for event in runner.run(["create-read"]):
                    started = isinstance(event, ActionStarted) and event.label != "create"
                    if started and event.purpose is Purpose.SCENARIO:
                        local.stop()  # the read (and everything after) finds no AWS
                    if isinstance(event, ScenarioEnded):
                        ended.append(event.result)
                return ended

            (result,) = asyncio.run(play())
        finally:
            workspace.close()
    finally:
        local.stop()
    assert result.outcome is Outcome.ERROR, result.error
    assert "could not reach AWS" in (result.error or "")
    deletes = [a for a in result.actions if a.purpose is Purpose.CLEANUP]
    assert deletes and deletes[0].run.steps[0].action.value == "DELETE"
    assert [name for name, _ in runner.leaked] == ["create-read"]


def test_an_aws_nobody_answers_on_is_exit_2_with_one_line() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}"
    proc = cfn_debug(
        "scenario",
        "create-read",
        "read-identifier-only",
        "--project",
        str(TABLE_NOTE),
        "--aws-endpoint-url",
        url,
        "--export",
        f"{EXPORT}=nobody-answers",
        "--json",
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr  # (the handler logs its own in the document)
    doc = document(proc)
    assert doc["counts"]["error"] == 2 and doc["counts"]["failed"] == 0
    error, not_run = doc["errors"]
    assert error["kind"] == "infrastructure"
    assert "could not reach AWS" in error["message"] and url in error["message"]
    assert "\n" not in error["message"]
    # the next scenario would meet the same AWS: not played, said once why
    assert not_run["scenario"] == "read-identifier-only"
    assert not_run["message"] == "not run: the handler could not reach AWS (see create-read)"
    first, second = doc["scenarios"]
    assert first["must_findings"] == 0, json.dumps(first)[:3000]
    assert not [v for v in first["verdicts"] if v["status"] == "fail"]
    assert second["must_findings"] == 0 and not second["verdicts"]
