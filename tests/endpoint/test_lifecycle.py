"""Workers across source edits, import failures, a taken port, and stopping."""

from __future__ import annotations

import os
import socket
import time

import httpx
import pytest

from cfn_debug.endpoint.server import EmbeddedEndpoint
from cfn_debug.errors import EndpointError

from .conftest import BASIC, BOOTSTRAPS, invoke_path

FIXED_APP = """
def handler(event, context):
    print("fixed and running")
    return {"version": 1}
"""


def _bootstrap(name: str) -> dict[str, dict[str, str]]:
    return {"Parameters": {"CFN_DEBUG_BOOTSTRAP": name}}


def _touch_later(path) -> None:
    """Make sure the edit is visible to an mtime scan even on coarse-grained file systems."""
    stamp = time.time() + 2
    os.utime(path, (stamp, stamp))


@pytest.mark.parametrize("bootstrap", BOOTSTRAPS)
def test_import_failure_is_reported_as_lambda_does_then_the_fix_runs(project_copy, bootstrap):
    project = project_copy("broken")
    with (
        EmbeddedEndpoint(project, env_vars=_bootstrap(bootstrap)) as endpoint,
        httpx.Client(base_url=endpoint.url, timeout=30) as http,
    ):
        response = http.post(invoke_path("Fn"), json={})
        assert response.status_code == 200
        assert response.headers["x-amz-function-error"] == "Unhandled"
        body = response.json()
        assert body["errorType"] == "Runtime.ImportModuleError"
        assert body["errorMessage"] == (
            "Unable to import module 'app': No module named 'missing_dependency_of_the_fixture'"
        )
        logs = endpoint.logs_for(response.headers["x-amzn-requestid"])
        assert any(
            line.startswith("[ERROR] Runtime.ImportModuleError: Unable to import module 'app'")
            for line in logs
        )
        # Still broken: a new worker tries again and fails the same way.
        again = http.post(invoke_path("Fn"), json={})
        assert again.json()["errorType"] == "Runtime.ImportModuleError"

        app = project / "src" / "app.py"
        app.write_text(FIXED_APP, encoding="utf-8")
        _touch_later(app)
        fixed = http.post(invoke_path("Fn"), json={})
        assert fixed.status_code == 200
        assert "x-amz-function-error" not in fixed.headers
        assert fixed.json() == {"version": 1}
        assert endpoint.logs_for(fixed.headers["x-amzn-requestid"]) == ["fixed and running"]


def test_a_source_change_replaces_the_warm_worker(project_copy):
    project = project_copy("broken")
    app = project / "src" / "app.py"
    app.write_text(
        "import os\n\ndef handler(event, context):\n    return {'v': 'one', 'pid': os.getpid()}\n",
        encoding="utf-8",
    )
    with EmbeddedEndpoint(project) as endpoint, httpx.Client(base_url=endpoint.url) as http:
        first = http.post(invoke_path("Fn"), json={}).json()
        assert first["v"] == "one"
        assert http.post(invoke_path("Fn"), json={}).json() == first  # warm: same process
        app.write_text(
            "import os\n\ndef handler(event, context):\n"
            "    return {'v': 'two', 'pid': os.getpid()}\n",
            encoding="utf-8",
        )
        _touch_later(app)
        second = http.post(invoke_path("Fn"), json={}).json()
        assert second["v"] == "two"
        assert second["pid"] != first["pid"]
        # A new file in the code directory counts as a change too.
        (project / "src" / "helper.py").write_text("X = 1\n", encoding="utf-8")
        assert http.post(invoke_path("Fn"), json={}).json()["pid"] != second["pid"]


def test_a_taken_port_is_a_one_line_error_and_the_first_endpoint_keeps_working():
    with EmbeddedEndpoint(BASIC) as first:
        second = EmbeddedEndpoint(BASIC, port=first.port)
        with pytest.raises(EndpointError) as error:
            second.start()
        message = str(error.value)
        assert f"port {first.port} is in use" in message
        assert "\n" not in message
        second.stop()  # stopping an endpoint that never started is harmless
        response = httpx.post(f"{first.url}{invoke_path('Echo')}", json={"tag": "still"})
        assert response.json() == {"tag": "still"}


def test_the_endpoint_binds_loopback_and_stop_is_idempotent():
    endpoint = EmbeddedEndpoint(BASIC)
    endpoint.start()
    assert endpoint.url == f"http://127.0.0.1:{endpoint.port}"
    url = endpoint.url
    assert httpx.post(f"{url}{invoke_path('Echo')}", json={}).status_code == 200
    endpoint.stop()
    endpoint.stop()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", int(url.rsplit(":", 1)[1]))) != 0


def test_env_vars_of_the_wrong_shape_are_a_typed_error():
    with pytest.raises(EndpointError) as error:
        EmbeddedEndpoint(BASIC, env_vars={"Echo": ["not", "a", "mapping"]})  # type: ignore[dict-item]
    assert error.value.field == "Echo"
    with pytest.raises(EndpointError) as error:
        EmbeddedEndpoint(BASIC, env_vars={"Echo": {"NESTED": {"a": 1}}})  # type: ignore[dict-item]
    assert error.value.field == "Echo.NESTED"


def test_logs_for_an_unknown_request_is_empty():
    endpoint = EmbeddedEndpoint(BASIC)
    assert endpoint.logs_for("no-such-request") == []
    assert sorted(endpoint.functions) == sorted(
        [
            "Echo",
            "Crash",
            "Sleep",
            "Environment",
            "Chatty",
            "Exit",
            "TypeFunction",
            "TestEntrypoint",
        ]
    )


def test_the_log_store_keeps_only_the_most_recent_invocations():
    from cfn_debug.endpoint.logs import LogStore

    store = LogStore(keep=3)
    for i in range(5):
        store.put(f"r{i}", [f"line {i}"])
    assert store.get("r0") == [] and store.get("r1") == []
    assert [store.get(f"r{i}") for i in (2, 3, 4)] == [["line 2"], ["line 3"], ["line 4"]]
