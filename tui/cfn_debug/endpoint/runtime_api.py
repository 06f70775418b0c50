"""The transport of one worker's Runtime API: its loopback listener, the worker's keep-alive
connections and the worker's output pipe, all served by ONE thread that polls them, except the
connection the runtime waits for work on once it is lent (``lend``/``pump``): the invocations'
own threads read that one.

Why not http.server: it takes a thread per connection plus, for the pipe, a reader thread of its
own, and parses every request's headers with the email package. On the warm path that is three
Python threads handing the GIL to each other per invocation, which is most of what an invoke of a
trivial handler costs. The Runtime API is a private channel between the endpoint and a worker it
started (the runtime clients send a request line, a few headers and a Content-Length body, or a
chunked one with trailers as aws-lambda-go does, one request at a time per connection), so the
small reader below suffices; anything else it is sent (another transfer coding, an oversized head,
a malformed line) is answered 400 and the connection closed.

Who may talk to it: only the worker's own runtime. A new connection is accepted only when its
peer is the worker process or one of its descendants (``admit``: see peer.py, one look at /proc
per connection, none per request), and every request meets the endpoint's Host, Origin and
Sec-Fetch screen (guard.py) before the worker sees it: a browser's request is answered 403 and
its connection closed.

The worker's logic (which route means what, who gets the invocation) stays in worker.py, which
passes ``on_request`` and ``on_output``; a reply may be written from any thread
(``Connection.reply``), which is how the endpoint's thread hands an invocation to a GET /next that
is already waiting without a thread switch.

While an invocation runs, the output pipe need not wake this thread at every line the handler
writes (``output_interest(False)``, from any thread, where epoll is available): each wake-up is a
thread of the endpoint's process made runnable in the middle of the handler, and on a busy machine
the handler then waits for the CPU. Its lines are read when its answer comes (the sentinel is
written before it), when the pipe ends, or by the endpoint's thread while it waits (worker.py).
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from cfn_debug.endpoint.guard import browser_header, host_allowed

MAX_HEAD = 64 * 1024
MAX_BODY = 64 * 1024 * 1024
#: Below glibc malloc's mmap threshold (128 KiB): a larger read buffer is mmap'd and unmapped at
#: every read, and unmapping in a threaded process interrupts every CPU it runs on.
RECV_CHUNK = 64 * 1024
#: After the output pipe ends, how long connections may still deliver a last request.
LINGER_S = 1.0


class BadRequest(Exception):
    """What the runtime client sent is not a request this API takes."""


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes


def response_bytes(status: int, body: bytes, headers: dict[str, str]) -> bytes:
    """A JSON response: status line, headers, Content-Length and body, for one write."""
    lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}", "Content-Type: application/json"]
    lines.extend(f"{key}: {value}" for key, value in headers.items())
    lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def parse_request(buffer: bytearray) -> Request | None:
    """Take one complete request off the front of ``buffer``; None while it is incomplete."""
    end = buffer.find(b"\r\n\r\n")
    if end < 0:
        if len(buffer) > MAX_HEAD:
            raise BadRequest("request head too large")
        return None
    if end > MAX_HEAD:
        raise BadRequest("request head too large")
    lines = bytes(buffer[:end]).decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequest("bad request line")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise BadRequest("bad header line")
        headers[name.lower()] = value.strip()
    encoding = headers.get("transfer-encoding", "identity").lower()
    if encoding == "chunked":
        return _chunked(buffer, end + 4, parts, headers)
    if encoding != "identity":
        raise BadRequest("only Content-Length and chunked bodies are taken")
    try:
        length = int(headers.get("content-length") or 0)
    except ValueError:
        raise BadRequest("bad Content-Length") from None
    if not 0 <= length <= MAX_BODY:
        raise BadRequest("bad Content-Length")
    total = end + 4 + length
    if len(buffer) < total:
        return None
    body = bytes(buffer[end + 4 : total])
    del buffer[:total]
    return Request(parts[0], parts[1], headers, body)


def _chunked(
    buffer: bytearray, start: int, parts: list[str], headers: dict[str, str]
) -> Request | None:
    """A chunked body (aws-lambda-go sends its answers so, announcing trailers): the chunks
    joined, the trailers' fields added to the headers; None while it is incomplete."""
    body = bytearray()
    at = start
    while True:
        line_end = buffer.find(b"\r\n", at)
        if line_end < 0:
            if len(buffer) - at > MAX_HEAD:
                raise BadRequest("bad chunk size line")
            return None
        size_text = bytes(buffer[at:line_end]).split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise BadRequest("bad chunk size") from None
        if size < 0 or len(body) + size > MAX_BODY:
            raise BadRequest("bad chunk size")
        at = line_end + 2
        if size == 0:
            break
        if len(buffer) < at + size + 2:
            return None
        if buffer[at + size : at + size + 2] != b"\r\n":
            raise BadRequest("bad chunk")
        body += buffer[at : at + size]
        at += size + 2
    # The trailer: header lines, then an empty line.
    while True:
        line_end = buffer.find(b"\r\n", at)
        if line_end < 0:
            if len(buffer) - at > MAX_HEAD:
                raise BadRequest("trailer too large")
            return None
        line = bytes(buffer[at:line_end]).decode("latin-1")
        at = line_end + 2
        if not line:
            break
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise BadRequest("bad trailer line")
        if value.strip():
            headers[name.lower()] = value.strip()
    del buffer[:at]
    return Request(parts[0], parts[1], headers, bytes(body))


