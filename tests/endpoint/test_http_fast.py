"""The endpoint's fast path (http_fast.py) reads and writes exactly what h11 does: a request it
takes, h11 reads as the same method, target, headers and body; a reply it writes is h11's bytes."""

from __future__ import annotations

import json
import socket
import time

import h11
import httpx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cfn_debug.endpoint import http_server
from cfn_debug.endpoint.http_fast import Declined, parse_head, response_bytes
from cfn_debug.endpoint.server import EmbeddedEndpoint

from .conftest import BASIC, invoke_path, lambda_client

MAX_HEAD = 64 * 1024

VALUE_CHARS = st.sampled_from([*"ab Z09/-_.:;,=\"'{}\t\x7f", "\x80", "é", "\x00", "\r"])


def _mostly(plain: list[str], odd: list[str]) -> st.SearchStrategy[str]:
    """Plain choices nine times in ten: the fast path's requests, with the odd ones h11 reads."""
    return st.integers(0, 9).flatmap(lambda n: st.sampled_from(odd if n == 0 else plain))


NAMES = _mostly(
    ["Content-Type", "Accept", "X-Amz-Invocation-Type", "User-Agent", "accept-encoding"],
    [
        "Host",
        "Content-Length",
        "Transfer-Encoding",
        "Connection",
        "Expect",
        "Upgrade",
        "X Bad",
        "",
        "Ünï",
    ],
)
PLAIN_VALUE = st.text(st.sampled_from(list("abZ09/-_.:;,={}*")), max_size=12)
ODD_VALUE = st.text(VALUE_CHARS, max_size=12)


@st.composite
def requests(draw: st.DrawFn) -> bytes:
    body = draw(st.binary(max_size=40))
    method = draw(_mostly(["POST", "GET"], ["PUT", "HEAD", "post", "GE T", ""]))
    target = draw(
        _mostly(
            ["/2015-03-31/functions/Fn/invocations", "/", "/_cfn_debug/invocations/x?y=1"],
            ["/a b", "", "*", "/\x7f", "/é"],
        )
    )
    version = draw(_mostly(["HTTP/1.1"], ["HTTP/1.0", "HTTP/2.0", "http/1.1", "HTTP/1.1 "]))
    lines = [f"{method} {target} {version}"]
    if draw(_mostly(["yes"], ["", "twice"])):
        host = draw(_mostly(["127.0.0.1:3001", "localhost", "[::1]:3001"], ["", " h ", "a\tb"]))
        lines.append(f"{draw(st.sampled_from(['Host', 'host', 'HOST']))}: {host}")
        if draw(st.integers(0, 19)) == 0:
            lines.append("Host: again")
    if draw(st.booleans()):  # as httpx sends it
        keep = draw(_mostly(["keep-alive", "Keep-Alive"], ["close", "keep-alive, close", "x"]))
        lines.append(f"Connection: {keep}")
    if draw(st.booleans()):
        declared = draw(_mostly([str(len(body))], [f"0{len(body)}", f"{len(body)}, 5", "x", ""]))
        lines.append(f"{draw(st.sampled_from(['Content-Length', 'content-length']))}: {declared}")
    for _ in range(draw(st.integers(0, 4))):
        name = draw(NAMES)
        value = draw(st.integers(0, 3).flatmap(lambda n: ODD_VALUE if n == 0 else PLAIN_VALUE))
        pad = draw(_mostly(["", " "], ["  ", "\t", " \t"]))
        fold = draw(_mostly([""], [" folded", "\tfolded"]))
        lines.append(f"{name}:{pad}{value}{pad}" + (f"\r\n{fold}" if fold else ""))
    end = draw(_mostly(["\r\n"], ["\n"]))
    head = end.join(lines) + end + end
    data = head.encode("utf-8", "surrogatepass") + body
    if draw(st.integers(0, 3)) == 0:
        data = data[: draw(st.integers(0, len(data)))]  # received so far
    return data


def _h11_read(data: bytes) -> tuple[str, object]:
    """('request', (method, target, headers, body)), ('need', None) or ('error', None)."""
    conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
    if data:
        conn.receive_data(data)  # (b"" would say the client closed)
    try:
        head = conn.next_event()
        if head is h11.NEED_DATA:
            return "need", None
        if not isinstance(head, h11.Request):
            return "other", None
        body = b""
        while True:
            event = conn.next_event()
            if isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                break
            else:
                return "partial", (
                    head.method.decode(),
                    head.target.decode("latin-1"),
                    [(k.decode("latin-1"), v.decode("latin-1")) for k, v in head.headers],
                )
    except h11.RemoteProtocolError:
        return "error", None
    return "request", (
        head.method.decode(),
        head.target.decode("latin-1"),
        [(k.decode("latin-1"), v.decode("latin-1")) for k, v in head.headers],
        body,
    )


