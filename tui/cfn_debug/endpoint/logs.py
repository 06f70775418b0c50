"""Bounded capture of one invocation's log lines, and the store of recent invocations' logs."""

from __future__ import annotations

import codecs
import threading
from collections import OrderedDict, deque

from cfn_debug.redact import redact_lines
from cfn_debug.redact_stream import StreamRedactor

#: What one invocation keeps from its start: a handler printing 100 MB must not fill memory.
HEAD_LINES = 5_000
HEAD_BYTES = 1_000_000
#: What it keeps from its end once the head is full (the lines nearest the failure matter most).
TAIL_LINES = 200
#: How many invocations' logs the endpoint remembers for logs_for().
KEEP_INVOCATIONS = 1_000


class LogBuffer:
    """The lines of one invocation: the first HEAD_LINES/HEAD_BYTES, a marker, the last lines.

    Credentials are removed from what ``lines()`` returns: by pattern, and by value for the
    ``secrets`` of the request (redact.credential_values). A line longer than one read of the
    worker's output arrives in pieces; those go through a StreamRedactor, so a credential split
    between two reads is still found (complete lines are redacted whole, when read back).
    """

    __slots__ = (
        "_decoder",
        "_full",
        "_head",
        "_head_bytes",
        "_partial",
        "_stream",
        "_tail",
        "dropped_bytes",
        "dropped_lines",
        "secrets",
    )

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        self.secrets = secrets
        self._stream = StreamRedactor(secrets)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial = False  # a line (or a character) is still being read
        self._head: list[str] = []
        self._head_bytes = 0
        self._tail: deque[str] = deque(maxlen=TAIL_LINES)
        self._full = False
        self.dropped_lines = 0
        self.dropped_bytes = 0

    def add(self, line: str) -> None:
        if (
            not self._full
            and len(self._head) < HEAD_LINES
            and self._head_bytes + len(line) <= HEAD_BYTES
        ):
            self._head.append(line)
            self._head_bytes += len(line)
            return
        self._full = True
        if len(self._tail) == self._tail.maxlen:
            self.dropped_lines += 1
            self.dropped_bytes += len(self._tail[0])
        self._tail.append(line)

    def add_raw(self, chunk: bytes) -> None:
        """A chunk read from the worker's pipe: lines, or a piece of a line (any boundary)."""
        if not self._partial and chunk[-1:] == b"\n":
            # The common case, one whole line after whole lines: nothing to join it to.
            text = chunk.decode("utf-8", errors="replace")
            if text.find("\n") == len(text) - 1:
                self._add_line(text[:-1])
                return
        text = self._decoder.decode(chunk)
        *complete, rest = text.split("\n")
        for line in complete:
            if self._stream.pending:
                line = self._stream.feed(line) + self._stream.flush()
            self._add_line(line)
        if rest:
            released = self._stream.feed(rest)
            if released:
                self._add_line(released)
        self._partial = bool(self._stream.pending or self._decoder.getstate()[0])

    def _add_line(self, text: str) -> None:
        # awslambdaric writes a multi-line error record as one line joined with "\r".
        if "\r" not in text:
            self.add(text)
            return
        for line in text.split("\r"):
            self.add(line)

    def lines(self) -> list[str]:
        """The kept lines, credentials redacted (a line still being written included)."""
        lines = [*self._head, *self._tail]
        rest = self._stream.peek()
        if rest:
            lines.extend(rest.split("\r"))
        if self.dropped_lines:
            marker = (
                f"[... truncated: {self.dropped_lines} lines ({self.dropped_bytes} bytes) "
                "not kept ...]"
            )
            lines.insert(len(self._head), marker)
        return redact_lines(lines, self.secrets)


class LogStore:
    """request id -> that invocation's lines, for the last KEEP_INVOCATIONS invocations."""

    def __init__(self, keep: int = KEEP_INVOCATIONS) -> None:
        self._keep = keep
        self._lines: OrderedDict[str, list[str]] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, request_id: str, lines: list[str]) -> None:
        with self._lock:
            self._lines[request_id] = lines
            self._lines.move_to_end(request_id)
            while len(self._lines) > self._keep:
                self._lines.popitem(last=False)

    def get(self, request_id: str) -> list[str]:
        with self._lock:
            return list(self._lines.get(request_id, ()))
