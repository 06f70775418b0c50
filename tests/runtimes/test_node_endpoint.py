"""Node handlers on the embedded endpoint, through cfn-debug's own Runtime API client (runtime.js):
the context and logs a handler sees, Lambda's error shapes, a handler that never answers, a module
that does not load, escape sequences in its output, and nothing left running afterwards.

The node-echo project is plain JavaScript (no build, no npm): these need only `node`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cfn_debug.endpoint.proctree import members
from cfn_debug.endpoint.server import EmbeddedEndpoint
from cfn_debug.errors import EndpointError
from reliability.support import alive, child_env, stop, wait_for
from support.ports import free_port

from .conftest import NODE, PROJECTS, REPO, cfn_debug, needs_node

pytestmark = [needs_node, pytest.mark.timeout(120)]

NODE_ECHO = PROJECTS / "node-echo"
GONE_WITHIN_S = 10.0


def invoke(endpoint: EmbeddedEndpoint, function: str, body: dict) -> httpx.Response:
    return httpx.post(
        f"{endpoint.url}/2015-03-31/functions/{function}/invocations", json=body, timeout=60
    )


@pytest.fixture(scope="module")
def endpoint() -> Iterator[EmbeddedEndpoint]:
    with EmbeddedEndpoint(NODE_ECHO) as served:
        yield served


def test_a_node_handler_gets_a_lambda_context_and_its_environment(
    endpoint: EmbeddedEndpoint,
) -> None:
    answer = invoke(endpoint, "Echo", {"mode": "context"})
    assert answer.status_code == 200 and "x-amz-function-error" not in answer.headers
    seen = answer.json()
    assert seen["awsRequestId"] == answer.headers["x-amzn-requestid"]
    assert seen["invokedFunctionArn"].endswith(":function:Echo")
    assert seen["functionName"] == "Echo" and seen["functionVersion"] == "$LATEST"
    assert seen["memoryLimitInMB"] == "256"
    assert seen["logGroupName"] == "/aws/lambda/Echo" and seen["logStreamName"]
    assert 0 < seen["remaining"] <= 10_000
    assert seen["waits"] is True
    assert seen["greeting"] == "hello"  # the template's variables
    assert seen["runtimeApi"].startswith("127.0.0.1:")


def test_the_worker_stays_warm_and_is_a_node_process_of_the_endpoints_tree(
    endpoint: EmbeddedEndpoint,
) -> None:
    first = invoke(endpoint, "Echo", {"mode": "context"}).json()["pid"]
    second = invoke(endpoint, "Echo", {"mode": "context"}).json()["pid"]
    assert first == second
    assert first in members([os.getpid()])
    with open(f"/proc/{first}/cmdline", "rb") as cmdline:
        argv = cmdline.read().split(b"\0")
    assert Path(argv[0].decode()).name == "node"
    assert argv[-2].decode().endswith("runtime.js")


def test_log_lines_carry_the_request_id_as_lambdas_node_runtime_writes_them(
    endpoint: EmbeddedEndpoint,
) -> None:
    answer = invoke(endpoint, "Echo", {"mode": "log"})
    request_id = answer.headers["x-amzn-requestid"]
    lines = endpoint.logs_for(request_id)
    info = next(line for line in lines if "a log line" in line)
    stamp, rid, level, message = info.split("\t")
    assert stamp.endswith("Z") and rid == request_id and level == "INFO"
    assert message == "a log line { n: 1 }"
    assert any(line.endswith(f"\t{request_id}\tERROR\tan error line") for line in lines)
    assert "a raw line" in lines  # process.stdout.write: as written, no prefix


def test_a_callback_handler_answers_through_its_callback(endpoint: EmbeddedEndpoint) -> None:
    answer = invoke(endpoint, "Callback", {})
    assert answer.json() == {
        "via": "callback",
        "awsRequestId": answer.headers["x-amzn-requestid"],
    }


@pytest.mark.parametrize(("waits", "drained"), [(None, True), (True, True), (False, False)])
def test_a_callbacks_answer_waits_for_the_empty_event_loop_unless_the_handler_says_not_to(
    endpoint: EmbeddedEndpoint, waits: bool | None, drained: bool
) -> None:
    """callbackWaitsForEmptyEventLoop (default true): the answer is posted, and serialized, once
    the handler's timer has run; false answers at the callback."""
    answer = invoke(endpoint, "Drain", {} if waits is None else {"waits": waits})
    assert answer.status_code == 200 and "x-amz-function-error" not in answer.headers
    assert answer.json() == {"drained": drained}


