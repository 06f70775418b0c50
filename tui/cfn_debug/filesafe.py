"""Read the files cfn-debug is pointed at without trusting what they are.

A path named as an event, schema, template or transcript may be a FIFO (reading it blocks until
someone writes), a device (``/dev/zero`` never ends) or a link to one. ``read_bytes`` refuses
anything but a regular file before reading a byte, and opens without blocking so that a FIFO put
in place between the check and the open cannot hang it either.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegularFile(OSError):
    """The path is not a regular file; ``strerror`` says what it is instead."""

    def __init__(self, path: str | Path, mode: int) -> None:
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        super().__init__(errno.EINVAL, f"expected a regular file, found {kind}", str(path))


def _check(path: str | Path, mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
    if not stat.S_ISREG(mode):
        raise NotRegularFile(path, mode)


def read_bytes(path: str | Path) -> bytes:
    """The bytes of the regular file at ``path`` (links followed); OSError otherwise."""
    _check(path, os.stat(path).st_mode)
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with open(descriptor, "rb") as file:
        _check(path, os.fstat(descriptor).st_mode)
        return file.read()


def read_text(path: str | Path) -> str:
    """The UTF-8 text of the regular file at ``path``; OSError or UnicodeDecodeError otherwise."""
    return read_bytes(path).decode("utf-8")
