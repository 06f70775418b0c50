"""debugpy_screen.speaks_dap: what a browser sends never passes, what an IDE sends always does."""

from __future__ import annotations

import socket
import threading

from cfn_debug.endpoint.debugpy_screen import speaks_dap


def _peeked(first: bytes, rest: bytes = b"", wait_s: float = 2.0) -> tuple[bool, bytes]:
    """speaks_dap on a socket that received ``first`` (then ``rest`` a moment later), and what
    the socket still holds to read afterwards (nothing is consumed)."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(first)
        if rest:
            threading.Timer(0.05, theirs.sendall, (rest,)).start()
        verdict = speaks_dap(ours, wait_s)
        ours.settimeout(1)
        return verdict, ours.recv(100) if first or rest else b""


def test_an_ide_header_passes_and_stays_unread() -> None:
    verdict, left = _peeked(b"Content-Length: 2\r\n\r\n{}")
    assert verdict and left.startswith(b"Content-Length: 2")


def test_a_header_arriving_in_pieces_passes() -> None:
    assert _peeked(b"Content-", b"Length: 2\r\n\r\n{}")[0]


def test_what_a_browser_sends_is_refused() -> None:
    for request in (b"POST / HTTP/1.1\r\n", b"GET / HTTP/1.1\r\n", b"OPTIONS * HTTP/1.1\r\n"):
        assert not _peeked(request)[0], request
    assert not _peeked(b"content-length: 2\r\n\r\n{}")[0]  # debugpy reads only this spelling


def test_silence_is_refused_at_the_deadline() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        assert not speaks_dap(ours, 0.1)