@pytest.mark.parametrize(
    ("mode", "error_type", "message"),
    [
        ("throw", "TypeError", "the handler threw"),
        ("reject", "RangeError", "the promise was rejected"),
    ],
)
def test_a_thrown_error_or_rejected_promise_is_lambdas_error_shape_with_the_stack(
    endpoint: EmbeddedEndpoint, mode: str, error_type: str, message: str
) -> None:
    answer = invoke(endpoint, "Echo", {"mode": mode})
    assert answer.headers["x-amz-function-error"] == "Unhandled"
    body = answer.json()
    assert body["errorType"] == error_type and body["errorMessage"] == message
    assert body["trace"][0] == f"{error_type}: {message}"
    assert any("node-echo/src/index.js" in frame for frame in body["trace"][1:])
    assert not any("runtime.js" in frame for frame in body["trace"])
    # the warm worker survives a handler's error
    assert invoke(endpoint, "Echo", {"mode": "context"}).status_code == 200


def test_an_error_name_no_header_can_carry_is_answered_and_the_worker_stays(
    endpoint: EmbeddedEndpoint,
) -> None:
    """The error type goes into the Runtime API's Lambda-Runtime-Function-Error-Type header:
    a name with a line break is sent as one line, never a second header, and the body keeps it."""
    pid = invoke(endpoint, "Echo", {"mode": "context"}).json()["pid"]
    answer = invoke(endpoint, "Echo", {"mode": "badname"})
    assert answer.headers["x-amz-function-error"] == "Unhandled"
    body = answer.json()
    assert body["errorType"] == "Bad\r\nX-Injected: 1 \u00e9"
    assert body["errorMessage"] == "a name no header can carry"
    assert invoke(endpoint, "Echo", {"mode": "context"}).json()["pid"] == pid


def test_a_promise_that_never_settles_with_nothing_left_to_run_fails_as_lambda_does(
    endpoint: EmbeddedEndpoint,
) -> None:
    answer = invoke(endpoint, "Echo", {"mode": "never"})
    assert answer.headers["x-amz-function-error"] == "Unhandled"
    assert answer.json()["errorType"] == "Runtime.NodeJsExit"
    assert invoke(endpoint, "Echo", {"mode": "context"}).status_code == 200


def test_a_handler_that_never_answers_is_timed_out_killed_and_replaced(
    endpoint: EmbeddedEndpoint,
) -> None:
    before = members([os.getpid()])
    answer = invoke(endpoint, "Hang", {})
    assert answer.headers["x-amz-function-error"] == "Unhandled"
    assert "Task timed out after 1.00 seconds" in answer.json()["errorMessage"]
    spun = [pid for pid in members([os.getpid()]) - before if _is_node(pid)]
    assert spun == []  # the spinning process was killed, not left behind
    again = invoke(endpoint, "Hang", {})  # a fresh process takes the next invocation
    assert "Task timed out" in again.json()["errorMessage"]


