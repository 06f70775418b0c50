"""The Invoke API of the embedded endpoint, via boto3 and plain httpx, on both bootstraps."""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from botocore.exceptions import ClientError

from cfn_debug.endpoint.logs import HEAD_LINES, TAIL_LINES
from cfn_debug.endpoint.server import EmbeddedEndpoint

from .conftest import BASIC, HOST_SECRET, invoke_path, lambda_client


def _payload(response) -> dict:
    return json.loads(response["Payload"].read())


def _echo_works(http, tag: str = "after") -> None:
    response = http.post(invoke_path("Echo"), json={"tag": tag})
    assert response.status_code == 200
    assert response.json() == {"tag": tag}
    assert "x-amz-function-error" not in response.headers


def test_echo_through_boto3(endpoint):
    client = lambda_client(endpoint.url)
    response = client.invoke(FunctionName="Echo", Payload=json.dumps({"tag": "b3", "n": [1, 2]}))
    assert response["StatusCode"] == 200
    assert "FunctionError" not in response
    assert _payload(response) == {"tag": "b3", "n": [1, 2]}
    request_id = response["ResponseMetadata"]["RequestId"]
    assert endpoint.logs_for(request_id) == ["echo b3"]


def test_empty_body_is_an_empty_event(http):
    response = http.post(invoke_path("Echo"))
    assert response.status_code == 200
    assert response.json() == {}


def test_function_named_by_arn(endpoint):
    client = lambda_client(endpoint.url)
    arn = "arn:aws:lambda:us-east-1:123456789012:function:Echo"
    assert _payload(client.invoke(FunctionName=arn, Payload=b'{"tag": "arn"}')) == {"tag": "arn"}


def test_crash_answers_unhandled_with_the_error_document(endpoint, http):
    client = lambda_client(endpoint.url)
    response = client.invoke(FunctionName="Crash", Payload=b'{"tag": "c1"}')
    assert response["StatusCode"] == 200
    assert response["FunctionError"] == "Unhandled"
    body = _payload(response)
    assert body["errorType"] == "ValueError"
    assert body["errorMessage"] == "boom c1"
    assert any("handlers.py" in frame and "in crash" in frame for frame in body["stackTrace"])
    logs = endpoint.logs_for(response["ResponseMetadata"]["RequestId"])
    assert logs[0] == "about to fail"
    assert "[ERROR] ValueError: boom c1" in logs
    assert any('raise ValueError(f"boom' in line for line in logs)
    _echo_works(http)


def test_timeout_kills_and_replaces_the_worker(endpoint, http):
    first = http.post(invoke_path("Sleep"), json={}).json()["pid"]
    response = http.post(invoke_path("Sleep"), json={"sleep": True})
    assert response.status_code == 200
    assert response.headers["x-amz-function-error"] == "Unhandled"
    request_id = response.headers["x-amzn-requestid"]
    message = response.json()["errorMessage"]
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z "
        + re.escape(request_id)
        + r" Task timed out after 1\.00 seconds",
        message,
    )
    logs = endpoint.logs_for(request_id)
    assert logs[0] == "going to sleep"
    assert logs[-1] == message
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)
    second = http.post(invoke_path("Sleep"), json={}).json()["pid"]
    assert second != first


def test_process_exit_answers_runtime_exit_error(endpoint, http):
    response = http.post(invoke_path("Exit"), json={})
    assert response.headers["x-amz-function-error"] == "Unhandled"
    body = response.json()
    assert body["errorType"] == "Runtime.ExitError"
    assert body["errorMessage"].endswith("Runtime exited with error: exit status 3")
    assert endpoint.logs_for(response.headers["x-amzn-requestid"]) == ["exiting hard"]
    _echo_works(http)


def test_unknown_function_is_resource_not_found(endpoint, http):
    response = http.post(invoke_path("Nope"), json={})
    assert response.status_code == 404
    assert response.headers["x-amzn-errortype"] == "ResourceNotFound"
    assert response.headers["x-amzn-requestid"]
    assert response.json() == {
        "Type": "User",
        "Message": "Function not found: arn:aws:lambda:us-east-1:123456789012:function:Nope",
    }
    with pytest.raises(ClientError) as error:
        lambda_client(endpoint.url).invoke(FunctionName="Nope")
    assert error.value.response["Error"]["Code"] == "ResourceNotFound"
    _echo_works(http)


