"""The Java fixture (java-note: classes without libraries that follow the Java plugin's executable
protocol) on the real embedded endpoint: one JVM per invocation in a private working directory
and java.io.tmpdir, the answer read between the response markers, the JVM's start told apart."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cfn_debug.endpoint.server import EmbeddedEndpoint
from cfn_debug.errors import EndpointError

from .conftest import JAVA_NOTE, needs_jdk
from .support import event, gone, invoke

pytestmark = [needs_jdk, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def canary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder the JVMs would take as java.io.tmpdir (and empty) if cfn-debug gave them none."""
    folder = tmp_path_factory.mktemp("canary")
    (folder / "keep-me.txt").write_text("the wrapper empties java.io.tmpdir")
    return folder


@pytest.fixture(scope="module")
def endpoint(java_note: Path, canary: Path, tmp_path_factory: pytest.TempPathFactory):
    store = str(tmp_path_factory.mktemp("java-notes"))
    variables = {"JAVA_NOTE_STORE": store, "JAVA_TOOL_OPTIONS": f"-Djava.io.tmpdir={canary}"}
    ep = EmbeddedEndpoint(java_note, env_vars={"Parameters": variables})
    ep.start()
    yield ep
    ep.stop()


def test_one_jvm_per_invocation_answers_between_the_markers_and_touches_nothing_of_the_users(
    endpoint: EmbeddedEndpoint, java_note: Path, canary: Path
) -> None:
    before = sorted(p.name for p in java_note.rglob("*"))
    create = event(java_note, "create.json")
    first = invoke(endpoint.url, "TestEntrypoint", create)
    assert first.status_code == 200 and "X-Amz-Function-Error" not in first.headers
    answer = first.json()
    assert answer["status"] == "IN_PROGRESS"
    lines = endpoint.logs_for(first.headers["x-amzn-RequestId"])
    assert "[CREATE] invoking handler..." in lines
    assert not any("__CFN_RESOURCE" in line or '"status"' in line for line in lines), lines
    # the JVM's start, measured by cfn-debug's launcher, comes with the answer
    assert float(first.headers["X-Cfn-Debug-Runtime-Start-Ms"]) > 0

    create["callbackContext"] = answer["callbackContext"]
    second = invoke(endpoint.url, "TestEntrypoint", create).json()
    assert second["status"] == "SUCCESS" and "Secret" not in second["resourceModel"]
    # no <uuid>.txt in the project, the user's tmpdir not emptied
    assert sorted(p.name for p in java_note.rglob("*")) == before
    assert (canary / "keep-me.txt").is_file()


def test_a_jvm_that_prints_no_markers_is_a_clear_error(java_note: Path, tmp_path: Path) -> None:
    project = tmp_path / "java-note"
    shutil.copytree(java_note, project)
    variables = {"JAVA_NOTE_NO_MARKERS": "1", "JAVA_NOTE_STORE": str(tmp_path)}
    with EmbeddedEndpoint(project, env_vars={"Parameters": variables}) as ep:
        response = invoke(ep.url, "TestEntrypoint", event(project, "list.json"))
        body = response.json()
        lines = ep.logs_for(response.headers["x-amzn-RequestId"])
    assert response.headers["X-Amz-Function-Error"] == "Unhandled"
    assert body["errorType"] == "Runtime.NoResponse"
    assert "software.cfndebug.javanote.HandlerWrapperExecutable" in body["errorMessage"]
    assert any('"status":"SUCCESS"' in line for line in lines), lines  # what it printed instead
    assert gone(str(project))  # the shim and its JVMs


def test_a_jvm_that_exits_is_lambdas_exit_error(endpoint: EmbeddedEndpoint, java_note: Path):
    crash = event(java_note, "create.json", typeConfiguration={"Fault": "Exit"})
    response = invoke(endpoint.url, "TestEntrypoint", crash)
    body = response.json()
    assert body["errorType"] == "Runtime.ExitError" and "exit status 3" in body["errorMessage"]
    lines = endpoint.logs_for(response.headers["x-amzn-RequestId"])
    assert "planted fault: Exit, the JVM ends now" in lines


def test_a_handler_request_too_long_for_one_argument_is_refused_by_the_endpoint(
    endpoint: EmbeddedEndpoint, java_note: Path
) -> None:
    import base64
    import os

    noise = base64.b64encode(os.urandom(150_000)).decode()
    big = event(java_note, "create.json", desiredResourceState={"Title": "x", "Body": noise})
    response = invoke(endpoint.url, "TestEntrypoint", big)
    assert response.status_code == 413
    assert response.headers["x-amzn-errortype"] == "RequestTooLargeException"


def test_no_jar_and_a_maven_that_cannot_reach_its_repository_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "java-note"
    shutil.copytree(JAVA_NOTE, project)
    fake = tmp_path / "mvn"
    fake.write_text(
        "#!/bin/sh\necho '[ERROR] Plugin resolution failed: central unreachable'\nexit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("CFN_DEBUG_MVN", str(fake))
    with pytest.raises(EndpointError) as error, EmbeddedEndpoint(project) as ep:
        invoke(ep.url, "TestEntrypoint", event(project, "list.json"))
    message = str(error.value)
    assert "\n" not in message
    assert "mvn package failed (exit status 1): Plugin resolution failed" in message
