"""A small asyncio HTTP/1.1 client for plain-HTTP local endpoints, on h11.

Why not httpx here: for a loopback POST of a few hundred bytes, httpx's async stack (httpcore,
anyio, its pool and its URL model) costs about 0.8 ms of the event loop's CPU per request, against
about 0.2 ms for h11 over an asyncio stream, and it writes the head and the body in two sends
(two wake-ups of an endpoint running in the same process). A 1,000-step chain pays that 1,000
times. h11 does the protocol (framing, Content-Length and chunked bodies, keep-alive state);
this module keeps idle connections, applies the timeouts and reads at most ``body_cap`` bytes.

Errors are raised as the classes below, named as httpx names them (the invoker reports the name).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import h11

READ_CHUNK = 262_144
#: Idle keep-alive connections kept per client.
MAX_IDLE = 20


class HTTPError(Exception):
    """The exchange failed."""


class ConnectError(HTTPError):
    """Nothing accepted the connection."""


class ConnectTimeout(ConnectError):
    """The connection was not accepted in time."""


class ReadTimeout(HTTPError):
    """No (further) answer within the read timeout."""


class WriteTimeout(HTTPError):
    """The request could not be sent within the write timeout."""


class RemoteProtocolError(HTTPError):
    """The endpoint broke the protocol or closed the connection mid-exchange."""


@dataclass
class Response:
    status_code: int
    headers: dict[str, str]  # lower-case names; a repeated header keeps its last value
    body: bytes  # at most body_cap bytes
    size: int  # every body byte received
    elapsed_s: float = 0.0


@dataclass
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    state: h11.Connection = field(default_factory=lambda: h11.Connection(h11.CLIENT))

    def usable(self) -> bool:
        return not (self.reader.at_eof() or self.writer.is_closing())

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


class AsyncHTTP1Client:
    """POSTs to one ``http://host:port`` base URL over kept-alive connections."""

    def __init__(
        self,
        base_url: str,
        *,
        connect_timeout_s: float,
        read_timeout_s: float,
        write_timeout_s: float,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"not a plain-HTTP URL: {base_url}")
        self.host = parts.hostname
        self.port = parts.port or 80
        self.host_header = parts.netloc
        self.prefix = parts.path.rstrip("/")
        self.connect_timeout_s = connect_timeout_s
        self.read_timeout_s = read_timeout_s
        self.write_timeout_s = write_timeout_s
        self._idle: list[_Connection] = []

    async def _connect(self) -> _Connection:
        while self._idle:
            connection = self._idle.pop()
            if connection.usable():
                return connection
            connection.close()
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(self.host, self.port, limit=READ_CHUNK),
                self.connect_timeout_s,
            )
        except asyncio.TimeoutError:
            raise ConnectTimeout(f"no connection to {self.host}:{self.port} in time") from None
        except OSError as error:
            raise ConnectError(str(error) or type(error).__name__) from None
        sock = writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return _Connection(reader, writer)

    async def post(
        self, path: str, body: bytes, headers: dict[str, str], *, body_cap: int
    ) -> Response:
        """Send one POST (head and body in one write) and read its answer."""
        connection = await self._connect()
        state = connection.state
        try:
            request = h11.Request(
                method="POST",
                target=self.prefix + path,
                headers=[
                    ("Host", self.host_header),
                    *headers.items(),
                    ("Content-Length", str(len(body))),
                ],
            )
            data = state.send(request) + state.send(h11.Data(data=body))
            data += state.send(h11.EndOfMessage())
            connection.writer.write(data)
            if connection.writer.transport.get_write_buffer_size():  # else nothing to wait for
                try:
                    await asyncio.wait_for(connection.writer.drain(), self.write_timeout_s)
                except asyncio.TimeoutError:
                    raise WriteTimeout("the request could not be sent in time") from None
            response = await self._read(connection, body_cap)
        except BaseException:
            connection.close()
            raise
        if state.our_state is h11.DONE and state.their_state is h11.DONE:
            try:
                state.start_next_cycle()
            except h11.LocalProtocolError:
                connection.close()
            else:
                if len(self._idle) < MAX_IDLE:
                    self._idle.append(connection)
                else:
                    connection.close()
        else:
            connection.close()
        return response

    async def _read(self, connection: _Connection, body_cap: int) -> Response:
        state = connection.state
        status = 0
        headers: dict[str, str] = {}
        chunks: list[bytes] = []
        kept = size = 0
        while True:
            try:
                event = state.next_event()
            except h11.RemoteProtocolError as error:
                raise RemoteProtocolError(str(error)) from None
            if event is h11.NEED_DATA:
                state.receive_data(await self._receive(connection))  # b"": end of stream
                continue
            if isinstance(event, h11.InformationalResponse):
                continue
            if isinstance(event, h11.Response):
                status = event.status_code
                headers = {
                    name.decode("latin-1").lower(): value.decode("latin-1")
                    for name, value in event.headers
                }
            elif isinstance(event, h11.Data):
                size += len(event.data)
                if kept < body_cap:
                    piece = bytes(event.data[: body_cap - kept])
                    chunks.append(piece)
                    kept += len(piece)
            elif isinstance(event, h11.EndOfMessage):
                return Response(status, headers, b"".join(chunks), size)
            elif isinstance(event, h11.ConnectionClosed):
                raise RemoteProtocolError("the server closed the connection mid-answer")
            elif event is h11.PAUSED:
                raise RemoteProtocolError("unexpected pause in the answer")

    async def _receive(self, connection: _Connection) -> bytes:
        """One read, within the read timeout. A timer cancels the read when it expires (cheaper
        than asyncio.wait_for, which wraps every read in a task of its own)."""
        reader = connection.reader
        task = asyncio.current_task()
        expired = False

        def expire() -> None:
            nonlocal expired
            expired = True
            if task is not None:
                task.cancel()

        timer = asyncio.get_running_loop().call_later(self.read_timeout_s, expire)
        try:
            return await reader.read(READ_CHUNK)
        except asyncio.CancelledError:
            if expired:
                uncancel = getattr(task, "uncancel", None)  # Python 3.11+: undo our cancel
                if uncancel is not None:
                    uncancel()
                raise ReadTimeout("no answer in time") from None
            raise
        except OSError as error:
            raise RemoteProtocolError(str(error) or type(error).__name__) from None
        finally:
            timer.cancel()

    async def aclose(self) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()
            with contextlib.suppress(Exception):
                await connection.writer.wait_closed()
