"""The endpoint's HTTP/1.1 transport: h11 parses and frames, one thread serves each connection.

Why h11 driven by threads: h11 is a strict, well-kept HTTP/1.1 implementation (Content-Length and
chunked framing, keep-alive, pipelining, ``Expect: 100-continue``, malformed-request detection)
with no I/O of its own, so the endpoint keeps its simple model (an invocation blocks its
connection's thread while a worker runs it) with nothing hand-parsed. Measured against the
standard library server it replaced and against uvicorn, side by side: see bench/endpoint.py and
the README's figures.

The limits every request meets before its body is read (so a refused request costs nothing):
``screen`` (the Host and browser checks of guard.py, supplied by the caller), then the body limit
(``max_body``, checked on Content-Length and again while a chunked body streams in). A client that
stalls while sending a request's headers or body is dropped after ``header_timeout_s``, and one
that trickles its body (a byte now and then) once ``request_timeout_s`` has passed since its head;
an idle keep-alive connection after ``idle_timeout_s``. Each connection has its own thread, so a
stalled client never holds up another's invocation. At ``max_connections``, a new client is let
in by dropping the connection that has waited longest for (or on) a request: an idle keep-alive
one or the slowest sender, never one whose invocation runs; only when every connection is running
an invocation is the new one closed. So a local flood of slow clients never refuses a normal
Invoke.
"""

from __future__ import annotations

import contextlib
import functools
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

import h11

from cfn_debug.endpoint.http_fast import Declined, parse_head, response_bytes

#: The largest request head (request line + headers) accepted.
MAX_HEAD_BYTES = 64 * 1024
READ_SIZE = 65_536
#: Connections served at once; beyond that the longest-waiting connection not running an
#: invocation is dropped for the new one (see the module docstring).
MAX_CONNECTIONS = 256
#: How far a socket's read timeout may exceed the time left before it is set again.
TIMEOUT_SLACK_S = 0.25


@dataclass
class Request:
    """One request: its method, target, headers (lower-case names) and body."""

    method: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes = b""

    def header(self, name: str, default: str | None = None) -> str | None:
        """The last value of header ``name`` (lower-case), else ``default``."""
        for key, value in reversed(self.headers):
            if key == name:
                return value
        return default


@dataclass
class Reply:
    """A JSON reply: status, body and extra headers; ``close`` ends the connection after it."""

    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    close: bool = False
    head_only: bool = False  # the answer to a HEAD request: headers, no body
    #: Work that needs the reply's facts but not before it is sent (the endpoint's log lines):
    #: run by the connection's thread once the reply is written, or could not be.
    after: Callable[[], None] | None = None


Handler = Callable[[Request], Reply]
Screen = Callable[[Request], "Reply | None"]


@functools.cache
def _reason(status: int) -> bytes:
    return HTTPStatus(status).phrase.encode()


