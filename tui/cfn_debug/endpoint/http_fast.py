"""The endpoint's fast path for the plain requests every Lambda client sends, beside h11.

h11 (http_server.py) costs ~200 Python calls per exchange, about a tenth of a warm invoke of a
trivial handler. The clients that invoke functions (boto3, the AWS CLI, httpx, SAM's tooling) send
one shape of request: an HTTP/1.1 GET or POST with a Host, plain header lines and at most a
Content-Length body. ``parse_head`` takes exactly those, and only where h11 would read the same
method, target, headers and body; anything else (HTTP/1.0, chunked bodies, ``Expect``, a
``Connection`` other than keep-alive, ``Upgrade``, obsolete line folding, bare LF line ends,
obs-text, tabs in values, two Hosts or Content-Lengths, ...) it declines, and the connection is
handed to h11 from that request on. ``response_bytes`` writes the bytes h11 writes for the
endpoint's replies. Both are held equal to h11 by Hypothesis tests (test_http_fast.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import h11

_REQUEST_LINE = re.compile(rb"(GET|POST) ([\x21-\x7e]+) HTTP/1\.1")
_HEADER_LINE = re.compile(
    rb"([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ ]*((?:[\x21-\x7e]+(?:[ ]+[\x21-\x7e]+)*)?)[ ]*"
)
_METHODS = (b"GET ", b"POST ")
_DIGITS = re.compile(rb"[0-9]{1,18}")
#: Headers whose meaning h11 acts on beyond framing: such a request goes to h11.
_DECLINED_NAMES = frozenset({b"transfer-encoding", b"expect", b"upgrade"})
#: h11's end of a request head: a blank line, with or without CR.
_H11_BLANK_LINE = re.compile(rb"\n\r?\n")


class Declined(Exception):
    """Not a request the fast path takes: h11 reads it (and the rest of the connection)."""


@dataclass
class Head:
    """A request head the fast path took: what h11 would have given, and where the body is."""

    method: str
    target: str
    headers: list[tuple[str, str]]  # lower-case names, values stripped, as h11 gives them
    body_start: int  # offset of the body in the buffer
    content_length: int


def parse_head(buffer: bytes | bytearray, max_head: int) -> Head | None:
    """The head at the start of ``buffer``; None while it is incomplete; Declined when h11 must
    read it (``max_head``: h11's limit on an incomplete head)."""
    end = buffer.find(b"\r\n\r\n")
    blank = _H11_BLANK_LINE.search(buffer)
    if blank is not None and (end < 0 or blank.start() != end + 1):
        raise Declined  # h11 ends the head elsewhere (a bare LF)
    if end < 0:
        if len(buffer) > max_head:
            raise Declined
        if not (buffer.startswith(_METHODS) or any(m.startswith(buffer) for m in _METHODS)):
            raise Declined  # not a GET or POST (h11 refuses some at their first byte)
        return None
    if end + 4 > max_head:
        raise Declined
    lines = bytes(buffer[:end]).split(b"\r\n")
    first = _REQUEST_LINE.fullmatch(lines[0])
    if first is None:
        raise Declined
    headers: list[tuple[str, str]] = []
    hosts = lengths = 0
    length = 0
    for line in lines[1:]:
        match = _HEADER_LINE.fullmatch(line)
        if match is None:
            raise Declined
        name = match.group(1).lower()
        value = match.group(2)
        if name in _DECLINED_NAMES:
            raise Declined
        if name == b"connection" and value.lower() != b"keep-alive":
            raise Declined  # h11 acts on "close" (and an HTTP/1.1 keep-alive changes nothing)
        if name == b"host":
            hosts += 1
        elif name == b"content-length":
            lengths += 1
            if _DIGITS.fullmatch(value) is None:
                raise Declined
            length = int(value)
        headers.append((name.decode("ascii"), value.decode("ascii")))
    if hosts != 1 or lengths > 1:
        raise Declined
    return Head(
        first.group(1).decode("ascii"), first.group(2).decode("ascii"), headers, end + 4, length
    )


_NAME = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_VALUE = re.compile(rb"(?:[\x21-\x7e]+(?:[ ]+[\x21-\x7e]+)*)?")


def response_bytes(
    status: int, reason: bytes, headers: list[tuple[str, str]], body: bytes
) -> bytes:
    """What h11 writes for this response to a request the fast path took (HTTP/1.1, kept alive
    unless the headers say ``Connection: close``): status line, headers as given, body. A header
    outside the plain shape is left to h11 itself (which writes or refuses it)."""
    parts = [b"HTTP/1.1 %d %s\r\n" % (status, reason)]
    for name, value in headers:
        raw_name, raw_value = name.encode("latin-1"), value.encode("latin-1")
        if _NAME.fullmatch(raw_name) is None or _VALUE.fullmatch(raw_value) is None:
            return _h11_response_bytes(status, reason, headers, body)
        parts.append(b"%s: %s\r\n" % (raw_name, raw_value))
    parts.append(b"\r\n")
    parts.append(body)
    return b"".join(parts)


def _h11_response_bytes(
    status: int, reason: bytes, headers: list[tuple[str, str]], body: bytes
) -> bytes:
    """h11's bytes for this response to a plain HTTP/1.1 GET (its errors raised as they are)."""
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    conn.next_event()
    conn.next_event()
    data = conn.send(h11.Response(status_code=status, headers=headers, reason=reason)) or b""
    if body:
        data += conn.send(h11.Data(data=body)) or b""
    return data + (conn.send(h11.EndOfMessage()) or b"")
