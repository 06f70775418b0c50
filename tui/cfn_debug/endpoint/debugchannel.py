"""The endpoint's side of pdb in a worker: a Unix socket the workers' ChannelPdb connects to.

The socket lives in a private directory (mode 0700) made for this endpoint and removed when it
stops; a connection is accepted only from a process of this user that descends from this
process (SO_PEERCRED, then /proc): a worker, never anything else on the machine. Each connection
is one worker's pdb (debughook.Channel): its messages become ``DebugEvent``s handed to the
front-end (the terminal of ``cfn-debug run``, the dashboard's Debugger panel) through the
``on_session`` callback; the front-end answers with ``DebugSession.send_line``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import struct
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass

from cfn_debug.endpoint import proctree
from cfn_debug.endpoint.debughook import PDB_ENV

SOCKET_NAME = "pdb.sock"
MAX_LINE = 1 << 20


@dataclass(frozen=True)
class DebugEvent:
    """One message from a worker's pdb.

    kind: ``output`` (text), ``stop`` (file, line, function: where it stopped), ``input`` (it
    waits for a command; file, line, function: the frame it looks at now), ``go`` (it runs
    again), ``quit`` (the user ended the invocation), ``closed`` (the worker is gone)."""

    kind: str
    text: str = ""
    file: str | None = None
    line: int | None = None
    function: str | None = None


Listener = Callable[["DebugSession", DebugEvent], None]


class DebugSession:
    """One worker's pdb, as cfn-debug sees it."""

    def __init__(self, sock: socket.socket, pid: int) -> None:
        self.pid = pid
        self._sock = sock
        self._lock = threading.Lock()
        self.listener: Listener | None = None
        self.waiting = False  # pdb waits for a command now
        self.closed = threading.Event()

    def send_line(self, text: str) -> None:
        """Give pdb its next command (one line)."""
        data = json.dumps({"op": "line", "text": text.rstrip("\n")}).encode() + b"\n"
        with self._lock:
            self.waiting = False
            with contextlib.suppress(OSError):
                self._sock.sendall(data)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._sock.close()

    def _emit(self, event: DebugEvent) -> None:
        if event.kind == "input":
            self.waiting = True
        elif event.kind in ("go", "quit", "closed"):
            self.waiting = False
        listener = self.listener
        if listener is not None:
            listener(self, event)

    def _read(self) -> None:
        reader = self._sock.makefile("rb")
        try:
            while True:
                raw = reader.readline(MAX_LINE)
                if not raw:
                    break
                event = _event(raw)
                if event is not None:
                    self._emit(event)
        except (OSError, ValueError):
            pass
        finally:
            self.closed.set()
            self._emit(DebugEvent("closed"))
            self.close()


def _event(raw: bytes) -> DebugEvent | None:
    try:
        message = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(message, dict):
        return None
    op = message.get("op")
    text = message.get("text")
    file = message.get("file")
    line = message.get("line")
    function = message.get("function")
    kind = {"out": "output"}.get(str(op), str(op))
    if kind not in ("output", "stop", "input", "go", "quit"):
        return None
    return DebugEvent(
        kind,
        text if isinstance(text, str) else "",
        file if isinstance(file, str) else None,
        line if isinstance(line, int) and not isinstance(line, bool) else None,
        function if isinstance(function, str) else None,
    )


def peer_pid(sock: socket.socket) -> tuple[int, int] | None:
    """(pid, uid) of the process at the other end of a Unix socket (Linux), None elsewhere."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        data = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    except OSError:
        return None
    pid, uid, _gid = struct.unpack("3i", data)
    return pid, uid


def descends_from(pid: int, ancestor: int) -> bool:
    """Whether ``pid`` is ``ancestor`` or one of its descendants (by /proc's parent pids)."""
    procs = proctree.table()
    seen: set[int] = set()
    while pid > 1 and pid not in seen:
        if pid == ancestor:
            return True
        seen.add(pid)
        info = procs.get(pid)
        if info is None:
            return False
        pid = info[0]
    return pid == ancestor


class DebugChannel:
    """The listener workers' pdb connects to; ``on_session`` gets each new session (on the
    channel's thread) before any of its events, to set its listener."""

    def __init__(self, on_session: Callable[[DebugSession], None]) -> None:
        self.on_session = on_session
        self._dir: str | None = None
        self._server: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self.sessions: list[DebugSession] = []
        self._lock = threading.Lock()

    @property
    def path(self) -> str:
        assert self._dir is not None, "start() first"
        return os.path.join(self._dir, SOCKET_NAME)

    def env(self) -> dict[str, str]:
        """The variable that gives a worker this channel (see debughook)."""
        return {PDB_ENV: self.path}

    def start(self) -> None:
        if self._server is not None:
            return
        self._dir = tempfile.mkdtemp(prefix="cfn-debug-pdb-")  # mode 0700
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(self.path)
        os.chmod(self.path, 0o600)
        server.listen(16)
        self._server = server
        self._thread = threading.Thread(target=self._accept, name="cfn-debug-pdb", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        server = self._server
        while server is not None:
            try:
                sock, _addr = server.accept()
            except OSError:
                return
            peer = peer_pid(sock)
            if peer is not None and (
                peer[1] != os.getuid() or not descends_from(peer[0], os.getpid())
            ):
                with contextlib.suppress(OSError):
                    sock.close()
                continue
            session = DebugSession(sock, peer[0] if peer else 0)
            with self._lock:
                self.sessions = [s for s in self.sessions if not s.closed.is_set()]
                self.sessions.append(session)
            try:
                self.on_session(session)
            except Exception:
                session.close()
                continue
            threading.Thread(
                target=session._read, name=f"cfn-debug-pdb-{session.pid}", daemon=True
            ).start()

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            with contextlib.suppress(OSError):
                server.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                server.close()
        with self._lock:
            sessions, self.sessions = self.sessions, []
        for session in sessions:
            session.close()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