def test_bad_json_is_invalid_request_content(endpoint, http):
    response = http.post(invoke_path("Echo"), content=b"notat:asdfasdf")
    assert response.status_code == 400
    assert response.headers["x-amzn-errortype"] == "InvalidRequestContent"
    assert response.headers["x-amzn-requestid"]
    assert response.json() == {
        "Type": "User",
        "Message": "Could not parse request body into json: No JSON object could be decoded",
    }
    with pytest.raises(ClientError) as error:
        lambda_client(endpoint.url).invoke(FunctionName="Echo", Payload=b"{nope")
    assert error.value.response["Error"]["Code"] == "InvalidRequestContent"
    _echo_works(http)


def test_query_string_is_refused_as_sam_does(http):
    response = http.post(invoke_path("Echo") + "?Qualifier=1", json={})
    assert response.status_code == 400
    assert response.headers["x-amzn-errortype"] == "InvalidRequestContent"
    _echo_works(http)


def test_tail_log_result_is_the_last_4kb_of_this_invocation(endpoint):
    client = lambda_client(endpoint.url)
    response = client.invoke(FunctionName="Echo", Payload=b'{"tag": "tail"}', LogType="Tail")
    request_id = response["ResponseMetadata"]["RequestId"]
    text = base64.b64decode(response["LogResult"]).decode()
    lines = text.splitlines()
    assert lines[0] == f"START RequestId: {request_id} Version: $LATEST"
    assert lines[1] == "echo tail"
    assert lines[2] == f"END RequestId: {request_id}"
    assert lines[3].startswith(f"REPORT RequestId: {request_id}\tDuration: ")

    big = client.invoke(
        FunctionName="Chatty", Payload=b'{"tag": "big", "bytes": 20000}', LogType="Tail"
    )
    raw = base64.b64decode(big["LogResult"])
    assert len(raw) == 4096
    tail = raw.decode().splitlines()
    assert tail[-3] == "big last line, no newline"
    assert tail[-1].startswith("REPORT RequestId: ")
    no_tail = client.invoke(FunctionName="Echo", Payload=b"{}")
    assert "LogResult" not in no_tail


def test_every_line_of_an_invocation_is_attributed_to_it(endpoint, http):
    response = http.post(invoke_path("Chatty"), json={"tag": "solo", "lines": 2})
    assert response.json() == {"tag": "solo"}
    logs = endpoint.logs_for(response.headers["x-amzn-requestid"])
    assert logs[:3] == ["solo stdout 0", "solo stdout 1", "solo stderr"]
    assert re.fullmatch(r"\[INFO\]\t\S+Z\t[0-9a-f-]{36}\tsolo logging", logs[3])
    assert logs[4:] == ["solo raw fd", "solo last line, no newline"]


def test_twenty_concurrent_invokes_keep_answers_and_logs_apart(endpoint):
    def one(i: int) -> tuple[int, str, dict]:
        import httpx

        name = "Chatty" if i % 2 else "Echo"
        with httpx.Client(base_url=endpoint.url, timeout=60) as client:
            response = client.post(invoke_path(name), json={"tag": f"t{i}", "lines": 5})
        return i, response.headers["x-amzn-requestid"], response.json()

    with ThreadPoolExecutor(20) as pool:
        results = list(pool.map(one, range(20)))
    for i, request_id, body in results:
        assert body["tag"] == f"t{i}"
        logs = endpoint.logs_for(request_id)
        if i % 2:
            assert [line for line in logs if "logging" not in line] == [
                *(f"t{i} stdout {n}" for n in range(5)),
                f"t{i} stderr",
                f"t{i} raw fd",
                f"t{i} last line, no newline",
            ]
            assert len(logs) == 9
        else:
            assert logs == [f"echo t{i}"]


def test_a_flood_of_output_is_capped(endpoint, http):
    response = http.post(invoke_path("Chatty"), json={"tag": "flood", "bytes": 8_000_000})
    assert response.json() == {"tag": "flood"}
    logs = endpoint.logs_for(response.headers["x-amzn-requestid"])
    assert len(logs) <= HEAD_LINES + TAIL_LINES + 1
    assert sum(len(line) for line in logs) < 2_000_000
    assert any(line.startswith("[... truncated: ") for line in logs)
    assert logs[0] == "flood stdout 0"
    assert logs[-1] == "flood last line, no newline"
    _echo_works(http)


