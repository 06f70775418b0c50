"""One invocation in flight through a warm worker: what was asked, how it ended (the first
ending wins: an answer, an error, the process's exit, a timeout, running out of memory), its log
lines and the runtime connection waiting for its 202. The endpoint makes one per Invoke; the
worker (worker.py) fills it in.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from cfn_debug.endpoint.logs import LogBuffer
from cfn_debug.endpoint.runtime_api import Connection

#: The Runtime API's answer to a runtime's response or error (with status 202).
ACCEPTED = b'{"status":"OK"}'


@dataclass
class Invocation:
    """One invocation in flight: what was asked, how it ended, and its log lines."""

    request_id: str
    body: bytes
    function_arn: str
    timeout_s: float
    logs: LogBuffer = field(default_factory=LogBuffer)
    outcome: str | None = None  # "response", "error", "init_error", "exit", "timeout", "oom"
    payload: bytes = b""
    error_type: str | None = None
    exit_code: int | None = None
    started: float = 0.0  # monotonic time the worker took the invocation
    ended: float = 0.0
    created: float = field(default_factory=time.monotonic)
    #: Time the handler spent stopped in a debugger (not the handler's: see stopclock).
    stopped_s: float = 0.0
    debugger_quit: bool = False  # the user ended it from pdb (q)
    #: Of the invocation's time, how long its runtime took to start (the Java runtime's JVM,
    #: one per invocation: java_shim sends it with the answer), in ms; None: not told.
    runtime_start_ms: float | None = None
    answered: threading.Event = field(default_factory=threading.Event)
    logs_closed: threading.Event = field(default_factory=threading.Event)
    #: The runtime's connection whose answer (POST .../response or .../error) still waits for
    #: its 202: see acknowledge().
    ack: Connection | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def acknowledge(self) -> None:
        """Send the runtime its 202 for this invocation's answer, if it still waits for it. The
        endpoint calls this once the client's answer is written (or before ``invoke`` returns,
        without a transport to write it); safe to call more than once and from any thread."""
        with self._lock:
            connection, self.ack = self.ack, None
        if connection is not None:
            connection.reply(202, ACCEPTED)

    def reset(self) -> None:
        """Back to not started, to be run on another worker (this one never reached it)."""
        with self._lock:
            self.logs = LogBuffer()
            self.outcome, self.payload, self.error_type, self.exit_code = None, b"", None, None
            self.started = self.ended = 0.0
            self.stopped_s, self.debugger_quit = 0.0, False
            self.runtime_start_ms = None
            self.answered = threading.Event()
            self.logs_closed = threading.Event()

    def finish(
        self,
        outcome: str,
        payload: bytes = b"",
        error_type: str | None = None,
        exit_code: int | None = None,
    ) -> bool:
        """Record how it ended; the first ending wins (a late answer after a timeout is dropped)."""
        with self._lock:
            if self.outcome is not None:
                return False
            self.outcome, self.payload = outcome, payload
            self.error_type, self.exit_code = error_type, exit_code
            self.ended = time.monotonic()
        self.answered.set()
        return True
