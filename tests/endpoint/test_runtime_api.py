"""The worker's Runtime API transport: its small request reader, and its descriptors' lifetime
(a stop after the transport ended must not write into a number the kernel has reused)."""

from __future__ import annotations

import os
import socket
import threading
import time

import httpx
import pytest

from cfn_debug.endpoint.runtime_api import (
    BadRequest,
    Connection,
    Request,
    Transport,
    parse_request,
)
from endpoint.conftest import BASIC, invoke_path


def test_a_request_is_taken_whole_and_only_when_complete() -> None:
    buffer = bytearray(b"POST /x HTTP/1.1\r\nContent-Length: 5\r\nA-B: c \r\n\r\nhel")
    assert parse_request(buffer) is None
    buffer += b"lo" + b"GET /next HTTP/1.1\r\n\r\n"
    first = parse_request(buffer)
    assert first == Request("POST", "/x", {"content-length": "5", "a-b": "c"}, b"hello")
    second = parse_request(buffer)
    assert second is not None and (second.method, second.path, second.body) == ("GET", "/next", b"")
    assert buffer == bytearray()


@pytest.mark.parametrize(
    "raw",
    [
        b"GARBAGE\r\n\r\n",
        b"POST /x HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
        b"POST /x HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
        b"POST /x HTTP/1.1\r\nContent-Length: many\r\n\r\n",
        b"POST /x HTTP/1.1\r\nno colon here\r\n\r\n",
        b"POST /x HTTP/1.1\r\nX: " + b"a" * (70 * 1024),
    ],
)
def test_what_the_runtime_clients_never_send_is_refused(raw: bytes) -> None:
    with pytest.raises(BadRequest):
        parse_request(bytearray(raw))


def test_a_bad_request_is_answered_400_and_the_connection_closed() -> None:
    seen: list[Request] = []
    read_end, write_end = os.pipe()
    transport = Transport(lambda connection, request: seen.append(request), lambda: True)
    thread = threading.Thread(target=transport.serve, args=(read_end,), daemon=True)
    thread.start()
    try:
        with socket.create_connection(("127.0.0.1", transport.port), timeout=10) as client:
            client.sendall(b"POST /x HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n")
            answer = b""
            while chunk := client.recv(4096):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 400 ")
        assert seen == []
    finally:
        transport.stop()
        thread.join(10)
        os.close(read_end)
        os.close(write_end)


def test_stop_after_the_transport_ended_touches_no_reused_descriptor() -> None:
    """The output pipe ends, serve() returns and closes its wake pipe; a new pipe then gets
    those descriptor numbers (the kernel hands out the lowest free). stop() must not write
    into it: that pipe may be a newer worker's."""
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)

    def drained() -> bool:
        try:
            return bool(os.read(read_end, 4096))
        except BlockingIOError:
            return True

    transport = Transport(lambda connection, request: None, drained)
    wake = (transport._wake_r, transport._wake_w)
    thread = threading.Thread(target=transport.serve, args=(read_end,), daemon=True)
    thread.start()
    os.close(write_end)  # the worker is gone: serve() ends
    thread.join(10)
    assert not thread.is_alive()
    newer: list[int] = []
    while not set(wake) <= set(newer) and len(newer) < 40:
        newer.extend(os.pipe())  # the lowest free numbers: the wake pipe's among them
    try:
        assert set(wake) <= set(newer), "the kernel did not reuse the numbers"
        for fd in newer:
            os.set_blocking(fd, False)
        transport.stop()
        for fd in newer:
            try:
                data = os.read(fd, 16)
            except OSError:  # a write end, or nothing to read
                data = b""
            assert data == b"", "stop() wrote into a descriptor it no longer owns"
    finally:
        for fd in (*newer, read_end):
            os.close(fd)


def test_a_connection_knows_when_its_peer_is_gone() -> None:
    server, client = socket.socketpair()
    connection = Connection(server)
    assert connection.open()
    client.close()
    assert not connection.open()
    connection.close()


