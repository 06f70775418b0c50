"""The endpoint's HTTP (issue 12 item 2): framing by the library, limits, and who may call it.

Each test speaks real HTTP on loopback to a real embedded endpoint with real worker processes
(raw sockets where a client library would refuse to send the request). What must hold: chunked
bodies and pipelined requests are read as HTTP says; a body over Lambda's 6 MB payload is answered
with RequestEntityTooLargeException without running anything; a client that stalls in its request
head is dropped and never holds up another invocation; a foreign Host name (DNS rebinding) and any
request a browser sends (Origin, Sec-Fetch-*) get 403 and run nothing.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import boto3
import httpx
import pytest
from botocore import UNSIGNED
from botocore.config import Config
from botocore.exceptions import ClientError

from cfn_debug.endpoint.server import EmbeddedEndpoint

BASIC = Path(__file__).resolve().parents[1] / "endpoint" / "projects" / "basic"
INVOKE = "/2015-03-31/functions/Echo/invocations"
LIMIT = 6 * 1024 * 1024

pytestmark = pytest.mark.timeout(120)


class Started:
    """START lines the endpoint logged: one per invocation that reached a worker."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, line: str) -> None:
        if line.startswith("START RequestId"):
            with self._lock:
                self.lines.append(line)

    def count(self) -> int:
        with self._lock:
            return len(self.lines)


@pytest.fixture(scope="module")
def started() -> Started:
    return Started()


@pytest.fixture(scope="module")
def endpoint(started: Started) -> Iterator[EmbeddedEndpoint]:
    with EmbeddedEndpoint(BASIC, on_log=started, header_timeout_s=0.5) as ep:
        yield ep


def _raw(endpoint: EmbeddedEndpoint, data: bytes, *, wait_s: float = 30.0) -> bytes:
    """Send ``data`` on a new connection and read until the server closes it."""
    with socket.create_connection(("127.0.0.1", endpoint.port), timeout=wait_s) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def _responses(raw: bytes) -> list[tuple[int, bytes]]:
    """(status, body) of each Content-Length-framed response in ``raw``."""
    answers = []
    while raw:
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        length = next(
            int(line.split(b":", 1)[1])
            for line in lines
            if line.lower().startswith(b"content-length:")
        )
        answers.append((status, rest[:length]))
        raw = rest[length:]
    return answers


def _post(
    endpoint: EmbeddedEndpoint, headers: dict[str, str], body: bytes = b"{}"
) -> httpx.Response:
    return httpx.post(endpoint.url + INVOKE, content=body, headers=headers, timeout=30)


# --- framing: the library's, not ours ---


def test_a_chunked_body_reaches_the_handler(endpoint: EmbeddedEndpoint) -> None:
    def parts() -> Iterator[bytes]:
        yield b'{"tag": '
        yield b'"chunked"}'

    answer = httpx.post(endpoint.url + INVOKE, content=parts(), timeout=30)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"tag": "chunked"}


def test_pipelined_requests_are_answered_in_order(endpoint: EmbeddedEndpoint) -> None:
    def request(tag: str, close: bool = False) -> bytes:
        body = json.dumps({"tag": tag}).encode()
        extra = b"Connection: close\r\n" if close else b""
        return (
            b"POST "
            + INVOKE.encode()
            + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + extra
            + b"Content-Length: "
            + str(len(body)).encode()
            + b"\r\n\r\n"
            + body
        )

    raw = _raw(endpoint, request("one") + request("two") + request("three", close=True))
    answers = _responses(raw)
    assert [status for status, _ in answers] == [200, 200, 200]
    assert [json.loads(body)["tag"] for _, body in answers] == ["one", "two", "three"]