def test_the_handler_sees_lambdas_environment(endpoint, http):
    response = http.post(invoke_path("Environment"), json={})
    body = response.json()
    env = body["env"]
    code_dir = str((BASIC / "src").resolve())
    assert body["bootstrap"] == endpoint.bootstrap
    assert env["AWS_LAMBDA_FUNCTION_NAME"] == "Environment"
    assert env["AWS_LAMBDA_FUNCTION_VERSION"] == "$LATEST"
    assert env["AWS_LAMBDA_FUNCTION_TIMEOUT"] == "5"
    assert env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] == "512"
    assert env["AWS_LAMBDA_LOG_GROUP_NAME"] == "/aws/lambda/Environment"
    assert env["AWS_LAMBDA_LOG_STREAM_NAME"]
    assert re.fullmatch(r"127\.0\.0\.1:\d+", env["AWS_LAMBDA_RUNTIME_API"])
    assert env["AWS_REGION"] == env["AWS_DEFAULT_REGION"] == "us-east-1"
    assert env["LAMBDA_TASK_ROOT"] == code_dir
    assert env["_HANDLER"] == "handlers.environment"
    assert env["TZ"] == ":UTC"
    assert env["FROM_GLOBALS"] == "shell"
    assert "UNDECLARED_HOST_VARIABLE" not in env
    assert env["AWS_SAM_LOCAL"] == "true"
    assert env["FROM_PARAMETERS"] == "p"
    assert env["OVERRIDDEN"] == "cli"
    assert env["FROM_SUB"] == "${AWS::Region}-thing"
    assert "AWS_ACCESS_KEY_ID" not in env and HOST_SECRET not in json.dumps(env)
    assert body["sys_path_0"] == code_dir
    assert body["cwd"] == code_dir
    context = body["context"]
    assert context["aws_request_id"] == response.headers["x-amzn-requestid"]
    assert context["function_name"] == "Environment"
    assert context["memory_limit_in_mb"] == "512"
    assert context["invoked_function_arn"].endswith(":function:Environment")
    assert 0 < context["remaining_ms"] <= 5000


def test_a_cloudformation_python_lib_handler(endpoint, http):
    event = {
        "credentials": {"accessKeyId": "a", "secretAccessKey": "b", "sessionToken": "c"},
        "action": "READ",
        "request": {
            "clientRequestToken": "token",
            "desiredResourceState": {"Name": "w1", "Size": 3},
            "logicalResourceIdentifier": "Thing",
        },
        "callbackContext": None,
    }
    response = http.post(invoke_path("TestEntrypoint"), json=event)
    body = response.json()
    assert body["status"] == "SUCCESS"
    assert body["resourceModel"] == {"Name": "w1", "Size": 3}
    assert "reading w1" in endpoint.logs_for(response.headers["x-amzn-requestid"])

    event["request"]["desiredResourceState"] = {"Name": "explode"}
    response = http.post(invoke_path("TestEntrypoint"), json=event)
    body = response.json()
    assert body["status"] == "FAILED"
    assert body["errorCode"] == "InternalFailure"
    logs = endpoint.logs_for(response.headers["x-amzn-requestid"])
    assert "reading explode" in logs
    assert any("RuntimeError: not a library error" in line for line in logs)


def test_restart_workers_replaces_the_warm_worker(endpoint, http):
    first = http.post(invoke_path("Environment"), json={}).json()["pid"]
    assert http.post(invoke_path("Environment"), json={}).json()["pid"] == first
    endpoint.restart_workers()
    assert http.post(invoke_path("Environment"), json={}).json()["pid"] != first


def test_a_client_slow_to_read_its_answer_does_not_hold_up_the_next_invocation():
    """The runtime's 202 for an answer is sent once the client has the answer (off the answer's
    path); a client that does not read a large answer must not keep the warm worker from the
    next invocation, which takes that worker at once."""
    pad = "a" * 5_800_000
    body = json.dumps({"tag": "slow", "pad": pad}).encode()
    head = (
        "POST /2015-03-31/functions/Echo/invocations HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    with EmbeddedEndpoint(BASIC) as endpoint, httpx.Client(base_url=endpoint.url) as http:
        first = http.post(invoke_path("Echo"), json={"tag": "warm"})
        assert first.status_code == 200
        slow = socket.socket()
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.connect(("127.0.0.1", endpoint.port))
        try:
            slow.sendall(head + body)
            slow.recv(1)  # its answer has begun; the rest is never read
            started = time.monotonic()
            after = http.post(invoke_path("Echo"), json={"tag": "next"}, timeout=30)
            took = time.monotonic() - started
        finally:
            slow.close()
    assert after.status_code == 200
    assert after.json() == {"tag": "next"}
    assert took < 5, f"the next invocation waited {took:.1f} s for the slow client"
