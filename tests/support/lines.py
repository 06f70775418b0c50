"""A long-running CLI's stdout read line by line in a thread, so a test waits for a line with a
bound (watch mode and the like), and the Ctrl-C a terminal sends to stop it."""

from __future__ import annotations

import queue
import signal
import subprocess
import threading
import time
from typing import IO

#: A bound on how long to wait for a line, not a timing assertion.
WAIT_S = 120.0


class Lines:
    """``proc``'s stdout, line by line; ``text`` holds every line read so far."""

    def __init__(self, proc: subprocess.Popen[str], *, wait_s: float = WAIT_S) -> None:
        self.wait_s = wait_s
        self.queue: queue.Queue[str | None] = queue.Queue()
        self.text: list[str] = []
        assert proc.stdout is not None
        threading.Thread(target=self._pump, args=(proc.stdout,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self.queue.put(line)
        self.queue.put(None)

    def until(self, needle: str) -> str:
        """The next line holding ``needle``; AssertionError with everything read if the output
        ends or ``wait_s`` passes first."""
        deadline = time.monotonic() + self.wait_s
        while time.monotonic() < deadline:
            try:
                line = self.queue.get(timeout=0.5)
            except queue.Empty:
                continue
            if line is None:
                break
            self.text.append(line)
            if needle in line:
                return line
        raise AssertionError(f"{needle!r} never printed; got:\n{''.join(self.text)}")


def interrupt(proc: subprocess.Popen[str], *, wait_s: float = 60.0) -> None:
    """Ctrl-C, as a terminal sends it; killed if it has not ended within ``wait_s``."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=wait_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
