"""One warm worker: a handler process, the Runtime API it polls, and the reader of its output.

The endpoint leases a worker to one invocation at a time. The invocation is handed to the worker
through the Runtime API (``GET /2018-06-01/runtime/invocation/next`` answers with it), and its
answer comes back as ``POST .../response``, ``.../error`` or ``/runtime/init/error``. Everything
the process writes (stdout and stderr share one pipe) is read by a thread and attributed to the
invocation in hand until the worker's end-of-invocation sentinel line (see worker_main.py).
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import BinaryIO

from cfn_debug.endpoint import proctree
from cfn_debug.endpoint.forkserver import ForkedProcess, ForkServer, ForkServerError
from cfn_debug.endpoint.logs import LogBuffer
from cfn_debug.endpoint.template import FunctionSpec
from cfn_debug.endpoint.worker_main import SENTINEL as _SENTINEL_TEXT

WORKER_MAIN = Path(__file__).with_name("worker_main.py")
SENTINEL = _SENTINEL_TEXT.encode()
READ_CHUNK = 65_536
#: How long a fresh worker may take to import the handler and poll for work.
INIT_LIMIT_S = 10.0
#: How long to wait for the sentinel line after the answer (it is written before the answer).
LOG_GRACE_S = 2.0
#: How often a running invocation's memory is compared with the function's MemorySize.
MEMORY_POLL_S = 0.05

_ROUTE = re.compile(
    r"^/2018-06-01/runtime/"
    r"(?:invocation/(?P<id>[^/]+)/(?P<kind>response|error)|init/error)$"
)


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
    answered: threading.Event = field(default_factory=threading.Event)
    logs_closed: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

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


def write_response(wfile: BinaryIO, status: int, body: bytes, headers: dict[str, str]) -> None:
    """A JSON response in one write (status line, headers, body): no delayed-ACK stall."""
    lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}", "Content-Type: application/json"]
    lines.extend(f"{key}: {value}" for key, value in headers.items())
    lines.append(f"Content-Length: {len(body)}")
    wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)


class _RuntimeApiHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _RuntimeApiServer

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: object) -> None:
        return

    def _reply(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        write_response(self.wfile, status, body, headers or {})

    def do_GET(self) -> None:
        if self.path != "/2018-06-01/runtime/invocation/next":
            self._reply(404, b'{"errorMessage":"not found","errorType":"NotFound"}')
            return
        worker = self.server.worker
        invocation = worker.inbox.get()
        if invocation is None:  # the worker is being stopped
            self.close_connection = True
            return
        invocation.started = time.monotonic()
        deadline_ms = int((time.time() + invocation.timeout_s) * 1000)
        worker.taken.set()
        self._reply(
            200,
            invocation.body,
            {
                "Lambda-Runtime-Aws-Request-Id": invocation.request_id,
                "Lambda-Runtime-Deadline-Ms": str(deadline_ms),
                "Lambda-Runtime-Invoked-Function-Arn": invocation.function_arn,
                "Lambda-Runtime-Trace-Id": _trace_id(invocation.request_id),
            },
        )

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        match = _ROUTE.match(self.path)
        worker = self.server.worker
        invocation = worker.current
        if match is None:
            self._reply(404, b'{"errorMessage":"not found","errorType":"NotFound"}')
            return
        error_type = self.headers.get("Lambda-Runtime-Function-Error-Type")
        request_id = match.group("id")
        if request_id is not None and (invocation is None or invocation.request_id != request_id):
            self._reply(
                400, b'{"errorMessage":"unknown request id","errorType":"InvalidRequestID"}'
            )
            return
        if invocation is not None:
            kind = match.group("kind")
            if kind == "response":
                invocation.finish("response", body)
            elif kind == "error":
                invocation.finish("error", body, error_type or "Unhandled")
            else:
                invocation.finish("init_error", body, error_type or "Runtime.Unknown")
        else:
            worker.init_error = (body, error_type)
        self._reply(202, b'{"status":"OK"}')


def _trace_id(request_id: str) -> str:
    return f"Root=1-{int(time.time()):08x}-{request_id.replace('-', '')[:24]};Sampled=0"


class _RuntimeApiServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 16

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        super().__init__(("127.0.0.1", 0), _RuntimeApiHandler)

    def handle_error(self, request: object, client_address: object) -> None:
        """A worker killed mid-request (timeout, restart) resets its connection: not news."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


