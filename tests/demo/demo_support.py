"""Helpers for the demo tests: sample events, HandlerRequests, chains and list pagination.

Importing this module puts the demo project's src/ first on sys.path, the way the embedded
endpoint's worker runs the handlers, so ``cfndebug_demo_widget`` is a top-level package.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO_DIR = REPO / "tui" / "cfn_debug" / "demo"
SAMPLE_EVENTS = REPO / "sample_events"
SCHEMA_PATH = DEMO_DIR / "cfndebug-demo-widget.json"

if str(DEMO_DIR / "src") not in sys.path:
    sys.path.insert(0, str(DEMO_DIR / "src"))

from cfndebug_demo_widget.handlers import resource, test_entrypoint  # noqa: E402

Event = dict[str, Any]
Invoke = Callable[[Event], dict[str, Any]]


def load_event(name: str) -> Event:
    event: Event = json.loads((SAMPLE_EVENTS / name).read_text(encoding="utf-8"))
    return event


def make_event(action: str, token: str = "tok-0001", **request: Any) -> Event:
    """A sam-style test event with fake credentials."""
    return {
        "credentials": {
            "accessKeyId": "AKIAFAKE",
            "secretAccessKey": "fake-secret",
            "sessionToken": "fake-token",
        },
        "action": action,
        "request": {"clientRequestToken": token, **request},
        "callbackContext": None,
    }


def to_handler_request(event: Event) -> dict[str, Any]:
    """The CloudFormation HandlerRequest carrying the same request as a sam-style event (what
    TypeFunction receives), without the provider log fields (those make the library call AWS)."""
    req = event["request"]
    creds = event["credentials"]
    return {
        "action": event["action"],
        "awsAccountId": req.get("awsAccountId", "123456789012"),
        "bearerToken": req["clientRequestToken"],
        "region": req.get("region", "us-east-1"),
        "resourceType": "CfnDebug::Demo::Widget",
        "resourceTypeVersion": "00000001",
        "stackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/demo/fake",
        "callbackContext": event.get("callbackContext"),
        "nextToken": req.get("nextToken"),
        "requestData": {
            "callerCredentials": creds,
            "providerCredentials": creds,
            "logicalResourceId": req.get("logicalResourceIdentifier", "DemoWidget"),
            "resourceProperties": req.get("desiredResourceState"),
            "previousResourceProperties": req.get("previousResourceState"),
            "typeConfiguration": req.get("typeConfiguration"),
            "stackTags": {},
            "systemTags": {},
        },
    }


def via_test_entrypoint(event: Event) -> dict[str, Any]:
    result: dict[str, Any] = test_entrypoint(event, None)
    return result


def via_type_function(event: Event) -> dict[str, Any]:
    result: dict[str, Any] = resource(to_handler_request(event), None)
    return result


ENTRYPOINTS = pytest.mark.parametrize(
    "invoke", [via_test_entrypoint, via_type_function], ids=["TestEntrypoint", "TypeFunction"]
)


def run_chain(invoke: Invoke, event: Event, limit: int = 10) -> list[dict[str, Any]]:
    """Invoke until the status is not IN_PROGRESS, passing back callbackContext and the returned
    model as the next desired state (what `cfn invoke` does). Returns every response."""
    event = json.loads(json.dumps(event))
    responses = [invoke(event)]
    while responses[-1]["status"] == "IN_PROGRESS":
        assert len(responses) < limit, f"chain did not end within {limit} invocations"
        last = responses[-1]
        event["callbackContext"] = last.get("callbackContext")
        if last.get("resourceModel"):
            event["request"]["desiredResourceState"] = last["resourceModel"]
        responses.append(invoke(event))
    return responses


def list_all(invoke: Invoke, page_size: int = 100) -> list[dict[str, Any]]:
    """Every model a LIST returns, following nextToken to the end.

    Keep the default page size large through TypeFunction: cloudformation-cli-python-lib 2.1.20
    does not hand a HandlerRequest's nextToken to the handler (only test_entrypoint does).
    """
    models: list[dict[str, Any]] = []
    seen: set[str] = set()
    token = None
    while True:
        event = make_event("LIST", typeConfiguration={"ListPageSize": page_size})
        if token is not None:
            event["request"]["nextToken"] = token
        response = invoke(event)
        assert response["status"] == "SUCCESS", response
        models.extend(response["resourceModels"])
        token = response.get("nextToken")
        if token is None:
            return models
        assert token not in seen, f"LIST returned nextToken {token!r} twice"
        seen.add(token)
