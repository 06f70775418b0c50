"""The same events through our endpoint and through AWS's Runtime Interface Emulator."""

from __future__ import annotations

import json

import httpx
import pytest

from cfn_debug.endpoint.server import EmbeddedEndpoint
from support.rie import RIE_FUNCTION, find_rie_binary, start_rie

from .conftest import BASIC, PROJECTS, invoke_path

pytestmark = pytest.mark.skipif(
    find_rie_binary() is None,
    reason="no AWS Lambda Runtime Interface Emulator binary (set CFN_DEBUG_RIE, install "
    "aws-sam-cli, or allow `pip download aws-sam-cli`)",
)

READ_EVENT = {
    "credentials": {"accessKeyId": "a", "secretAccessKey": "b", "sessionToken": "c"},
    "action": "READ",
    "request": {
        "clientRequestToken": "token",
        "desiredResourceState": {"Name": "side", "Size": 7},
        "logicalResourceIdentifier": "Thing",
    },
    "callbackContext": None,
}

CASES = [
    ("Echo", "handlers.echo", {"tag": "same", "nested": {"list": [1, "two", None]}}),
    ("Crash", "handlers.crash", {"tag": "same"}),
    ("TestEntrypoint", "fixture_resource.handlers.test_entrypoint", READ_EVENT),
    (
        "TestEntrypoint",
        "fixture_resource.handlers.test_entrypoint",
        {
            **READ_EVENT,
            "request": {**READ_EVENT["request"], "desiredResourceState": {"Name": "explode"}},
        },
    ),
]


def _comparable(body: bytes) -> object:
    data = json.loads(body)
    if isinstance(data, dict) and "requestId" in data:
        data["requestId"] = "<request id>"  # each side's own id
    return data


@pytest.fixture(scope="module")
def ours():
    with EmbeddedEndpoint(BASIC) as endpoint, httpx.Client(base_url=endpoint.url, timeout=30) as c:
        yield c


@pytest.mark.parametrize(("function", "handler", "event"), CASES)
def test_same_event_same_body(ours, function, handler, event):
    mine = ours.post(invoke_path(function), json=event)
    with start_rie(BASIC / "src", handler, timeout_s=5) as url:
        theirs = httpx.post(f"{url}{invoke_path(RIE_FUNCTION)}", json=event, timeout=30)
    assert theirs.status_code == mine.status_code == 200
    assert _comparable(mine.content) == _comparable(theirs.content)
    crashed = function == "Crash"
    assert ("x-amz-function-error" in mine.headers) is crashed


def test_import_failure_same_error_document():
    code = PROJECTS / "broken" / "src"
    with EmbeddedEndpoint(PROJECTS / "broken") as endpoint:
        mine = httpx.post(f"{endpoint.url}{invoke_path('Fn')}", json={}, timeout=30)
    with start_rie(code, "app.handler", timeout_s=3) as url:
        theirs = httpx.post(f"{url}{invoke_path(RIE_FUNCTION)}", json={}, timeout=30)
    # Lambda answers 200 + Unhandled; the emulator says 502. The documents are the same.
    assert mine.status_code == 200 and mine.headers["x-amz-function-error"] == "Unhandled"
    assert _comparable(mine.content) == _comparable(theirs.content)
    assert json.loads(mine.content)["errorType"] == "Runtime.ImportModuleError"


def test_timeout_same_limit(ours):
    mine = ours.post(invoke_path("Sleep"), json={"sleep": True})
    with start_rie(BASIC / "src", "handlers.sleep_past_timeout", timeout_s=1) as url:
        theirs = httpx.post(f"{url}{invoke_path(RIE_FUNCTION)}", json={"sleep": True}, timeout=30)
    # The emulator answers in plain text; Lambda (and we) in JSON with a timestamp and request id.
    assert theirs.text == "Task timed out after 1.00 seconds"
    assert json.loads(mine.content)["errorMessage"].endswith(" " + theirs.text)