def test_output_interest_off_leaves_the_pipe_alone_but_not_its_end() -> None:
    """With output interest off, data on the pipe does not wake serve(); turned on again, what
    waits is read; the pipe's end wakes it whatever the interest."""
    calls: list[int] = []
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)

    def on_output() -> bool:
        calls.append(1)
        try:
            return bool(os.read(read_end, 65536))
        except BlockingIOError:
            return True

    transport = Transport(lambda connection, request: None, on_output)
    transport.output_interest(False)
    thread = threading.Thread(target=transport.serve, args=(read_end,), daemon=True)
    thread.start()
    try:
        for _ in range(20):
            os.write(write_end, b"a line\n")
        thread.join(0.3)
        assert calls == []
        transport.output_interest(True)
        deadline = time.monotonic() + 10
        while not calls and time.monotonic() < deadline:
            time.sleep(0.01)
        assert calls
        transport.output_interest(False)
        seen = len(calls)
        os.close(write_end)
        write_end = -1
        thread.join(10)
        assert not thread.is_alive()  # the end was seen, with interest off
        assert len(calls) > seen
    finally:
        transport.stop()
        if write_end >= 0:
            os.close(write_end)
        os.close(read_end)


def test_a_running_handlers_lines_do_not_wake_the_endpoint_one_by_one() -> None:
    """Twenty lines written 10 ms apart by a running handler: all of them are the invocation's,
    in order, but the worker's I/O thread is not woken for each (it was: 20 wake-ups)."""
    from cfn_debug.endpoint.server import EmbeddedEndpoint

    with EmbeddedEndpoint(BASIC) as endpoint:
        url = endpoint.url + invoke_path("Chatty")
        httpx.post(url, json={"tag": "warm", "lines": 1}, timeout=30).raise_for_status()
        pool = endpoint.pool("Chatty")
        assert pool is not None
        worker = pool._idle[0]
        wakes: list[int] = []
        original = worker._transport.on_output

        def counted() -> bool:
            wakes.append(1)
            return original()

        worker._transport.on_output = counted
        answer = httpx.post(url, json={"tag": "t", "lines": 20, "pause": 0.01}, timeout=30)
        assert answer.json() == {"tag": "t"}
        lines = endpoint.logs_for(answer.headers["x-amzn-RequestId"])
        assert [line for line in lines if " stdout " in line] == [
            f"t stdout {i}" for i in range(20)
        ]
        assert lines[-1] == "t last line, no newline"
        assert len(wakes) <= 3, wakes


def test_a_warm_invoke_is_handed_over_and_answered_without_the_io_thread() -> None:
    """Once the runtime waits for work, its connection is lent to the invocations' threads: a
    warm invoke's GET /next and POST answer are read by the invocation's own thread, so the
    worker's I/O thread handles none of their requests (it handled two per invoke before)."""
    from cfn_debug.endpoint.server import EmbeddedEndpoint

    with EmbeddedEndpoint(BASIC) as endpoint:
        url = endpoint.url + invoke_path("Echo")
        httpx.post(url, json={"tag": "warm"}, timeout=30).raise_for_status()
        pool = endpoint.pool("Echo")
        assert pool is not None
        worker = pool._idle[0]
        deadline = time.monotonic() + 10
        while getattr(worker, "_lent", None) is None and time.monotonic() < deadline:
            time.sleep(0.01)  # the first invocation's GET /next is the I/O thread's (it lends)
        on_io_thread: list[str] = []
        original = worker._transport.on_request

        def counted(connection: Connection, request: Request) -> None:
            if threading.current_thread().name.startswith("worker-io"):
                on_io_thread.append(f"{request.method} {request.path}")
            original(connection, request)

        worker._transport.on_request = counted
        with httpx.Client(base_url=endpoint.url, timeout=30) as client:
            for tag in range(5):
                answer = client.post(invoke_path("Echo"), json={"tag": str(tag)})
                assert answer.json() == {"tag": str(tag)}
                rid = answer.headers["x-amzn-RequestId"]
                assert endpoint.logs_for(rid) == [f"echo {tag}"]
        assert pool._idle == [worker]  # the same warm worker answered them all
        assert on_io_thread == []
