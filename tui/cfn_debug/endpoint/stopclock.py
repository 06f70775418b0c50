"""The time a worker spends stopped in a debugger, from the STOPPED/RESUMED/QUIT lines it writes
on its log channel (see debughook): not the handler's time.

One ``StopClock`` per worker. ``feed`` takes each output line and says whether it was one of
those lines (then it is no log line); the invocation in hand gets the stopped time that falls
inside its own span (from when the endpoint took it), so a wait for an IDE before the first
invocation arrived is nobody's. The clock is time.monotonic(), the same in every process (Linux
CLOCK_MONOTONIC): the worker's stamps are compared with the endpoint's own.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol

from cfn_debug.endpoint.debughook import MARK_PREFIX, QUIT, RESUMED, STOPPED

MARK = MARK_PREFIX.encode()
_STOPPED = STOPPED.encode()
_RESUMED = RESUMED.encode()
_QUIT = QUIT.encode()


class Stoppable(Protocol):
    """What the clock updates on an invocation."""

    created: float
    stopped_s: float
    debugger_quit: bool


class StopClock:
    def __init__(self) -> None:
        self.since: float | None = None  # stopped now, since (monotonic), or running
        self._lock = threading.Lock()

    def feed(self, line: bytes, invocation: Stoppable | None) -> bool:
        """Whether ``line`` is one of debughook's lines (then it is handled here)."""
        at = line.find(MARK)
        if at < 0:
            return False
        mark = line[at:]
        stamp = _stamp(mark)
        with self._lock:
            if mark.startswith(_STOPPED):
                if self.since is None:
                    self.since = stamp
            elif mark.startswith(_RESUMED):
                since, self.since = self.since, None
                if since is not None and invocation is not None:
                    invocation.stopped_s += max(0.0, stamp - max(since, invocation.created))
            elif mark.startswith(_QUIT) and invocation is not None:
                invocation.debugger_quit = True
        return True

    def stopped_now(self) -> bool:
        return self.since is not None

    def stopped_s(self, invocation: Stoppable, now: float | None = None) -> float:
        """The invocation's stopped time so far, an ongoing stop included."""
        with self._lock:
            since = self.since
            total = invocation.stopped_s
        if since is not None:
            now = time.monotonic() if now is None else now
            total += max(0.0, now - max(since, invocation.created))
        return total

    def close(self, invocation: Stoppable | None) -> None:
        """The worker is gone: a stop in progress ends now."""
        with self._lock:
            since, self.since = self.since, None
        if since is not None and invocation is not None:
            invocation.stopped_s += max(0.0, time.monotonic() - max(since, invocation.created))


def _stamp(mark: bytes) -> float:
    try:
        return float(mark.split(b" ", 1)[1].strip())
    except (IndexError, ValueError):
        return time.monotonic()
