"""Read the files cfn-debug is pointed at without trusting what they are.

A path named as an event, schema, template or transcript may be a FIFO (reading it blocks until
someone writes), a device (``/dev/zero`` never ends) or a link to one. ``read_bytes`` refuses
anything but a regular file before reading a byte, and opens without blocking so that a FIFO put
in place between the check and the open cannot hang it either.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

from cfn_debug.errors import CfnDebugError, EventError
from cfn_debug.text.jsondigits import TOO_MANY_DIGITS, is_digit_limit

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


#: The largest event, schema, template or settings file read (a Lambda payload is at most 6 MB;
#: the largest AWS resource schemas are a few hundred KB). Journals and transcripts have none.
MAX_INPUT_BYTES = 64 * 1024 * 1024


class TooLarge(OSError):
    """The file is larger than the caller reads; ``strerror`` says so."""

    def __init__(self, path: str | Path, size: int, limit: int) -> None:
        super().__init__(
            errno.EFBIG,
            f"expected a file of at most {limit // (1024 * 1024)} MB, found {size:,} bytes",
            str(path),
        )


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, in a few words ("a FIFO (named pipe)")."""
    if stat.S_ISDIR(mode):
        return "a directory"
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


class NotRegularFile(OSError):
    """The path is not a regular file; ``strerror`` says what it is instead."""

    def __init__(self, path: str | Path, mode: int) -> None:
        kind = file_kind(mode)
        super().__init__(errno.EINVAL, f"expected a regular file, found {kind}", str(path))


def _check(path: str | Path, mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
    if not stat.S_ISREG(mode):
        raise NotRegularFile(path, mode)


def read_bytes(path: str | Path, max_bytes: int | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (links followed); OSError otherwise, also when
    it is larger than ``max_bytes`` (checked before reading, and while reading)."""
    _check(path, os.stat(path).st_mode)
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with open(descriptor, "rb") as file:
        info = os.fstat(descriptor)
        _check(path, info.st_mode)
        if max_bytes is None:
            return file.read()
        if info.st_size > max_bytes:
            raise TooLarge(path, info.st_size, max_bytes)
        data = file.read(max_bytes + 1)  # a file that grew since fstat
        if len(data) > max_bytes:
            raise TooLarge(path, len(data), max_bytes)
        return data


def read_text(path: str | Path, max_bytes: int | None = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of the regular file at ``path``, at most ``max_bytes`` long; OSError or
    UnicodeDecodeError otherwise."""
    return read_bytes(path, max_bytes).decode("utf-8")


def open_regular(path: str | Path) -> BinaryIO:
    """The regular file at ``path`` open for reading bytes (links followed), as ``read_bytes``
    checks it, for a caller that reads it a piece at a time; OSError otherwise."""
    _check(path, os.stat(path).st_mode)
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    file = open(descriptor, "rb")  # noqa: SIM115 (the caller closes it)
    try:
        _check(path, os.fstat(descriptor).st_mode)
    except OSError:
        file.close()
        raise
    return file


def read_json(path: Path, error: type[CfnDebugError] = EventError) -> Any:
    """Parse a JSON file; syntax errors name the line and column.

    Only a regular file is read (a FIFO or a device is refused before reading: no hang), and an
    integer over Python's digit limit is a one-line error, not a ValueError.
    """
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise error("no such file", path=path) from None
    except IsADirectoryError:
        raise error("expected a JSON file, found a directory", path=path) from None
    except UnicodeDecodeError as exc:
        raise error(f"expected UTF-8 text: {exc.reason} at byte {exc.start}", path=path) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror}", path=path) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(
            f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", path=path
        ) from None
    except ValueError as exc:
        if not is_digit_limit(exc):
            raise
        raise error(TOO_MANY_DIGITS, path=path) from None
    except RecursionError:
        raise error(
            "expected JSON nested at most a few hundred levels deep: this file nests deeper "
            "than the JSON reader can follow",
            path=path,
        ) from None