class Worker:
    """A handler process kept warm between invocations, with its own Runtime API listener."""

    def __init__(
        self,
        spec: FunctionSpec,
        env: dict[str, str],
        generation: int,
        *,
        python: str | Path = sys.executable,
        forks: ForkServer | None = None,
    ) -> None:
        self.spec = spec
        self.python = str(python)
        self.forks = forks  # None: a plain process (no fork server for this environment)
        self.generation = generation
        self.inbox: queue.Queue[Invocation | None] = queue.Queue()
        self.taken = threading.Event()  # took the invocation in hand
        self.dead = threading.Event()
        self.current: Invocation | None = None
        self.init_error: tuple[bytes, str | None] | None = None
        self.spawned_at = 0.0
        self.invocations = 0
        self._pending = LogBuffer()  # output written while no invocation is in hand
        self._lock = threading.Lock()
        self._server = _RuntimeApiServer(self)
        self._env = {**env, "AWS_LAMBDA_RUNTIME_API": f"127.0.0.1:{self._server.server_port}"}
        self._process: subprocess.Popen[bytes] | ForkedProcess | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def start(self) -> None:
        threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.2},
            name=f"runtime-api-{self.spec.name}",
            daemon=True,
        ).start()
        self.spawned_at = time.monotonic()
        self._process = None
        if self.forks is not None:
            try:
                self._process = self.forks.spawn(self.spec.handler, self._env, self.spec.code_dir)
            except ForkServerError:
                self._process = None  # a plain process below: slower, as correct
        if self._process is None:
            self._process = subprocess.Popen(
                [self.python, "-u", str(WORKER_MAIN), self.spec.handler],
                cwd=self.spec.code_dir,
                env=self._env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        threading.Thread(
            target=self._read_output, name=f"worker-output-{self.spec.name}", daemon=True
        ).start()

    def run(self, invocation: Invocation) -> None:
        """Hand ``invocation`` to the process and wait until it is answered, timed out or lost."""
        with self._lock:
            self.current = invocation
            pending, self._pending = self._pending, LogBuffer()
        for line in pending.lines():
            invocation.logs.add(line)
        invocation.logs.aws_calls.extend(pending.aws_calls)  # aws-calls hook: made at import
        self.invocations += 1
        self.taken.clear()
        self.inbox.put(invocation)
        self._wait_answer(invocation)
        if invocation.outcome in ("timeout", "oom"):
            self.kill()
        if not invocation.logs_closed.wait(LOG_GRACE_S if invocation.outcome != "timeout" else 0.5):
            # The sentinel never came (the handler closed its stdout?): its next lines could not
            # be told apart, so this worker is not used again.
            self.kill()
        with self._lock:
            self.current = None

    def _wait_answer(self, invocation: Invocation) -> None:
        """Until answered, timed out (a fresh worker first imports the handler: that has its own
        limit, as Lambda's init), out of memory, or the process is gone. Memory is first looked at
        after MEMORY_POLL_S, so a quick invocation costs no /proc reads."""
        init_deadline = time.monotonic() + INIT_LIMIT_S + invocation.timeout_s
        answered = invocation.answered
        while not answered.is_set():
            if self.dead.is_set():
                # The process is gone: give the reader a moment to record the exit.
                if not answered.wait(1.0):
                    invocation.finish("exit", exit_code=self.exit_code())
                return
            if self.taken.is_set():
                deadline = invocation.started + invocation.timeout_s
            else:
                deadline = init_deadline
            left = deadline - time.monotonic()
            if left <= 0:
                invocation.finish("timeout")
                return
            if answered.wait(min(left, MEMORY_POLL_S)):
                return
            if self._out_of_memory(invocation):
                return

    def _out_of_memory(self, invocation: Invocation) -> bool:
        """Past the function's MemorySize: kill the process, as Lambda does, and say so."""
        rss = self.rss_kb()
        if rss is None or rss <= self.spec.memory_mb * 1024:
            return False
        if invocation.finish("oom", exit_code=-9):
            self.kill()
        return True

    def rss_kb(self) -> int | None:
        """Memory of the process and the processes it started, now (Linux /proc; see
        proctree.tree_memory_kb), None where it cannot be read."""
        return None if self.pid is None else proctree.tree_memory_kb(self.pid)

    def exit_code(self) -> int | None:
        return self._process.poll() if self._process else None

    def _read_output(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        stream = self._process.stdout
        try:
            while True:
                chunk = stream.readline(READ_CHUNK)
                if not chunk:
                    break
                at = chunk.find(SENTINEL)
                with self._lock:
                    target = self.current
                    buffer = target.logs if target is not None else self._pending
                    if at < 0:
                        buffer.add_raw(chunk)
                        continue
                    if at > 0:
                        buffer.add_raw(chunk[:at])
                if target is not None:
                    target.logs_closed.set()
        except (OSError, ValueError):
            pass
        finally:
            code = None
            if self._process is not None:
                try:
                    code = self._process.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    code = None
            with self._lock:
                target = self.current
            if target is not None:
                target.finish("exit", exit_code=code)
                target.logs_closed.set()
            self.dead.set()

    def usable(self) -> bool:
        return not self.dead.is_set() and self.init_error is None

    def kill(self) -> None:
        """Stop the process and the listener; safe to call more than once, from any thread."""
        process = self._process
        if isinstance(process, ForkedProcess):
            process.kill()  # the fork server kills it with everything it started
        elif process is not None and process.poll() is None:
            proctree.kill_tree(process.pid)
            with contextlib.suppress(OSError):
                os.killpg(process.pid, 9)  # where /proc is missing
        self.dead.set()
        self.inbox.put(None)
        if process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
        threading.Thread(target=self._close_server, daemon=True).start()

    def _close_server(self) -> None:
        try:
            self._server.shutdown()
        finally:
            self._server.server_close()

    def max_rss_mb(self) -> int | None:
        """Peak resident memory of the process (Linux /proc), for the REPORT line."""
        peak = _status_kb(self.pid, "VmHWM:")
        return None if peak is None else peak // 1024


def _status_kb(pid: int | None, key: str) -> int | None:
    """A "kB" line of /proc/PID/status (None off Linux or once the process is gone)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None