class _FastState:
    """A connection's bytes received and not yet taken by the fast path, and whether it ended."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.eof = False


class _Dropped(Exception):
    """The client went away, stalled past its limit, or must not be read any further."""


def _run_after(reply: Reply) -> None:
    """The reply's ``after`` work; its failure (a closed stdout) is not the client's."""
    if reply.after is not None:
        with contextlib.suppress(Exception):
            reply.after()


class HttpServer:
    """A threaded HTTP/1.1 server on one listening socket (loopback unless told otherwise)."""

    def __init__(
        self,
        address: tuple[str, int],
        handle: Handler,
        *,
        screen: Screen | None = None,
        max_body: int,
        too_large: Callable[[], Reply],
        header_timeout_s: float = 10.0,
        idle_timeout_s: float = 120.0,
        request_timeout_s: float = 60.0,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        self.handle = handle
        self.screen = screen
        self.max_body = max_body
        self.too_large = too_large
        self.header_timeout_s = header_timeout_s
        self.idle_timeout_s = idle_timeout_s
        self.request_timeout_s = request_timeout_s
        self.max_connections = max_connections
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        try:
            # No SO_REUSEADDR: a second `serve` on the same port must fail, not share it.
            self.socket.bind(address)
            self.socket.listen(64)
        except OSError:
            self.socket.close()
            raise
        self.server_address: tuple[str, int] = self.socket.getsockname()[:2]
        #: shutdown() writes to one end: the accept loop's select wakes at once, not at its poll
        self._wake_read, self._wake_write = socket.socketpair()
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        #: each open connection -> [running an invocation?, since when it waits for a request]
        self._connections: dict[socket.socket, list[Any]] = {}
        self._lock = threading.Lock()

    # --- lifecycle ---

    def serve_forever(self, poll_interval: float = 0.2) -> None:
        try:
            while not self._stopping.is_set():
                ready, _, _ = select.select([self.socket, self._wake_read], [], [], poll_interval)
                if self.socket not in ready:
                    continue
                try:
                    conn, _ = self.socket.accept()
                except OSError:
                    continue
                with self._lock:
                    if len(self._connections) >= self.max_connections and not self._make_room():
                        conn.close()
                        continue
                    self._connections[conn] = [False, time.monotonic()]
                threading.Thread(
                    target=self._serve_connection, args=(conn,), name="endpoint-conn", daemon=True
                ).start()
        finally:
            self._stopped.set()

    def _make_room(self) -> bool:
        """At the cap (under the lock): drop the connection waiting longest for or on a request,
        never one running an invocation; False when every connection runs one."""
        waiting = [(state[1], sock) for sock, state in self._connections.items() if not state[0]]
        if not waiting:
            return False
        _since, victim = min(waiting, key=lambda item: item[0])
        del self._connections[victim]  # its thread ends on the shut-down socket
        with contextlib.suppress(OSError):
            victim.shutdown(socket.SHUT_RDWR)
        return True

    def _state(self, sock: socket.socket, busy: bool) -> None:
        """Whether ``sock`` runs an invocation now; when not, since now it waits for a request."""
        state = self._connections.get(sock)
        if state is not None:
            state[0], state[1] = busy, time.monotonic()

    def shutdown(self) -> None:
        """Stop accepting, and close every open connection (their threads end with them)."""
        self._stopping.set()
        with contextlib.suppress(OSError):
            self._wake_write.send(b"\0")
        self._stopped.wait(5)
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def server_close(self) -> None:
        self.socket.close()
        self._wake_read.close()
        self._wake_write.close()

    # --- one connection ---

    def _serve_connection(self, sock: socket.socket) -> None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES)
        # The plain requests clients send are read by the fast path (http_fast.py) until one it
        # declines; from there on h11 reads the connection, starting with what was received.
        fast: _FastState | None = _FastState()
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            # The first request of a new connection comes at once; later ones may idle first.
            first_wait = self.header_timeout_s
            while not self._stopping.is_set():
                self._state(sock, False)
                if fast is not None:
                    try:
                        reply = self._fast_exchange(sock, fast, first_wait)
                    except Declined:
                        conn.receive_data(bytes(fast.buffer))
                        if fast.eof:
                            conn.receive_data(b"")
                        fast = None
                    else:
                        if reply is None:
                            return
                        try:
                            self._send_fast(sock, reply)
                        finally:
                            _run_after(reply)
                        if reply.close:
                            return
                        first_wait = self.idle_timeout_s
                        continue
                reply = self._one_exchange(conn, sock, first_wait)
                if reply is None:
                    return
                try:
                    self._send(conn, sock, reply)
                finally:
                    _run_after(reply)
                if (
                    reply.close
                    or conn.our_state is not h11.DONE
                    or conn.their_state is not h11.DONE
                ):
                    return
                conn.start_next_cycle()
                first_wait = self.idle_timeout_s
        except h11.RemoteProtocolError as error:
            self._refuse_malformed(conn, sock, error)
        except (_Dropped, OSError, h11.LocalProtocolError):
            pass
        except Exception:  # a bug of ours: this connection ends, the endpoint goes on serving
            with contextlib.suppress(Exception):
                if conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                    body = b'{"Type":"Service","Message":"ServiceException"}'
                    self._send(conn, sock, Reply(500, body, {}, close=True))
        finally:
            with self._lock:
                self._connections.pop(sock, None)
            with contextlib.suppress(OSError):
                sock.close()

    def _fast_exchange(
        self, sock: socket.socket, state: _FastState, first_wait: float
    ) -> Reply | None:
        """One exchange by the fast path: the request read, screened and handled, its reply not
        yet sent; None when the client closed between requests. Raises Declined (nothing sent,
        ``state`` holding all that was received) when h11 must read the request."""
        deadline = time.monotonic() + first_wait
        begun = bool(state.buffer)  # a pipelined request already began
        while True:
            head = parse_head(state.buffer, MAX_HEAD_BYTES)
            if head is not None:
                break
            data = self._recv_by(sock, deadline)
            if not data:
                if not state.buffer:
                    return None
                state.eof = True
                raise Declined
            if not begun:
                begun = True
                deadline = time.monotonic() + self.header_timeout_s
            state.buffer += data
        request = Request(head.method, head.target, head.headers)
        if self.screen is not None:
            refusal = self.screen(request)
            if refusal is not None:
                refusal.close = True  # its body, if any, is never read
                return refusal
        if head.content_length > self.max_body:
            reply = self.too_large()
            reply.close = True
            return reply
        end = head.body_start + head.content_length
        until = time.monotonic() + self.request_timeout_s  # a trickled body ends by then
        while len(state.buffer) < end:
            data = self._recv_by(sock, min(time.monotonic() + self.header_timeout_s, until))
            if not data:
                state.eof = True
                raise Declined  # h11 answers a body cut short
            state.buffer += data
        request.body = bytes(state.buffer[head.body_start : end])
        del state.buffer[:end]
        self._state(sock, True)
        return self.handle(request)

    def _recv_by(self, sock: socket.socket, deadline: float) -> bytes:
        """What arrives on ``sock`` before ``deadline`` (b"" when the client closed)."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Dropped
            current = sock.gettimeout()  # as _next_event: set only when the deadline needs it
            if current is None or current > left + TIMEOUT_SLACK_S:
                sock.settimeout(left)
            try:
                return sock.recv(READ_SIZE)
            except TimeoutError:
                continue

    def _send_fast(self, sock: socket.socket, reply: Reply) -> None:
        """``_send``'s bytes (h11's, see http_fast.response_bytes) for a fast-path request."""
        headers = [("Content-Type", "application/json"), *reply.headers.items()]
        headers.append(("Content-Length", str(len(reply.body))))
        if reply.close:
            headers.append(("Connection", "close"))
        data = response_bytes(reply.status, _reason(reply.status), headers, reply.body)
        if sock.gettimeout() is None:
            sock.settimeout(self.header_timeout_s)
        sock.sendall(data)

    def _one_exchange(
        self, conn: h11.Connection, sock: socket.socket, first_wait: float
    ) -> Reply | None:
        head = self._next_event(conn, sock, first_wait, restart_on_data=True)
        if isinstance(head, h11.ConnectionClosed):
            return None
        if not isinstance(head, h11.Request):
            raise _Dropped
        reply = self._answer(conn, sock, head)
        reply.head_only = head.method == b"HEAD"
        return reply

    def _answer(self, conn: h11.Connection, sock: socket.socket, head: h11.Request) -> Reply:
        request = Request(
            head.method.decode("ascii", "replace"),
            head.target.decode("latin-1"),
            [(k.decode("latin-1"), v.decode("latin-1")) for k, v in head.headers],
        )
        if self.screen is not None:
            refusal = self.screen(request)
            if refusal is not None:
                refusal.close = True  # its body, if any, is never read
                return refusal
        declared = request.header("content-length")
        if declared is not None and int(declared) > self.max_body:
            reply = self.too_large()
            reply.close = True
            return reply
        if conn.client_is_waiting_for_100_continue:
            sock.sendall(conn.send(h11.InformationalResponse(status_code=100, headers=[])))
        chunks: list[bytes] = []
        size = 0
        until = time.monotonic() + self.request_timeout_s  # a trickled body ends by then
        while True:
            event = self._next_event(conn, sock, self.header_timeout_s, until=until)
            if isinstance(event, h11.Data):
                size += len(event.data)
                if size > self.max_body:
                    reply = self.too_large()
                    reply.close = True
                    return reply
                chunks.append(event.data)
            elif isinstance(event, h11.EndOfMessage):
                break
            else:  # the client closed mid-body
                raise _Dropped
        request.body = b"".join(chunks)
        self._state(sock, True)
        return self.handle(request)

    def _next_event(
        self,
        conn: h11.Connection,
        sock: socket.socket,
        wait_s: float,
        *,
        restart_on_data: bool = False,
        until: float | None = None,
    ) -> h11.Event | type[h11.PAUSED]:
        """The next h11 event, reading from ``sock`` as needed; a stall past the limit drops it.

        ``wait_s`` bounds the wait for the first bytes; once some arrived (``restart_on_data``:
        an idle keep-alive connection whose next request began), the rest of the request head
        must follow within ``header_timeout_s``. ``until``: a deadline no wait goes past.
        """
        deadline = time.monotonic() + wait_s
        if until is not None:
            deadline = min(deadline, until)
        while True:
            event = conn.next_event()
            if event is not h11.NEED_DATA:
                return event
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Dropped
            # Changing a socket's timeout is a system call: only shorten it when the deadline
            # needs it; a read that times out before the deadline just reads again.
            current = sock.gettimeout()
            if current is None or current > left + TIMEOUT_SLACK_S:
                sock.settimeout(left)
            try:
                data = sock.recv(READ_SIZE)
            except TimeoutError:
                continue
            if restart_on_data and data:
                restart_on_data = False
                deadline = time.monotonic() + self.header_timeout_s
            conn.receive_data(data)

    def _send(self, conn: h11.Connection, sock: socket.socket, reply: Reply) -> None:
        """Status line, headers and body in one write: no delayed-ACK stall on keep-alive."""
        headers = [("Content-Type", "application/json"), *reply.headers.items()]
        headers.append(("Content-Length", str(len(reply.body))))
        if reply.close:
            headers.append(("Connection", "close"))
        data = conn.send(
            h11.Response(status_code=reply.status, headers=headers, reason=_reason(reply.status))
        )
        assert data is not None
        if reply.body and not reply.head_only:  # a HEAD request's answer has no body
            data += conn.send(h11.Data(data=reply.body)) or b""
        data += conn.send(h11.EndOfMessage()) or b""
        if sock.gettimeout() is None:
            sock.settimeout(self.header_timeout_s)
        sock.sendall(data)  # a client that does not read its answer is dropped at the timeout

    def _refuse_malformed(
        self, conn: h11.Connection, sock: socket.socket, error: h11.RemoteProtocolError
    ) -> None:
        """A request h11 could not parse: a 400 (or its status hint) where HTTP allows one."""
        if conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            return
        status = error.error_status_hint if 400 <= error.error_status_hint < 600 else 400
        body = (
            b'{"Type":"User","Message":"Bad request: '
            + str(error).encode("ascii", "replace").replace(b'"', b"'").replace(b"\\", b"/")
            + b'"}'
        )
        with contextlib.suppress(OSError, h11.LocalProtocolError):
            self._send(
                conn,
                sock,
                Reply(status, body, {"x-amzn-errortype": "InvalidRequestContent"}, close=True),
            )
