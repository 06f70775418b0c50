"""LocalInvoker against a real HTTP server on loopback answering every way endpoints answer."""

from __future__ import annotations

import base64
import json

from cfn_debug.invoke.local import LocalInvoker
from cfn_debug.invoke.outcome import LAMBDA_RESPONSE_LIMIT
from cfn_debug.records import OutcomeKind
from invoke.lambda_stub import LambdaStub, Reply
from support.ports import free_port

PROGRESS = {"status": "SUCCESS", "resourceModel": {"Name": "a"}, "message": ""}


async def test_progress_event_is_parsed_and_timed() -> None:
    with LambdaStub() as stub:
        stub.functions["F"] = lambda payload: {**PROGRESS, "echo": payload["n"]}
        invoker = LocalInvoker(stub.url)
        result = await invoker.invoke("F", b'{"n":7}')
        await invoker.aclose()
    assert result.kind is OutcomeKind.PROGRESS
    assert result.status == "SUCCESS"
    assert result.progress is not None and result.progress["echo"] == 7
    assert result.http_status == 200
    assert result.request_id == "req-1"
    assert result.duration_s > 0
    assert stub.received[0].function == "F"
    assert stub.received[0].payload == {"n": 7}


async def test_log_tail_header_only_sent_when_asked() -> None:
    lines = "START\nhello from the handler\nEND\n"
    tail = base64.b64encode(lines.encode()).decode()
    with LambdaStub() as stub:
        stub.functions["F"] = lambda _p: Reply(
            json.dumps(PROGRESS).encode(), 200, {"X-Amz-Log-Result": tail}
        )
        plain = LocalInvoker(stub.url)
        await plain.invoke("F", b"{}")
        tailing = LocalInvoker(stub.url, log_tail=True)
        result = await tailing.invoke("F", b"{}")
    lowered = [{k.lower(): v for k, v in r.headers.items()} for r in stub.received]
    assert "x-amz-log-type" not in lowered[0]
    assert lowered[1]["x-amz-log-type"] == "Tail"
    assert result.logs == ["START", "hello from the handler", "END"]


async def test_logs_hook_supplies_the_handlers_lines_by_request_id() -> None:
    asked: list[str] = []

    def logs_for(request_id: str) -> list[str]:
        asked.append(request_id)
        return [f"line for {request_id}"]

    with LambdaStub() as stub:
        stub.functions["F"] = lambda _p: Reply(
            json.dumps(PROGRESS).encode(), 200, {"x-amzn-RequestId": "abc-123"}
        )
        result = await LocalInvoker(stub.url, logs=logs_for).invoke("F", b"{}")
    assert asked == ["abc-123"]
    assert result.logs == ["line for abc-123"]


async def test_crash_with_function_error_header_keeps_the_stack() -> None:
    crash = {
        "errorMessage": "division by zero",
        "errorType": "ZeroDivisionError",
        "stackTrace": ['  File "/var/task/handlers.py", line 12, in create\n    return 1 / 0\n'],
    }
    with LambdaStub() as stub:
        stub.functions["F"] = lambda _p: Reply(
            json.dumps(crash).encode(), 200, {"X-Amz-Function-Error": "Unhandled"}
        )
        result = await LocalInvoker(stub.url).invoke("F", b"{}")
    assert result.kind is OutcomeKind.CRASH
    assert result.error_type == "ZeroDivisionError"
    assert result.error_message == "division by zero"
    assert result.stack_trace == [
        '  File "/var/task/handlers.py", line 12, in create',
        "    return 1 / 0",
    ]


