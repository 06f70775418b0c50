"""The Go fixture (go-note: the Go plugin's layout, aws-lambda-go's Runtime API exchange written
with the standard library) on the real embedded endpoint: built by the runtime, given
HandlerRequests for sam-style events, its answers, errors, crashes and log lines as Lambda's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cfn_debug.endpoint.runtimes import builds
from cfn_debug.endpoint.server import EmbeddedEndpoint
from cfn_debug.errors import EndpointError

from .conftest import GO_NOTE, needs_go
from .support import event, gone, invoke

pytestmark = [needs_go, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def endpoint(go_note: Path, tmp_path_factory: pytest.TempPathFactory):
    store = str(tmp_path_factory.mktemp("go-notes"))
    ep = EmbeddedEndpoint(go_note, env_vars={"Parameters": {"GO_NOTE_STORE": store}})
    ep.start()
    yield ep
    ep.stop()


def test_a_sam_event_reaches_the_binary_as_a_handler_request_and_the_chain_replays(
    endpoint: EmbeddedEndpoint, go_note: Path
) -> None:
    create = event(go_note, "create.json")
    first = invoke(endpoint.url, "TestEntrypoint", create)
    assert first.status_code == 200 and "X-Amz-Function-Error" not in first.headers
    answer = first.json()
    assert answer["status"] == "IN_PROGRESS"
    # The Go plugin answers with the request's bearerToken: the event's clientRequestToken.
    assert answer["bearerToken"] == create["request"]["clientRequestToken"]
    lines = endpoint.logs_for(first.headers["x-amzn-RequestId"])
    assert any("Handler received the CREATE action" in line for line in lines), lines

    create["callbackContext"] = answer["callbackContext"]
    second = invoke(endpoint.url, "TestEntrypoint", create).json()
    assert second["status"] == "SUCCESS"
    assert second["resourceModel"]["NoteId"] == answer["callbackContext"]["NoteId"]
    assert "Secret" not in second["resourceModel"]


def test_a_handler_request_without_bearer_token_gets_lambdas_error_shape(
    endpoint: EmbeddedEndpoint,
) -> None:
    """The plugin refuses it with an error: aws-lambda-go posts it to /error, chunked."""
    response = invoke(endpoint.url, "TypeFunction", {"action": "READ", "region": "us-east-1"})
    assert response.status_code == 200
    assert response.headers["X-Amz-Function-Error"] == "Unhandled"
    body = response.json()
    assert body["errorType"] == "baseError"
    assert "Validation" in body["errorMessage"]


def test_a_crash_is_lambdas_exit_error_with_the_binarys_last_lines(
    endpoint: EmbeddedEndpoint, go_note: Path
) -> None:
    crash = event(go_note, "create.json", typeConfiguration={"Fault": "Exit"})
    response = invoke(endpoint.url, "TestEntrypoint", crash)
    assert response.headers["X-Amz-Function-Error"] == "Unhandled"
    body = response.json()
    assert body["errorType"] == "Runtime.ExitError"
    assert "exit status 3" in body["errorMessage"]
    lines = endpoint.logs_for(response.headers["x-amzn-RequestId"])
    assert any("planted fault: Exit" in line for line in lines), lines
    # and the next invocation gets a fresh worker
    listed = invoke(endpoint.url, "TestEntrypoint", event(go_note, "list.json")).json()
    assert listed["status"] == "SUCCESS"


def test_a_panic_is_the_plugins_failed_event(endpoint: EmbeddedEndpoint, go_note: Path) -> None:
    panic = event(go_note, "list.json", typeConfiguration={"Fault": "Panic"})
    answer = invoke(endpoint.url, "TestEntrypoint", panic).json()
    assert answer["status"] == "FAILED"
    assert answer["errorCode"] == "GeneralServiceException"
    assert "planted fault: Panic" in answer["message"]


@pytest.mark.slow
def test_a_binary_that_never_asks_for_work_times_out_and_nothing_stays(
    go_note: Path, tmp_path: Path
) -> None:
    project = tmp_path / "go-note"
    shutil.copytree(go_note, project)
    template = project / "template.yml"
    template.write_text(template.read_text().replace("Timeout: 60", "Timeout: 2"))
    ep = EmbeddedEndpoint(project, env_vars={"Parameters": {"GO_NOTE_IGNORE_RUNTIME_API": "1"}})
    ep.start()
    try:
        response = invoke(ep.url, "TestEntrypoint", event(project, "list.json"))
        assert response.headers["X-Amz-Function-Error"] == "Unhandled"
        assert "Task timed out after 2.00 seconds" in response.json()["errorMessage"]
    finally:
        ep.stop()
    # the built binary runs from cfn-debug's cache of this project: nothing of it is left
    assert gone(str(builds.cache_dir("provided", project)))


def test_a_missing_binary_without_go_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "go-note"
    shutil.copytree(GO_NOTE, project)
    monkeypatch.setenv("CFN_DEBUG_GO", str(tmp_path / "no-go-here"))
    with pytest.raises(EndpointError) as error:
        EmbeddedEndpoint(project).start()
    message = str(error.value)
    assert "\n" not in message
    assert "bin/bootstrap does not exist and `go` is not installed" in message