def test_a_malformed_request_gets_400_and_the_endpoint_keeps_serving(
    endpoint: EmbeddedEndpoint,
) -> None:
    raw = _raw(endpoint, b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: nope\r\n\r\n")
    assert raw.startswith(b"HTTP/1.1 400 ")
    assert _post(endpoint, {}).status_code == 200


# --- the 6 MB payload limit ---


def test_a_body_over_6_mb_is_refused_as_lambda_refuses_it(
    endpoint: EmbeddedEndpoint, started: Started
) -> None:
    before = started.count()
    body = b'{"pad": "' + b"x" * LIMIT + b'"}'
    answer = _post(endpoint, {"Content-Type": "application/json"}, body)
    assert answer.status_code == 413
    assert answer.headers["x-amzn-errortype"] == "RequestEntityTooLargeException"
    assert answer.json()["Message"] == (
        f"Request must be smaller than {LIMIT} bytes for the InvokeFunction operation"
    )
    assert started.count() == before  # nothing ran
    client = boto3.client(
        "lambda",
        endpoint_url=endpoint.url,
        region_name="us-east-1",
        config=Config(signature_version=UNSIGNED, retries={"max_attempts": 0}),
    )
    with pytest.raises(ClientError) as error:
        client.invoke(FunctionName="Echo", Payload=body)
    assert error.value.response["Error"]["Code"] == "RequestEntityTooLargeException"
    assert _post(endpoint, {}).status_code == 200  # and the next invoke works


def test_a_chunked_body_over_6_mb_is_refused_while_it_streams(endpoint: EmbeddedEndpoint) -> None:
    def parts() -> Iterator[bytes]:
        yield b'{"pad": "'
        for _ in range(8):
            yield b"x" * (1024 * 1024)
        yield b'"}'

    try:
        answer = httpx.post(endpoint.url + INVOKE, content=parts(), timeout=30)
    except httpx.TransportError:
        pytest.fail("the endpoint hung up without answering")
    assert answer.status_code == 413
    assert answer.headers["x-amzn-errortype"] == "RequestEntityTooLargeException"


def test_a_body_of_exactly_6_mb_is_accepted(endpoint: EmbeddedEndpoint) -> None:
    body = b'{"pad": "' + b"x" * (LIMIT - 11) + b'"}'
    assert len(body) == LIMIT
    answer = _post(endpoint, {}, body)
    assert answer.status_code == 200


# --- a stalled client ---


def test_a_client_stalled_in_its_headers_is_dropped_and_blocks_nobody(
    endpoint: EmbeddedEndpoint,
) -> None:
    with socket.create_connection(("127.0.0.1", endpoint.port), timeout=30) as stalled:
        stalled.sendall(b"POST " + INVOKE.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        # Another client is served while the first one dawdles.
        answer = _post(endpoint, {}, b'{"tag": "meanwhile"}')
        assert answer.status_code == 200
        assert answer.json() == {"tag": "meanwhile"}
        # The stalled connection is closed by the endpoint (a 30 s socket timeout fails the test).
        try:
            leftover = stalled.recv(65536)
        except TimeoutError:
            pytest.fail("the endpoint kept a stalled client's connection open")
        assert leftover == b""


def test_a_client_stalled_in_its_body_is_dropped(endpoint: EmbeddedEndpoint) -> None:
    with socket.create_connection(("127.0.0.1", endpoint.port), timeout=30) as stalled:
        stalled.sendall(
            b"POST " + INVOKE.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Length: 100\r\n\r\n{"
        )
        try:
            leftover = stalled.recv(65536)
        except TimeoutError:
            pytest.fail("the endpoint kept a stalled client's connection open")
        assert leftover == b""


# --- who may call ---


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "evil.example:{port}",
        "attacker.localhost.evil.example",
        "127.0.0.1.nip.io",
        "localhost.",
        "",
        "10.0.0.1",
        "[::1",
        "127.0.0.1:x",
    ],
)
def test_a_foreign_host_is_refused_before_anything_runs(
    endpoint: EmbeddedEndpoint, started: Started, host: str
) -> None:
    before = started.count()
    raw = _raw(
        endpoint,
        b"POST "
        + INVOKE.encode()
        + b" HTTP/1.1\r\nHost: "
        + host.format(port=endpoint.port).encode()
        + b"\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}",
    )
    status, body = _responses(raw)[0]
    assert status in (400, 403), raw[:200]
    if status == 403:
        assert json.loads(body)["Type"] == "User"
    assert started.count() == before


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "127.0.0.1:{port}", "localhost:{port}", "LOCALHOST", "127.1.2.3:9"]
)
def test_loopback_hosts_are_served(endpoint: EmbeddedEndpoint, host: str) -> None:
    answer = _post(endpoint, {"Host": host.format(port=endpoint.port)})
    assert answer.status_code == 200


def test_ipv6_loopback_host_is_served(endpoint: EmbeddedEndpoint) -> None:
    raw = _raw(
        endpoint,
        b"POST " + INVOKE.encode() + b" HTTP/1.1\r\nHost: [::1]:3001\r\nConnection: close\r\n"
        b"Content-Length: 2\r\n\r\n{}",
    )
    assert _responses(raw)[0][0] == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example", "Content-Type": "text/plain"},
        {"Origin": "null"},
        {"Origin": "http://127.0.0.1"},
        {"Sec-Fetch-Mode": "no-cors"},
        {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Dest": "empty"},
    ],
)
def test_a_browser_request_is_refused_before_anything_runs(
    endpoint: EmbeddedEndpoint, started: Started, headers: dict[str, str]
) -> None:
    before = started.count()
    answer = _post(endpoint, headers, b'{"tag": "from a web page"}')
    assert answer.status_code == 403
    assert answer.headers["x-amzn-errortype"] == "AccessDeniedException"
    assert "browser" in answer.json()["Message"]
    assert started.count() == before


def test_a_cors_preflight_is_refused(endpoint: EmbeddedEndpoint) -> None:
    answer = httpx.request(
        "OPTIONS",
        endpoint.url + INVOKE,
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
        timeout=30,
    )
    assert answer.status_code == 403
    assert "access-control-allow-origin" not in answer.headers


def test_the_embedded_endpoint_takes_a_random_port_not_sams() -> None:
    with EmbeddedEndpoint(BASIC) as one, EmbeddedEndpoint(BASIC) as two:
        assert one.port not in (0, 3001) and two.port not in (0, 3001)
        assert one.port != two.port


def test_serve_keeps_sams_port_and_says_who_can_reach_it() -> None:
    from cfn_debug.cli import build_parser
    from cfn_debug.endpoint.command import exposure

    assert build_parser().parse_args(["serve"]).port == 3001
    said = exposure("127.0.0.1", 3001)
    assert "127.0.0.1:3001" in said and "this machine only" in said and "403" in said
    assert "NOT loopback" in exposure("0.0.0.0", 3001)


def test_a_head_request_gets_headers_only_and_the_connection_goes_on(
    endpoint: EmbeddedEndpoint,
) -> None:
    head = b"HEAD " + INVOKE.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    post = (
        b"POST " + INVOKE.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b'Content-Length: 13\r\n\r\n{"tag": "ok"}'
    )
    raw = _raw(endpoint, head + post)
    first, _, rest = raw.partition(b"\r\n\r\n")
    assert first.startswith(b"HTTP/1.1 405 ")
    assert rest.startswith(b"HTTP/1.1 200 ")