@settings(max_examples=1500, deadline=None)
@given(data=requests())
@example(
    data=b"POST /2015-03-31/functions/Fn/invocations HTTP/1.1\r\nHost: 127.0.0.1:3001\r\n"
    b"Accept: */*\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
)
@example(
    data=b"POST /2015-03-31/functions/Fn/invocations HTTP/1.1\r\nHost: 127.0.0.1:3001\r\n"
    b"Accept: */*\r\nAccept-Encoding: gzip, deflate\r\nConnection: keep-alive\r\n"
    b"User-Agent: python-httpx/0.28.1\r\nContent-Type: application/json\r\n"
    b"Content-Length: 2\r\n\r\n{}"
)
@example(data=b"GET / HTTP/1.1\nHost: x\n\n")
@example(data=b"GET / HTTP/1.1\r\nHost: x\r\n X: folded\r\n\r\n")
def test_a_request_the_fast_path_takes_is_what_h11_reads(data: bytes) -> None:
    try:
        head = parse_head(data, MAX_HEAD)
    except Declined:
        return  # h11 reads it: nothing to compare
    kind, read = _h11_read(data)
    if head is None:
        assert kind == "need", read  # both wait for the rest of the head
        return
    assert kind in ("request", "partial"), kind
    assert read is not None
    assert (head.method, head.target, head.headers) == tuple(read)[:3]  # type: ignore[arg-type]
    if kind == "request":
        end = head.body_start + head.content_length
        assert len(data) >= end
        assert data[head.body_start : end] == read[3]  # type: ignore[index]
    else:
        assert len(data) < head.body_start + head.content_length  # the body is still coming


HEADER_VALUES = st.text(
    st.sampled_from([*"abZ09 -/:;=+", "\t", "\x80", "é"]), min_size=0, max_size=20
)


@settings(max_examples=800, deadline=None)
@given(
    status=st.sampled_from([200, 202, 400, 403, 404, 405, 413, 500, 501]),
    headers=st.lists(
        st.tuples(
            st.sampled_from(["x-amzn-RequestId", "X-Amz-Function-Error", "x-amzn-errortype"]),
            HEADER_VALUES,
        ),
        max_size=4,
    ),
    body=st.binary(max_size=30),
    close=st.booleans(),
)
def test_a_reply_is_written_as_h11_writes_it(
    status: int, headers: list[tuple[str, str]], body: bytes, close: bool
) -> None:
    from http import HTTPStatus

    reason = HTTPStatus(status).phrase.encode()
    full = [("Content-Type", "application/json"), *headers, ("Content-Length", str(len(body)))]
    if close:
        full.append(("Connection", "close"))
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(b"POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
    conn.next_event()
    conn.next_event()
    try:
        expected = conn.send(h11.Response(status_code=status, headers=full, reason=reason))
        assert expected is not None
        expected += conn.send(h11.Data(data=body)) or b"" if body else b""
        expected += conn.send(h11.EndOfMessage()) or b""
    except (h11.LocalProtocolError, UnicodeError) as refused:
        with pytest.raises(type(refused)):
            response_bytes(status, reason, full, body)
        return
    assert response_bytes(status, reason, full, body) == expected


def _read_reply(sock: socket.socket, buffer: bytearray) -> tuple[int, bytes]:
    """One reply off a raw connection: (status, body)."""
    while b"\r\n\r\n" not in buffer:
        data = sock.recv(65536)
        assert data, "the endpoint closed the connection"
        buffer += data
    end = buffer.index(b"\r\n\r\n")
    head = bytes(buffer[:end]).decode("latin-1").split("\r\n")
    length = next(
        int(line.split(":")[1]) for line in head if line.lower().startswith("content-length:")
    )
    while len(buffer) < end + 4 + length:
        buffer += sock.recv(65536)
    body = bytes(buffer[end + 4 : end + 4 + length])
    del buffer[: end + 4 + length]
    return int(head[0].split(" ")[1]), body


def test_one_connection_goes_from_the_fast_path_to_h11_and_keeps_every_answer() -> None:
    """Plain requests (one split between head and body, two pipelined in one write), then a
    chunked one (h11 reads it and the rest of the connection), then plain ones again."""
    path = "/2015-03-31/functions/Echo/invocations"

    def plain(tag: str) -> bytes:
        body = json.dumps({"tag": tag}).encode()
        head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(body)}\r\n\r\n"
        return head.encode() + body

    chunked_body = json.dumps({"tag": "chunked"}).encode()
    chunked = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
        + b"%x\r\n%s\r\n0\r\n\r\n" % (len(chunked_body), chunked_body)
    )
    with (
        EmbeddedEndpoint(BASIC) as endpoint,
        socket.create_connection(("127.0.0.1", endpoint.port), timeout=30) as sock,
    ):
        buffer = bytearray()
        first = plain("one")
        split = first.index(b"\r\n\r\n") + 4
        sock.sendall(first[:split])
        time.sleep(0.05)
        sock.sendall(first[split:])
        sock.sendall(plain("two") + plain("three"))
        sock.sendall(chunked + plain("four"))
        answers = [_read_reply(sock, buffer) for _ in range(5)]
    tags = [json.loads(body)["tag"] for _, body in answers]
    assert [status for status, _ in answers] == [200] * 5
    assert tags == ["one", "two", "three", "chunked", "four"]


def test_the_clients_that_invoke_functions_take_the_fast_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """httpx (cfn-debug's own invoker) and boto3 (the AWS CLI, SAM's tooling): h11 reads none of
    their requests (the point of the fast path; it costs nothing to be right without it)."""
    read_by_h11: list[str] = []
    plain_path = http_server.HttpServer._one_exchange

    def counted(self, conn, sock, first_wait):  # type: ignore[no-untyped-def]
        read_by_h11.append("request")
        return plain_path(self, conn, sock, first_wait)

    monkeypatch.setattr(http_server.HttpServer, "_one_exchange", counted)
    with EmbeddedEndpoint(BASIC) as endpoint, httpx.Client(base_url=endpoint.url) as http:
        for tag in ("a", "b"):
            assert http.post(invoke_path("Echo"), json={"tag": tag}).json() == {"tag": tag}
        answer = lambda_client(endpoint.url).invoke(FunctionName="Echo", Payload=b'{"tag": "c"}')
        assert json.loads(answer["Payload"].read()) == {"tag": "c"}
    assert read_by_h11 == []
