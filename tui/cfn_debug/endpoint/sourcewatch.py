"""Whether a function's code directory changed since the last look, without walking it each time.

The pool retires its warm workers when the code directory's signature (files, newest mtime, total
size: ``source_signature``) differs from the one it last saw, and it looks before every invocation.
Walking the tree costs a dozen system calls and ~30 µs per invoke on the warm path; here the kernel
says when something changed (Linux inotify on every directory of the tree and on every symlink's
target), and the tree is walked again only then. So ``SourceWatch.signature()`` returns exactly what
``source_signature`` returns now: the cached value while no event came, a fresh walk after any.

The fast path is used only where inotify sees every change: a local filesystem (``LOCAL_FS``, read
from /proc/self/mountinfo) on Linux, every watch added. Anything else (another OS, a network or FUSE
mount, the watch limit reached, an event queue overflow) walks the tree every time, as before.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

SKIP_DIRS = {"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache", ".ruff_cache"}

IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000
WATCH_MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
)
#: On the code directory's ancestors: a rename or removal above it swaps the tree it names.
ANCESTOR_MASK = IN_DELETE_SELF | IN_MOVE_SELF
#: Filesystems whose every change (made on this machine) inotify reports.
LOCAL_FS = frozenset(
    {"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "overlay", "zfs", "f2fs", "reiserfs", "jfs"}
)


def _walk(code_dir: str) -> Iterator[tuple[os.DirEntry[str], bool]]:
    """Every entry of the code directory and of the directories below it that are walked (not
    SKIP_DIRS, not hidden), with whether it is such a directory; unreadable ones are passed."""
    stack = [code_dir]
    while stack:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir:
                    if entry.name in SKIP_DIRS or entry.name.startswith("."):
                        continue
                    stack.append(entry.path)
                yield entry, is_dir


def source_signature(code_dir: Path | str) -> tuple[int, int, int]:
    """(files, newest mtime, total size) of the code directory: changes when the source does."""
    count = newest = total = 0
    for entry, is_dir in _walk(str(code_dir)):
        if is_dir:
            continue
        try:
            info = entry.stat()
        except OSError:
            continue
        count += 1
        total += info.st_size
        newest = max(newest, info.st_mtime_ns)
    return count, newest, total


def _watched_paths(code_dir: str) -> list[str]:
    """Every directory source_signature walks, and every symlink it follows (a file's or a
    directory's target changes without an event in the directory that holds the link)."""
    found = [code_dir]
    for entry, is_dir in _walk(code_dir):
        try:
            if is_dir or entry.is_symlink():
                found.append(entry.path)
        except OSError:
            continue
    return found


def _ancestors(code_dir: str) -> list[str]:
    """The directories above ``code_dir``, up to the root."""
    found: list[str] = []
    path = os.path.abspath(code_dir)
    while os.path.dirname(path) != path:
        path = os.path.dirname(path)
        found.append(path)
    return found


def filesystem_type(path: str) -> str | None:
    """The type of the filesystem ``path`` is on (the longest mount point above it), from
    /proc/self/mountinfo; None where that cannot be read."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as mounts:
            lines = mounts.read().splitlines()
    except OSError:
        return None
    real = os.path.realpath(path)
    best, kind = "", None
    for line in lines:
        fields = line.split(" ")
        try:
            point = fields[4].encode("latin-1").decode("unicode_escape")
            fstype = fields[fields.index("-") + 1]
        except (IndexError, ValueError, UnicodeDecodeError):
            continue
        inside = real == point or real.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, fstype
    return kind


class _Inotify:
    """The inotify calls, through libc (the standard library has none)."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)  # the C library the interpreter runs on
        self._init = libc.inotify_init1
        self._init.argtypes = [ctypes.c_int]
        self._add = libc.inotify_add_watch
        self._add.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]

    def open(self) -> int:
        fd = int(self._init(IN_NONBLOCK | IN_CLOEXEC))
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        return fd

    def watch(self, fd: int, path: str, mask: int = WATCH_MASK) -> None:
        if self._add(fd, os.fsencode(path), mask) < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch {path}")


class SourceWatch:
    """A code directory's ``source_signature``, walked again only after the kernel saw a change."""

    def __init__(self, code_dir: Path | str) -> None:
        self.code_dir = str(code_dir)
        self._lock = threading.Lock()  # invocations of one function may look at once
        self._fd: int | None = None
        self._inotify: _Inotify | None = None
        self._started = False  # the watches are set up at the first look (not at the endpoint's
        self._signature = (0, 0, 0)  # start, which then answers sooner)

    def _start(self) -> None:
        self._started = True
        if (
            sys.platform.startswith("linux")
            and os.path.realpath(self.code_dir) == os.path.abspath(self.code_dir)  # no link above
            and filesystem_type(self.code_dir) in LOCAL_FS
        ):
            with contextlib.suppress(OSError, AttributeError):
                self._inotify = _Inotify()
                self._fd = self._inotify.open()
        self._signature = self._rewatch()

    @property
    def watching(self) -> bool:
        """Whether changes are told by the kernel (else the tree is walked at every look)."""
        with self._lock:
            if not self._started:
                self._start()
            return self._fd is not None

    def signature(self) -> tuple[int, int, int]:
        """``source_signature(code_dir)`` as it is now."""
        with self._lock:
            if not self._started:
                self._start()
                return self._signature
            fd = self._fd
            if fd is None:
                return source_signature(self.code_dir)
            try:
                os.read(fd, 65536)
            except BlockingIOError:
                return self._signature  # no event since the last walk: nothing changed
            except OSError:
                self.close()
                return source_signature(self.code_dir)
            self._signature = self._rewatch()
            return self._signature

    def _rewatch(self) -> tuple[int, int, int]:
        """Drain the events, watch every directory (and link) there is now, then walk: a change
        after the drain makes another event, so none is missed between the two."""
        fd = self._fd
        if fd is None:
            return source_signature(self.code_dir)
        try:
            while os.read(fd, 65536):
                pass
        except BlockingIOError:
            pass
        except OSError:
            self.close()
            return source_signature(self.code_dir)
        assert self._inotify is not None
        try:
            for path in _ancestors(self.code_dir):
                self._inotify.watch(fd, path, ANCESTOR_MASK)
            for path in _watched_paths(self.code_dir):
                try:
                    self._inotify.watch(fd, path)
                except FileNotFoundError:
                    if os.path.islink(path):
                        raise  # a dangling link: its target's creation makes no event here
                    # a directory gone since the walk: its parent's event says so
        except OSError:
            self.close()  # no watch to be had (the limit reached, ...): walk every time
        return source_signature(self.code_dir)

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def __del__(self) -> None:
        self.close()