async def test_timeouts_of_sam_the_emulator_and_lambda() -> None:
    lambda_timeout = {"errorMessage": "2024-01-01T00:00:00Z abc Task timed out after 3.00 seconds"}
    with LambdaStub() as stub:
        stub.functions["Sam"] = lambda _p: Reply(b"", 200)
        stub.functions["Rie"] = lambda _p: Reply(
            b"Task timed out after 3.00 seconds", 200, {"Content-Type": "text/plain"}
        )
        stub.functions["Lambda"] = lambda _p: Reply(
            json.dumps(lambda_timeout).encode(), 200, {"X-Amz-Function-Error": "Unhandled"}
        )
        invoker = LocalInvoker(stub.url)
        sam = await invoker.invoke("Sam", b"{}")
        rie = await invoker.invoke("Rie", b"{}")
        aws = await invoker.invoke("Lambda", b"{}")
    assert sam.kind is OutcomeKind.TIMEOUT and "empty body" in (sam.error_message or "")
    assert rie.kind is OutcomeKind.TIMEOUT and "3.00 seconds" in (rie.error_message or "")
    assert aws.kind is OutcomeKind.TIMEOUT and "Task timed out" in (aws.error_message or "")


async def test_not_json_and_not_a_progress_event() -> None:
    with LambdaStub() as stub:
        stub.functions["Text"] = lambda _p: Reply(b"<html>oops</html>", 200)
        stub.functions["Array"] = lambda _p: [1, 2]
        stub.functions["NoStatus"] = lambda _p: {"resourceModel": {}}
        invoker = LocalInvoker(stub.url)
        text = await invoker.invoke("Text", b"{}")
        array = await invoker.invoke("Array", b"{}")
        no_status = await invoker.invoke("NoStatus", b"{}")
    assert text.kind is OutcomeKind.NOT_JSON and text.body_excerpt == "<html>oops</html>"
    assert array.kind is OutcomeKind.NOT_PROGRESS_EVENT and "an array" in (
        array.error_message or ""
    )
    assert no_status.kind is OutcomeKind.NOT_PROGRESS_EVENT
    assert "resourceModel" in (no_status.error_message or "")


async def test_http_errors_carry_errortype_and_message() -> None:
    with LambdaStub() as stub:
        stub.functions["Tail"] = lambda _p: Reply(
            json.dumps({"Type": "NotImplemented", "Message": "LogType Tail unsupported"}).encode(),
            501,
            {"x-amzn-errortype": "NotImplemented"},
        )
        invoker = LocalInvoker(stub.url)
        missing = await invoker.invoke("Nope", b"{}")
        tail = await invoker.invoke("Tail", b"{}")
    assert missing.kind is OutcomeKind.HTTP_ERROR
    assert missing.http_status == 404
    assert missing.error_type == "ResourceNotFound"
    assert "Function not found: Nope" in (missing.error_message or "")
    assert "--function-name" in (missing.error_message or "")
    assert tail.kind is OutcomeKind.HTTP_ERROR and tail.http_status == 501
    assert "LogType Tail unsupported" in (tail.error_message or "")


async def test_unreachable_endpoint_says_what_to_do() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    result = await LocalInvoker(url, connect_timeout_s=1).invoke("F", b"{}")
    assert result.kind is OutcomeKind.UNREACHABLE
    assert result.error_message == (
        f"nothing answers at {url}: start `sam local start-lambda`, or run without --endpoint "
        "to use the embedded endpoint"
    )


async def test_response_over_lambdas_limit_is_reported_and_the_cap_bounds_reading() -> None:
    big = json.dumps({"status": "SUCCESS", "resourceModel": {"Blob": "x" * LAMBDA_RESPONSE_LIMIT}})
    with LambdaStub() as stub:
        stub.functions["Big"] = lambda _p: Reply(big.encode(), 200)
        over_limit = await LocalInvoker(stub.url).invoke("Big", b"{}")
        over_cap = await LocalInvoker(stub.url, body_cap=1024).invoke("Big", b"{}")
    for result in (over_limit, over_cap):
        assert result.kind is OutcomeKind.CRASH
        assert result.error_type == "Function.ResponseSizeTooLarge"
        assert f"{len(big):,} bytes" in (result.error_message or "")
    assert len(over_cap.body_excerpt) < 3000


async def test_read_timeout_becomes_a_timeout_outcome() -> None:
    with LambdaStub() as stub:
        stub.functions["Slow"] = lambda _p: (stub.release.wait(5), PROGRESS)[1]
        result = await LocalInvoker(stub.url, read_timeout_s=0.2).invoke("Slow", b"{}")
    assert result.kind is OutcomeKind.TIMEOUT
    assert "within 0.2 s" in (result.error_message or "")
