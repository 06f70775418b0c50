"""A minimal Debug Adapter Protocol client (Content-Length framed JSON over a socket), to speak
to debugpy the way an IDE does, without an IDE."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from typing import Any


class DapClient:
    def __init__(self, port: int, *, timeout_s: float = 30.0) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout_s)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self._buffer = b""
        self._seq = 0
        self.seen: list[dict[str, Any]] = []

    def send(self, command: str, **arguments: Any) -> int:
        self._seq += 1
        body = json.dumps(
            {"seq": self._seq, "type": "request", "command": command, "arguments": arguments}
        ).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return self._seq

    def _read(self) -> dict[str, Any]:
        while b"\r\n\r\n" not in self._buffer:
            self._more()
        head, _, rest = self._buffer.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(rest) < length:
            self._buffer = head + b"\r\n\r\n" + rest
            self._more()
            head, _, rest = self._buffer.partition(b"\r\n\r\n")
        self._buffer = rest[length:]
        message = json.loads(rest[:length])
        self.seen.append(message)
        return message

    def _more(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("the debug adapter closed the connection")
        self._buffer += data

    def wait(self, kind: str, name: str, *, timeout_s: float = 60.0) -> dict[str, Any]:
        """The next event ``name`` (kind "event") or response to command ``name``."""
        self.sock.settimeout(timeout_s)
        for message in self.seen:
            if _is(message, kind, name):
                self.seen.remove(message)
                return message
        while True:
            message = self._read()
            if _is(message, kind, name):
                self.seen.remove(message)
                return message

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


def _is(message: dict[str, Any], kind: str, name: str) -> bool:
    if message.get("type") != kind:
        return False
    return message.get("event" if kind == "event" else "command") == name
