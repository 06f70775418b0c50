"""Read a JSON transcript a step at a time, sharing a callbackContext that repeats.

A transcript is self-contained: a 5 MB context replayed 100 times is written 200 times (1 GB).
``json.loads`` of that file holds the file's text (1 GB, and 2 GB while it is decoded from
bytes) and then a separate copy of every context (1 GB more), where the journal loader keeps one
(``context_refs``). Here the file is decoded in chunks: the top object, its ``runs`` list, each
run object and its ``steps`` list are walked here, and every other value (one step, one run's
fields) is parsed whole by the json module's own decoder from a buffer that holds little more
than that value. A step whose request or answer carries the same callbackContext as the step
before is given that step's object, so the document holds one copy and the peak is a few steps'
worth, not the file twice.

The value is the one ``json.loads`` gives for the same text (a property test holds them equal),
and an error is a :class:`JsonStreamError` with the message, line and column ``json.loads``
would give.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from cfn_debug.text.samejson import same_json

#: Characters decoded at a time (a value longer than this grows the buffer until it fits).
CHUNK = 1 << 20

#: How close to the window's end a value may end and still be cut off ("1.5e+" is 1.5 and "e+").
_NUMBER_TAIL = 8
_WHITESPACE = re.compile(r"[ \t\n\r]*")


class JsonStreamError(ValueError):
    """Not JSON: ``msg`` at ``lineno``:``colno`` (1-based), as json.JSONDecodeError says it."""

    def __init__(self, msg: str, lineno: int, colno: int) -> None:
        super().__init__(f"{msg}: line {lineno} column {colno}")
        self.msg, self.lineno, self.colno = msg, lineno, colno


class _Reader:
    """A window on the decoded text: ``buf[pos:]`` is what is not read yet."""

    def __init__(self, file: BinaryIO, chunk: int) -> None:
        self.file = file
        self.chunk = chunk
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.json = json.JSONDecoder()
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.lines = 0  # newlines in the text dropped from the window
        self.line_start = 0  # offset from the window's start of the current line (may be < 0)
        self.last_size = 0  # the length of the last value parsed: the next is often as long

    def more(self, at_least: int = 0) -> bool:
        """Read more text (at least as much again as the window holds unread, and at least
        ``at_least``); False at EOF."""
        if self.eof:
            return False
        dropped = self.buf[: self.pos]
        newlines = dropped.count("\n")
        if newlines:
            self.lines += newlines
            self.line_start = dropped.rfind("\n") + 1
        self.line_start -= self.pos
        want = max(self.chunk, len(self.buf) - self.pos, at_least)
        parts = [self.buf[self.pos :]]
        got = 0
        while got < want:
            raw = self.file.read(want)
            text = self.decoder.decode(raw, final=not raw)
            parts.append(text)
            got += len(text)
            if not raw:
                self.eof = True
                break
        self.buf = "".join(parts)
        self.pos = 0
        return True

    def error(self, msg: str, at: int) -> JsonStreamError:
        newlines = self.buf.count("\n", 0, at)
        if newlines:
            return JsonStreamError(msg, self.lines + newlines + 1, at - self.buf.rfind("\n", 0, at))
        return JsonStreamError(msg, self.lines + 1, at - self.line_start + 1)

    def peek(self) -> str:
        """The next character that is not whitespace ('' at the end of the text)."""
        while True:
            self.pos = _WHITESPACE.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf) or not self.more():
                return self.buf[self.pos : self.pos + 1]

    def value(self) -> Any:
        """The next JSON value, parsed whole by the json module."""
        if not self.peek():
            raise self.error("Expecting value", self.pos)
        # Steps of one chain are alike: a window as long as the last value saves parsing a
        # long one again and again as the window grows.
        wanted = self.last_size + self.last_size // 8 + _NUMBER_TAIL
        if len(self.buf) - self.pos < wanted:
            self.more(wanted - (len(self.buf) - self.pos))
        while True:
            try:
                found, end = self.json.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as error:
                if self.more():  # it may only be cut off by the window: try again with more
                    continue
                raise self.error(error.msg, error.pos) from None
            # A number near the window's end may go on past it ("1.5" of "1.5e3" parses, and
            # leaves "e" behind): read on, and parse it again, until it ends well inside.
            if end + _NUMBER_TAIL > len(self.buf) and self.more():
                continue
            self.last_size = end - self.pos
            self.pos = end
            return found

    def whole(self) -> tuple[bool, Any]:
        """The next value if the window holds all of it (parsed in one go), else (False, None)
        with nothing read: the caller walks it piece by piece instead."""
        try:
            found, end = self.json.raw_decode(self.buf, self.pos)
        except (json.JSONDecodeError, RecursionError):
            return False, None
        self.pos = end
        return True, found

    def key(self, close: str) -> str | None:
        """The next member's key and its colon, or None at ``close`` (the object's end)."""
        if self.peek() == close:
            self.pos += 1
            return None
        if self.peek() != '"':
            raise self.error("Expecting property name enclosed in double quotes", self.pos)
        name = self.value()
        if self.peek() != ":":
            raise self.error("Expecting ':' delimiter", self.pos)
        self.pos += 1
        return name  # type: ignore[no-any-return]

    def after_item(self, close: str) -> bool:
        """After an item: True when another follows (its comma read), False at ``close``."""
        found = self.peek()
        self.pos += 1 if found in (",", close) else 0
        if found == ",":
            return True
        if found == close:
            return False
        raise self.error("Expecting ',' delimiter", self.pos)


def _members(reader: _Reader) -> Iterator[str]:
    """The keys of the object whose '{' was just read; the caller reads each value."""
    name = reader.key("}")
    while name is not None:
        yield name
        if not reader.after_item("}"):
            return
        if reader.peek() != '"':
            raise reader.error("Expecting property name enclosed in double quotes", reader.pos)
        name = reader.key("}")


def _items(reader: _Reader) -> Iterator[None]:
    """One turn per item of the array whose '[' was just read; the caller reads each item."""
    if reader.peek() == "]":
        reader.pos += 1
        return
    while True:
        yield None
        if not reader.after_item("]"):
            return


def _object(reader: _Reader, values: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in _members(reader):
        walk = values.get(name)
        out[name] = walk(reader) if walk is not None else reader.value()
    return out


def _opened(reader: _Reader, bracket: str) -> bool:
    if reader.peek() == bracket:
        reader.pos += 1
        return True
    return False


def _steps(reader: _Reader) -> Any:
    if not _opened(reader, "["):
        return reader.value()
    steps: list[Any] = []
    last: dict[str, Any] | None = None  # the callbackContext the step before returned
    for _ in _items(reader):
        step = reader.value()
        last = _share_context(step, last)
        steps.append(step)
    return steps


def _share_context(step: Any, last: dict[str, Any] | None) -> dict[str, Any] | None:
    """Give ``step`` the context object ``last`` where it carries the same JSON (equal encodings:
    see samejson, never ``==``, which takes 1.0 for 1); the context
    the step returned (shared or not) is the next step's ``last``."""
    if not isinstance(step, dict):
        return last
    request = step.get("request")
    if isinstance(request, dict):
        context = request.get("callbackContext")
        if isinstance(context, dict) and context and same_json(context, last):
            request["callbackContext"] = last
        elif isinstance(context, dict) and context:
            last = context  # the next answer may repeat what this request carried
    result = step.get("result")
    progress = result.get("progress") if isinstance(result, dict) else None
    if isinstance(progress, dict):
        context = progress.get("callbackContext")
        if isinstance(context, dict) and context:
            if same_json(context, last):
                progress["callbackContext"] = last
            else:
                last = context
    return last


def _run(reader: _Reader) -> Any:
    if reader.peek() != "{":
        return reader.value()
    done, run = reader.whole()  # a run the window holds: one parse, then its steps shared
    if done:
        steps = run.get("steps")
        if isinstance(steps, list):
            last = None
            for step in steps:
                last = _share_context(step, last)
        return run
    reader.pos += 1
    return _object(reader, {"steps": _steps})


def _runs(reader: _Reader) -> Any:
    if not _opened(reader, "["):
        return reader.value()
    return [_run(reader) for _ in _items(reader)]


def load(file: BinaryIO, chunk: int = CHUNK) -> Any:
    """The JSON value of ``file`` (UTF-8), a transcript's repeated contexts shared.

    Raises JsonStreamError where ``json.loads`` raises JSONDecodeError, UnicodeDecodeError on
    text that is not UTF-8, and RecursionError on nesting too deep.
    """
    reader = _Reader(file, chunk)
    if reader.peek() == "{":
        reader.pos += 1
        data: Any = _object(reader, {"runs": _runs})
    else:
        data = reader.value()
    if reader.peek():
        raise reader.error("Extra data", reader.pos)
    return data
