"""Bounded capture of one invocation's log lines, and the store of recent invocations' logs."""

from __future__ import annotations

import codecs
import threading
import time
from collections import OrderedDict, deque
from typing import Any, Generic, TypeVar

from cfn_debug.endpoint.aws_recorder import RECORD_MARK, parse_record
from cfn_debug.text.redact import redact_lines, redact_text
from cfn_debug.text.redact_stream import StreamRedactor

#: What one invocation keeps from its start: a handler printing 100 MB must not fill memory.
HEAD_LINES = 5_000
HEAD_BYTES = 1_000_000
#: What it keeps from its end once the head is full (the lines nearest the failure matter most).
TAIL_LINES = 200
#: How many invocations' logs the endpoint remembers for logs_for().
KEEP_INVOCATIONS = 1_000
#: How many AWS calls one invocation keeps (the first ones; the rest are counted).
MAX_AWS_CALLS = 1_000

#: What a call whose answer never came says (see LogBuffer.calls).
NO_ANSWER = "no answer before the invocation ended"

#: A line not ended yet is kept whole up to this many characters, then shown in pieces.
PIECE_CHARS = 65_536

_T = TypeVar("_T")


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
        "_open_calls",
        "_partial",
        "_stream",
        "_tail",
        "aws_calls",
        "dropped_aws_calls",
        "dropped_bytes",
        "dropped_lines",
        "secrets",
    )

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        self.secrets = secrets
        self._stream = StreamRedactor(secrets)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial = ""  # the start of a line not ended yet (kept whole up to PIECE_CHARS)
        self.aws_calls: list[dict[str, Any]] = []  # the worker's AWS call records, in order
        self.dropped_aws_calls = 0
        self._open_calls: dict[Any, int] = {}  # call id -> index of its start record
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
        if (
            not self._partial
            and not self._stream.pending
            and not self._decoder.getstate()[0]
            and chunk[-1:] == b"\n"
        ):
            # The common case, one whole line after whole lines: nothing to join it to.
            text = chunk.decode("utf-8", errors="replace")
            if text.find("\n") == len(text) - 1:
                self._add_line(text[:-1])
                return
        text = self._decoder.decode(chunk)
        *complete, rest = text.split("\n")
        for line in complete:
            line, self._partial = self._partial + line, ""
            if self._stream.pending:
                line = self._stream.feed(line) + self._stream.flush()
            self._add_line(line)
        self._partial += rest
        if len(self._partial) > PIECE_CHARS:
            # A very long line is kept in pieces; a credential cut between two pieces is still
            # found by the stream redactor, which holds back what could be one's start.
            released = self._stream.feed(self._partial)
            self._partial = ""
            if released:
                self._add_line(released)

    def _add_line(self, line: str) -> None:
        text = self._take_call(line)
        if text is None:
            return
        # awslambdaric writes a multi-line error record as one line joined with "\r".
        if "\r" not in text:
            self.add(text)
            return
        for line in text.split("\r"):
            self.add(line)

    def _take_call(self, text: str) -> str | None:
        """Take an AWS call record (aws_recorder) out of one line of output: the log text left
        before it (an unfinished log line), None when nothing is left; the line as it is when it
        holds no record."""
        at = text.find(RECORD_MARK) if "\x1e" in text else -1
        if at < 0:
            return text
        record = parse_record(text[at:])
        if record is None:
            return text
        self._add_call(record)
        return text[:at] or None

    def _add_call(self, record: dict[str, Any]) -> None:
        """A start record holds the call's place until the call's own record replaces it."""
        open_at = self._open_calls.pop(record.get("id"), None) if "id" in record else None
        if open_at is not None and not record.get("start"):
            self.aws_calls[open_at] = record
            return
        if len(self.aws_calls) >= MAX_AWS_CALLS:
            self.dropped_aws_calls += 1
            return
        if record.get("start"):
            record = {**record, "started": time.monotonic()}
            self._open_calls[record.get("id")] = len(self.aws_calls)
        self.aws_calls.append(record)

    def calls(self) -> list[dict[str, Any]]:
        """The AWS call records; a call whose answer never came (the invocation ended first:
        a timeout, a crash) says so, with the time it had been waiting."""
        now = time.monotonic()
        out = []
        for record in self.aws_calls:
            if record.get("start"):
                waited = (now - record.get("started", now)) * 1000.0
                record = {
                    "service": record.get("service"),
                    "operation": record.get("operation"),
                    "error_message": NO_ANSWER,
                    "duration_ms": round(waited, 3),
                }
            else:
                record = {key: value for key, value in record.items() if key != "id"}
            out.append(record)
        return out

    def lines(self) -> list[str]:
        """The kept lines, credentials redacted (a line still being written included)."""
        lines = [*self._head, *self._tail]
        rest = redact_text(self._stream.pending + self._partial, self.secrets)
        if rest:
            lines.extend(rest.split("\r"))
        if self.dropped_lines:
            marker = (
                f"[... truncated: {self.dropped_lines} lines ({self.dropped_bytes} bytes) "
                "not kept ...]"
            )
            lines.insert(len(self._head), marker)
        return redact_lines(lines, self.secrets)


class LogStore(Generic[_T]):
    """request id -> that invocation's lines (or AWS calls), for the last KEEP_INVOCATIONS."""

    def __init__(self, keep: int = KEEP_INVOCATIONS) -> None:
        self._keep = keep
        self._lines: OrderedDict[str, list[_T]] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, request_id: str, lines: list[_T]) -> None:
        with self._lock:
            self._lines[request_id] = lines
            self._lines.move_to_end(request_id)
            while len(self._lines) > self._keep:
                self._lines.popitem(last=False)

    def get(self, request_id: str) -> list[_T]:
        with self._lock:
            return list(self._lines.get(request_id, ()))
