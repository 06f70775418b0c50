"""The AWS calls tab on a real AWS call: the dashboard with --local-aws on the table-note fixture
(moto's real server, the real handler with cloudformation-cli-python-lib and boto3 on the
embedded endpoint), the create input run, each step's AWS calls tab read off the screen.

What the tab must show comes from outside cfn-debug: moto's own request recorder (every request
the server received while the chain ran, named by its X-Amz-Target header) says which calls were
made, in order, and the item the handler wrote, read back from moto with boto3, says the write
succeeded (so its HTTP status is 200).
"""

from __future__ import annotations

import json
import re
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.config import AppConfig
from cfn_debug.aws.local import LOCAL_CREDENTIALS
from cfn_debug.aws.moto_screen import RECORDER_ENV

from .helpers import opened, project_config, run_event, screen_text, wait_until

TABLE_NOTE = Path(__file__).resolve().parents[1] / "aws" / "projects" / "table-note"
SIZE = (220, 60)
#: A call's row on the tab: "[<n>] <service>.<Operation> [<HTTP status> <time>]" (the number
#: and status columns are left out where the call's parameters take the pane's width).
CALL_ROW = re.compile(r"│\s+(?:\d+\s+)?([a-z0-9-]+)\.([A-Z][A-Za-z]+)(?:\s+(\d{3}|-)\s)?")


@pytest.fixture(autouse=True)
def _recorder_open(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read moto's recorder, which the local AWS refuses unless told (moto_screen)."""
    monkeypatch.setenv(RECORDER_ENV, "1")


def config(tmp_path: Path) -> AppConfig:
    return project_config(TABLE_NOTE, tmp_path, "--local-aws")


def moto(url: str, action: str) -> str:
    request = urllib.request.Request(f"{url}/moto-api/recorder/{action}", method="POST")
    if action == "download-recording":
        request = urllib.request.Request(f"{url}/moto-api/recorder/{action}")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return str(answer.read().decode("utf-8"))


def recorded_calls(recording: str) -> list[tuple[str, str]]:
    """(service, operation) of every request moto received, from its X-Amz-Target header
    (the JSON protocol DynamoDB speaks: "DynamoDB_20120810.PutItem")."""
    calls = []
    for line in recording.splitlines():
        if not line.strip():
            continue
        headers = {k.lower(): v for k, v in json.loads(line)["headers"].items()}
        target = headers.get("x-amz-target", "")
        prefix, _, operation = target.partition(".")
        service = "dynamodb" if prefix.startswith("DynamoDB_") else prefix.lower()
        calls.append((service, operation))
    return calls


async def aws_tab_rows(
    pilot: Pilot, app: CfnDebugApp, row: int
) -> list[tuple[str, str, str | None]]:
    """The (service, operation, HTTP status) rows the AWS calls tab shows for timeline row
    ``row``, moved to with the keyboard as a user would."""
    timeline = app.query_one("#timeline", DataTable)
    timeline.focus()
    moves = row - timeline.cursor_row
    await pilot.press(*(["down"] * moves if moves > 0 else ["up"] * -moves))
    await wait_until(pilot, lambda: timeline.cursor_row == row, f"the cursor on row {row}")
    await pilot.press("6")  # the AWS calls tab
    await wait_until(pilot, lambda: f"AWS calls of step #{row}" in screen_text(app), "the tab")
    await pilot.pause()
    text = screen_text(app)
    return [(m[1], m[2], m[3]) for m in CALL_ROW.finditer(text)]


@dataclass
class Seen:
    shown: list[list[tuple[str, str, str | None]]]  # each step's tab rows
    received: list[tuple[str, str]]  # what moto received while the chain ran
    request: dict[str, Any]  # the create's request as sent
    item: dict[str, Any] | None  # the note in moto afterwards


async def run_and_read_the_tabs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Seen:
    # moto's server (a child of the app's local AWS) appends what it receives to this file
    monkeypatch.setenv("MOTO_RECORDER_FILEPATH", str(tmp_path / "moto-recording.jsonl"))
    app = CfnDebugApp(config(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        assert app.workspace is not None and app.workspace.aws is not None, app.workspace_error
        local = app.workspace.aws.local
        assert local is not None
        url = local.url
        moto(url, "reset-recording")  # the setup stack's deployment is not the handler's
        moto(url, "start-recording")

        await run_event(pilot, "inputs_1_create")
        run = app.main.view.run
        assert run is not None and run.final_status == "SUCCESS", run
        steps = app.main.view.steps or []
        shown = [await aws_tab_rows(pilot, app, row) for row in range(len(steps))]
        received = recorded_calls(moto(url, "download-recording"))
        request: dict[str, Any] = steps[0].request["request"]
        model = request["desiredResourceState"]
        dynamodb = boto3.client(
            "dynamodb",
            endpoint_url=url,
            region_name="us-east-1",
            aws_access_key_id=LOCAL_CREDENTIALS["accessKeyId"],
            aws_secret_access_key=LOCAL_CREDENTIALS["secretAccessKey"],
        )
        key = {"pk": {"S": f"note#{model['Title']}"}}
        # (moto stops with the app: read the note while it runs)
        item = dynamodb.get_item(TableName=model["TableName"], Key=key).get("Item")
    return Seen(shown, received, request, item)


@pytest.mark.slow
async def test_the_aws_calls_tab_shows_the_dynamodb_calls_the_handler_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = await run_and_read_the_tabs(tmp_path, monkeypatch)
    assert seen.received, "moto received no request while the chain ran"
    # every call moto received is on the tabs, step by step, in order, and nothing else
    assert [(s, op) for rows in seen.shown for s, op, _ in rows] == seen.received
    # the create's own step shows the write, dynamodb PutItem, as its first call ...
    assert [(s, op) for s, op, _ in seen.shown[0]][:1] == [("dynamodb", "PutItem")], seen.shown
    # ... and that write is in moto, made by this run's request
    model = seen.request["desiredResourceState"]
    assert seen.item is not None, "the handler's PutItem did not reach moto"
    assert seen.item["token"]["S"] == seen.request["clientRequestToken"]
    assert seen.item["text"]["S"] == model["Text"]
    # the note exists, so every call succeeded: each status the tab shows is 200
    statuses = [status for rows in seen.shown for _, _, status in rows if status is not None]
    assert statuses and set(statuses) == {"200"}, seen.shown


@pytest.mark.slow
async def test_the_write_shows_its_http_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = await run_and_read_the_tabs(tmp_path, monkeypatch)
    assert seen.item is not None
    assert seen.shown[0][:1] == [("dynamodb", "PutItem", "200")], seen.shown