def _is_node(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return b"runtime.js" in cmdline.read()
    except OSError:
        return False


@pytest.mark.parametrize(
    ("function", "error_type", "says"),
    [
        ("Missing", "Runtime.ImportModuleError", "Cannot find module 'nowhere'"),
        ("NotExported", "Runtime.HandlerNotFound", "index.nothing is undefined or not exported"),
        ("Syntax", "Runtime.UserCodeSyntaxError", "SyntaxError"),
    ],
)
def test_a_module_that_fails_to_load_is_an_init_error_and_leaves_nothing_running(
    endpoint: EmbeddedEndpoint, function: str, error_type: str, says: str
) -> None:
    answer = invoke(endpoint, function, {})
    assert answer.headers["x-amz-function-error"] == "Unhandled"
    body = answer.json()
    assert body["errorType"] == error_type and says in body["errorMessage"]
    lines = endpoint.logs_for(answer.headers["x-amzn-requestid"])
    assert any(error_type in line for line in lines)
    pool = endpoint.pool(function)
    assert pool is not None
    wait_for(lambda: not any(w.pid and alive(w.pid) for w in pool._all) or None, "no worker")


def test_escape_sequences_a_handler_prints_reach_the_terminal_escaped(tmp_path: Path) -> None:
    event = tmp_path / "escape.json"
    request = {"clientRequestToken": "t-1", "desiredResourceState": {"Mode": "escape"}}
    event.write_text(json.dumps({"action": "CREATE", "request": request, "callbackContext": None}))
    proc = cfn_debug(
        "run",
        "--project",
        str(NODE_ECHO),
        "--function-name",
        "Echo",
        "--no-journal",
        "--logs",
        str(event),
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout
    assert "\\x1b[31mred" in proc.stdout and "\\x1b[1mbold" in proc.stdout  # shown, escaped


def test_kill_9_of_serve_takes_the_node_worker_and_what_it_started() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cfn_debug.cli", "serve", str(NODE_ECHO), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=child_env(),
        cwd=REPO,
    )
    pids: list[int] = []
    try:
        url = f"http://127.0.0.1:{port}/2015-03-31/functions/Echo/invocations"

        def answered() -> httpx.Response | None:
            try:
                response = httpx.post(url, json={"mode": "spawn"}, timeout=30)
            except httpx.HTTPError:
                return None
            return response if response.status_code == 200 else None

        pids = wait_for(answered, "serve to answer", timeout=30).json()["pids"]
        assert len(pids) == 2 and all(alive(pid) for pid in pids)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        wait_for(
            lambda: not any(alive(pid) for pid in pids) or None,
            "the node worker and its child to end",
            GONE_WITHIN_S,
        )
    finally:
        stop(proc)
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_runtime_the_endpoint_cannot_run_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "template.yml").write_text(
        "Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Properties:\n"
        "      Handler: app.handler\n      Runtime: ruby3.2\n      CodeUri: src/\n"
    )
    event = tmp_path / "e.json"
    event.write_text("{}")
    proc = cfn_debug("run", "--project", str(tmp_path), "--no-journal", str(event))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "runtime 'ruby3.2' is not one the embedded endpoint runs" in lines[0]
    assert "sam local start-lambda" in lines[0] and "--endpoint" in lines[0]


def test_a_node_older_than_the_handler_librarys_engines_is_a_clear_error(tmp_path: Path) -> None:
    project = tmp_path / "old-node"
    (project / "src").mkdir(parents=True)
    (project / "src" / "index.js").write_text("exports.handler = async (e) => e;\n")
    (project / "template.yml").write_text(
        "Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Properties:\n"
        "      Handler: src/index.handler\n      Runtime: nodejs20.x\n      CodeUri: ./\n"
    )
    library = project / "node_modules" / "@amazon-web-services-cloudformation"
    library = library / "cloudformation-cli-typescript-lib"
    library.mkdir(parents=True)
    (library / "package.json").write_text(
        json.dumps({"name": "lib", "version": "9.0.0", "engines": {"node": ">=99.0.0"}})
    )
    (project / "package.json").write_text(json.dumps({"name": "old-node", "version": "1.0.0"}))
    with pytest.raises(EndpointError) as caught:
        EmbeddedEndpoint(project).start()
    message = str(caught.value)
    assert str(library / "package.json") in message
    assert "needs Node.js >=99.0.0 (engines.node)" in message and "--node PATH" in message


@pytest.mark.slow  # two `cfn-debug run` processes: 4.4 s at load 10
def test_node_names_the_node_executable_and_a_wrong_one_is_one_line(tmp_path: Path) -> None:
    request = {"clientRequestToken": "t-1", "desiredResourceState": {"Mode": "escape"}}
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "CREATE", "request": request, "callbackContext": None}))
    args = ("run", "--project", str(NODE_ECHO), "--function-name", "Echo", "--no-journal")
    wrong = cfn_debug(*args, "--node", str(tmp_path / "no-node"), str(event))
    assert wrong.returncode == 2
    assert wrong.stderr.strip() == (
        f"cfn-debug: error: {tmp_path / 'no-node'}: --node: expected an executable node"
    )
    assert NODE is not None
    right = cfn_debug(*args, "--node", NODE, str(event))
    assert right.returncode == 0, right.stdout + right.stderr
