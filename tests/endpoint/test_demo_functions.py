"""The bundled demo's two functions through the embedded endpoint, with boto3 (as SAM's own tests
configure it) and with plain httpx: TestEntrypoint takes the sam-style event, TypeFunction the
CloudFormation HandlerRequest built from it, and both answer the same ProgressEvent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cfn_debug.demo import PROJECT_DIR, sample_events_dir
from cfn_debug.endpoint.server import EmbeddedEndpoint
from cfn_debug.events import Shape, convert, load_event

from .conftest import invoke_path, lambda_client


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedEndpoint]:
    state = tmp_path_factory.mktemp("demo-state")
    env = {"Parameters": {"CFN_DEBUG_DEMO_STATE": str(state)}}
    with EmbeddedEndpoint(PROJECT_DIR, env_vars=env) as endpoint:
        yield endpoint


def payloads(name: str) -> dict[str, dict[str, Any]]:
    spec = load_event(sample_events_dir() / name)
    return {
        "TestEntrypoint": json.loads((sample_events_dir() / name).read_text()),
        "TypeFunction": convert(spec, Shape.HANDLER_REQUEST),
    }


def via_boto3(endpoint: EmbeddedEndpoint, function: str, payload: dict[str, Any]) -> Any:
    answer = lambda_client(endpoint.url).invoke(
        FunctionName=function, Payload=json.dumps(payload).encode()
    )
    assert "FunctionError" not in answer
    return json.loads(answer["Payload"].read())


def via_httpx(endpoint: EmbeddedEndpoint, function: str, payload: dict[str, Any]) -> Any:
    response = httpx.post(endpoint.url + invoke_path(function), json=payload, timeout=30)
    assert response.status_code == 200 and "x-amz-function-error" not in response.headers
    return response.json()


@pytest.mark.parametrize("client", [via_boto3, via_httpx])
@pytest.mark.parametrize("function", ["TestEntrypoint", "TypeFunction"])
def test_read_answers_the_seeded_widget(demo: EmbeddedEndpoint, client: Any, function: str) -> None:
    event = payloads("read.json")[function]
    answer = client(demo, function, event)
    assert answer["status"] == "SUCCESS"
    assert answer["resourceModel"]["WidgetId"] == "wdg-demo0001"
    assert "Secret" not in answer["resourceModel"]


@pytest.mark.parametrize("client", [via_boto3, via_httpx])
@pytest.mark.parametrize("function", ["TestEntrypoint", "TypeFunction"])
def test_create_starts_an_in_progress_chain(
    demo: EmbeddedEndpoint, client: Any, function: str
) -> None:
    event = payloads("create.json")[function]
    if function == "TestEntrypoint":
        event["request"]["clientRequestToken"] = f"token-{client.__name__}"
        event["request"]["desiredResourceState"]["Name"] = f"w-{client.__name__}-te"
    else:
        event["bearerToken"] = f"token-{client.__name__}-tf"
        event["requestData"]["resourceProperties"]["Name"] = f"w-{client.__name__}-tf"
    answer = client(demo, function, event)
    assert answer["status"] == "IN_PROGRESS"
    assert answer["callbackContext"] and answer["callbackDelaySeconds"] >= 0
    assert answer["resourceModel"]["WidgetId"].startswith("wdg-")


def test_a_raising_handler_is_internal_failure_with_its_traceback_in_the_logs(
    demo: EmbeddedEndpoint,
) -> None:
    event = payloads("fault-unhandled-exception.json")["TypeFunction"]
    response = httpx.post(demo.url + invoke_path("TypeFunction"), json=event, timeout=30)
    answer = response.json()
    assert (answer["status"], answer["errorCode"], answer["message"]) == (
        "FAILED",
        "InternalFailure",
        "",
    )
    logs = "\n".join(demo.logs_for(response.headers["x-amzn-RequestId"]))
    assert "Traceback (most recent call last)" in logs and "KeyError: 'Colour'" in logs


def test_the_demo_project_is_what_serve_reads(demo: EmbeddedEndpoint) -> None:
    assert set(demo.functions) == {"TypeFunction", "TestEntrypoint"}
    assert all(Path(spec.code_dir).name == "src" for spec in demo.functions.values())
