"""A local flood of slow clients never refuses a normal Invoke: the connection cap makes room by
dropping the longest-waiting connection that runs no invocation, and a client trickling its body
a byte at a time is dropped once the per-request deadline passes. Bounded: few clients, a cap of
8 and short deadlines (the endpoint's are 256 and tens of seconds); real sockets, the real
server."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from cfn_debug.endpoint.http_server import HttpServer, Reply, Request

pytestmark = pytest.mark.timeout(60)

CAP = 8


@pytest.fixture
def server() -> Iterator[HttpServer]:
    def handle(request: Request) -> Reply:
        return Reply(200, b'{"ok":true,"size":%d}' % len(request.body))

    http = HttpServer(
        ("127.0.0.1", 0),
        handle,
        max_body=1 << 20,
        too_large=lambda: Reply(413, b"{}"),
        header_timeout_s=2.0,
        request_timeout_s=1.5,
        max_connections=CAP,
    )
    thread = threading.Thread(target=http.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield http
    http.shutdown()
    thread.join(10)
    http.server_close()


def trickler(port: int, stop: threading.Event) -> socket.socket:
    """A client that sends a request head promising 1,000 bytes, then one byte every 0.3 s."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(
        b"POST /2015-03-31/functions/F/invocations HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Length: 1000\r\n\r\n"
    )

    def drip() -> None:
        while not stop.wait(0.3):
            try:
                sock.sendall(b"x")
            except OSError:
                return

    threading.Thread(target=drip, daemon=True).start()
    return sock


def closed_by_server(sock: socket.socket, within_s: float) -> bool:
    sock.settimeout(within_s)
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                return True
            if b"HTTP/1.1 200" in data:
                return False
    except (TimeoutError, ConnectionResetError):
        return False


def test_a_full_cap_of_trickling_clients_does_not_refuse_an_invoke(server: HttpServer) -> None:
    port = server.server_address[1]
    stop = threading.Event()
    slow = [trickler(port, stop) for _ in range(CAP)]
    try:
        time.sleep(0.3)  # all of them hold a connection now (no timing is asserted)
        for _ in range(3):
            answer = httpx.post(f"http://127.0.0.1:{port}/x", content=b"{}", timeout=10)
            assert answer.status_code == 200 and answer.json()["ok"]
    finally:
        stop.set()
        for sock in slow:
            sock.close()


def test_a_trickled_body_is_dropped_at_the_request_deadline(server: HttpServer) -> None:
    port = server.server_address[1]
    stop = threading.Event()
    sock = trickler(port, stop)
    try:
        # the drip never lets the 2 s stall limit pass; the 1.5 s request deadline ends it
        assert closed_by_server(sock, within_s=20)
    finally:
        stop.set()
        with contextlib.suppress(OSError):
            sock.close()