def screen(request: Request) -> str | None:
    """Why a request must not reach the worker (a browser header, a Host not naming loopback:
    see guard.py), None when it may."""
    header = browser_header(list(request.headers.items()))
    if header is not None:
        return f"{header} refused: no web page may call the Runtime API"
    if not host_allowed(request.headers.get("host"), "127.0.0.1"):
        return "Host refused: not a loopback name"
    return None


class Connection:
    """One connection from the worker's runtime client."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = bytearray()
        self._lock = threading.Lock()
        self.closed = False
        #: Handed over by serve() (see Transport.lend): read by whoever holds it, never by serve.
        self.lent = False
        self._poller: select.poll | None = None

    def reply(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        """Write one response (from any thread); a connection the worker dropped is ignored."""
        data = response_bytes(status, body, headers or {})
        with self._lock, contextlib.suppress(OSError):
            self.sock.sendall(data)

    def open(self) -> bool:
        """Whether the peer still holds the connection (one non-blocking peek, no read)."""
        try:
            return bool(self.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT))
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            return False

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(OSError):
            self.sock.close()


class _Poller:
    """epoll where there is one (its interest may change from another thread while it waits),
    else poll; ``poll`` takes seconds (None: no limit)."""

    def __init__(self) -> None:
        self.epoll: Any = select.epoll() if hasattr(select, "epoll") else None
        self._poll = None if self.epoll is not None else select.poll()

    def register(self, fd: int, events: int) -> None:
        if self.epoll is not None:
            self.epoll.register(fd, events)  # POLLIN and EPOLLIN are the same bit
        else:
            assert self._poll is not None
            self._poll.register(fd, events)

    def unregister(self, fd: int) -> None:
        with contextlib.suppress(OSError, KeyError, ValueError):
            (self.epoll or self._poll).unregister(fd)

    def poll(self, timeout_s: float | None) -> list[tuple[int, int]]:
        if self.epoll is not None:
            return list(self.epoll.poll(-1 if timeout_s is None else timeout_s))
        assert self._poll is not None
        return self._poll.poll(None if timeout_s is None else timeout_s * 1000)

    def close(self) -> None:
        if self.epoll is not None:
            self.epoll.close()


class Transport:
    """The listener, the connections and the output pipe of one worker, served by ``serve``."""

    def __init__(
        self,
        on_request: Callable[[Connection, Request], None],
        on_output: Callable[[], bool],
        admit: Callable[[socket.socket], bool] | None = None,
    ) -> None:
        self.on_request = on_request
        self.on_output = on_output  # drain the pipe; False once it has ended
        self.admit = admit  # whether a new connection's peer may talk to this API
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(16)
        self.port = int(self._listener.getsockname()[1])
        self._wake_r, self._wake_w = os.pipe()
        self._epoll: Any = None  # serve()'s epoll object, while it serves (Linux)
        self._output_fd: int | None = None  # the output pipe, while it is registered there
        self._output_wanted = True  # whether data on the pipe wakes serve()
        self._stopped = False
        self._closed = False  # the wake pipe is closed: its numbers may belong to others now
        self._serving = False
        self._lock = threading.Lock()

    def output_interest(self, wanted: bool) -> None:
        """Whether data on the output pipe wakes ``serve`` (the pipe's end always does). From any
        thread; without epoll (not Linux) it always does."""
        with self._lock:
            if wanted == self._output_wanted:
                return
            self._output_wanted = wanted
            if self._epoll is not None and self._output_fd is not None and not self._closed:
                with contextlib.suppress(OSError, ValueError):
                    self._epoll.modify(self._output_fd, select.EPOLLIN if wanted else 0)

    def lend(self, connection: Connection) -> None:
        """Take ``connection`` out of serve()'s hands, from ``on_request`` on serve's thread: from
        now on its holder reads it (``pump``) and closes it. The worker lends its connection once
        it waits for work, so that an invocation's thread hands the invocation over and reads the
        answer itself: no wake-up of serve's thread between a client's request and its answer."""
        connection.lent = True

    def pump(self, connection: Connection, timeout_s: float) -> bool:
        """On the holder's thread: wait up to ``timeout_s`` for what the lent ``connection``
        sends, and handle every complete request; False when it is to be closed."""
        if connection.closed:
            return False
        if connection._poller is None:
            connection._poller = select.poll()
            connection._poller.register(connection.sock.fileno(), select.POLLIN)
        try:
            ready = connection._poller.poll(timeout_s * 1000)
        except (OSError, ValueError):
            return False
        return not ready or self._receive(connection, lending=False)

    def stop(self) -> None:
        """End ``serve`` now (the worker is being stopped); safe to call more than once, and
        after ``serve`` has ended (its descriptors are then never touched again)."""
        with self._lock:
            if self._stopped or self._closed:
                self._stopped = True
                return
            self._stopped = True
            if not self._serving:  # never served: nobody else will close them
                self._closed = True
                for fd in (self._wake_r, self._wake_w):
                    with contextlib.suppress(OSError):
                        os.close(fd)
                self._listener.close()
                return
            with contextlib.suppress(OSError):
                os.write(self._wake_w, b"x")

    def serve(self, output_fd: int) -> None:
        """Serve until the output pipe has ended (and the connections are done) or ``stop``."""
        poller = _Poller()
        with self._lock:
            if self._closed:
                poller.close()
                return
            self._serving = True
            self._epoll = poller.epoll
            self._output_fd = output_fd
            poller.register(output_fd, select.POLLIN if self._output_wanted else 0)
        listener = self._listener.fileno()
        poller.register(listener, select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        connections: dict[int, Connection] = {}
        linger: float | None = None
        try:
            while not self._stopped:
                ready = poller.poll(linger)
                if not ready and linger is not None:
                    return
                for fd, _events in ready:
                    if fd == self._wake_r:
                        return
                    if fd == output_fd:
                        if not self.on_output():
                            with self._lock:
                                self._output_fd = None
                                poller.unregister(output_fd)
                            if not connections:
                                return
                            linger = LINGER_S
                    elif fd == listener:
                        self._accept(poller, connections)
                    else:
                        connection = connections.get(fd)
                        if connection is None:
                            continue
                        if not self._receive(connection):
                            poller.unregister(fd)
                            connections.pop(fd, None)
                            connection.close()
                        elif connection.lent:
                            poller.unregister(fd)  # its holder reads and closes it now
                            connections.pop(fd, None)
                        if linger is not None and not connections:
                            return
        finally:
            for connection in connections.values():
                connection.close()
            with self._lock:
                self._closed = True
                self._epoll = self._output_fd = None
                poller.close()
                for fd in (self._wake_r, self._wake_w):
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._listener.close()

    def _accept(self, poller: _Poller, connections: dict[int, Connection]) -> None:
        try:
            sock, _ = self._listener.accept()
        except OSError:
            return
        if self.admit is not None and not self.admit(sock):
            with contextlib.suppress(OSError):
                sock.close()
            return
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connection = Connection(sock)
        connections[sock.fileno()] = connection
        poller.register(sock.fileno(), select.POLLIN)

    def _receive(self, connection: Connection, *, lending: bool = True) -> bool:
        """Read what arrived and handle every complete request; False when it is to be closed.
        On serve's thread (``lending``) it stops at a request that lent the connection."""
        try:
            data = connection.sock.recv(RECV_CHUNK)
        except OSError:
            return False
        if not data:
            return False
        connection.buffer += data
        while True:
            try:
                request = parse_request(connection.buffer)
            except BadRequest as error:
                message = f'{{"errorMessage":"{error}","errorType":"BadRequest"}}'
                connection.reply(400, message.encode(), {"Connection": "close"})
                return False
            if request is None:
                return True
            refused = screen(request)
            if refused is not None:
                message = f'{{"errorMessage":"{refused}","errorType":"Forbidden"}}'
                connection.reply(403, message.encode(), {"Connection": "close"})
                return False
            self.on_request(connection, request)
            if lending and connection.lent:
                return True
