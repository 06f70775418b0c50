"""One warm worker: a handler process, the Runtime API it polls, and the reader of its output.

The endpoint leases a worker to one invocation at a time. The invocation is handed to the worker
through the Runtime API (``GET /2018-06-01/runtime/invocation/next`` answers with it), and its
answer comes back as ``POST .../response``, ``.../error`` or ``/runtime/init/error``. Everything
the process writes (stdout and stderr share one pipe) is read by a thread and attributed to the
invocation in hand until the worker's end-of-invocation sentinel line (see worker_main.py). The
invocation's own record (how it ended, its log lines) is invocation.py's.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import BinaryIO

from cfn_debug.endpoint import peer, proctree
from cfn_debug.endpoint.debughook import MARK_PREFIX
from cfn_debug.endpoint.forkserver import ForkedProcess, ForkServer, ForkServerError
from cfn_debug.endpoint.invocation import ACCEPTED, Invocation
from cfn_debug.endpoint.logs import LogBuffer
from cfn_debug.endpoint.runtime_api import Connection, Request, Transport, response_bytes
from cfn_debug.endpoint.runtimes import Runtime, RuntimeOptions
from cfn_debug.endpoint.runtimes.base import BuildFailed
from cfn_debug.endpoint.runtimes.python import PythonRuntime
from cfn_debug.endpoint.stopclock import StopClock
from cfn_debug.endpoint.template import FunctionSpec
from cfn_debug.endpoint.worker_main import SENTINEL as _SENTINEL_TEXT

WORKER_MAIN = Path(__file__).with_name("worker_main.py")
SENTINEL = _SENTINEL_TEXT.encode()
STOP_MARK = MARK_PREFIX.encode()
READ_CHUNK = 65_536
#: How long a fresh worker may take to import the handler and poll for work.
INIT_LIMIT_S = 10.0
#: How long to wait for the sentinel line after the answer (it is written before the answer).
LOG_GRACE_S = 2.0
#: How often a running invocation's memory is compared with the function's MemorySize (and its
#: output read, see Worker.run).
MEMORY_POLL_S = 0.05
#: The output pipe's size asked for (Linux), so a handler's lines wait in it while it runs.
PIPE_BYTES = 1 << 20
F_SETPIPE_SZ = 1031
F_GETPIPE_SZ = 1032

_ROUTE = re.compile(
    r"^/2018-06-01/runtime/"
    r"(?:invocation/(?P<id>[^/]+)/(?P<kind>response|error)|init/error)$"
)


def write_response(wfile: BinaryIO, status: int, body: bytes, headers: dict[str, str]) -> None:
    """A JSON response in one write (status line, headers, body): no delayed-ACK stall."""
    wfile.write(response_bytes(status, body, headers))


#: The header of an answer that says how long the runtime took to start (lower-case, as read).
RUNTIME_START_HEADER = "cfn-debug-runtime-start-ms"
_NOT_FOUND = b'{"errorMessage":"not found","errorType":"NotFound"}'
_BUSY = b'{"errorMessage":"another GET /next is waiting","errorType":"Conflict"}'


def _trace_id(request_id: str) -> str:
    return f"Root=1-{int(time.time()):08x}-{request_id.replace('-', '')[:24]};Sampled=0"


class Worker:
    """A handler process kept warm between invocations, with its own Runtime API listener.

    One thread per worker (runtime_api.Transport.serve) reads the worker's requests and its
    output pipe until the runtime waits for work; from then on its connection is lent, and the
    invocation's own thread hands the invocation to the waiting GET /next and reads the answer.
    """

    def __init__(
        self,
        spec: FunctionSpec,
        env: dict[str, str],
        generation: int,
        python: Path | str | None = None,
        *,
        forks: ForkServer | None = None,
        runtime: Runtime | None = None,
    ) -> None:
        self.spec = spec
        if runtime is None:
            runtime = PythonRuntime(spec, spec.code_dir, RuntimeOptions())
            runtime.python = str(python or sys.executable)
        self.runtime = runtime
        self.forks = forks  # None: a plain process (no fork server for this environment)
        self.generation = generation
        self._parked: Connection | None = None  # a GET /next waiting for work
        #: The connection the runtime waits for work on, lent by the I/O thread (see _park):
        #: the invocation's thread reads it while the invocation runs, and closes it.
        self._lent: Connection | None = None
        self._pumping = False  # a thread waits on _lent now (it closes it if it must go)
        self._queued: Invocation | None = None  # work waiting for a GET /next
        self._unacked: Invocation | None = None  # answered, its 202 not sent yet (acknowledge)
        self.taken = threading.Event()  # took the invocation in hand
        self.dead = threading.Event()
        self.current: Invocation | None = None
        self.init_error: tuple[bytes, str | None] | None = None
        self.spawned_at = 0.0
        self.invocations = 0
        self._pending = LogBuffer()  # output written while no invocation is in hand
        self._lock = threading.Lock()
        self._read_lock = threading.Lock()
        self._partial = b""  # output after the last newline read
        self._eof = False
        self._pipe_bytes = 65_536  # the output pipe's capacity (see _grow_pipe)
        self._transport = Transport(self._on_request, self._on_output, self._admit)
        self._env = {**env, "AWS_LAMBDA_RUNTIME_API": f"127.0.0.1:{self._transport.port}"}
        self._process: subprocess.Popen[bytes] | ForkedProcess | None = None
        self._status_fd: int | None = None  # /proc/PID/status, for max_rss_mb
        self.clock = StopClock()  # time stopped in a debugger (see debughook)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def start(self) -> None:
        """Build what the runtime needs (runtime.prepare: cheap when nothing changed), then start
        the process: through the fork server where there is one (forked for Python, exec'd for
        other runtimes), else as a plain child process."""
        runtime = self.runtime
        try:
            runtime.prepare()
        except BuildFailed as failure:
            self._build_failed(failure)
            return
        launch = runtime.launch(self._env)
        self.spawned_at = time.monotonic()
        self._process = None
        if self.forks is not None:
            argv = None if runtime.forks_python else launch.argv
            try:
                self._process = self.forks.spawn(self.spec.handler, launch.env, launch.cwd, argv)
            except ForkServerError:
                self._process = None  # a plain process below: slower, as correct
        if self._process is None:
            self._process = subprocess.Popen(
                launch.argv,
                cwd=launch.cwd,
                env=launch.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                **proctree.own_group(),  # not a session: see worker_main.leave_terminal
            )
        self._grow_pipe()
        threading.Thread(
            target=self._serve, name=f"worker-io-{self.spec.name}", daemon=True
        ).start()

    def _build_failed(self, failure: BuildFailed) -> None:
        """No process: the build failed. The invocation given to this worker ends as an init
        error (Runtime.BuildError) whose log is the build's output."""
        body = {"errorType": "Runtime.BuildError", "errorMessage": failure.detail, "trace": []}
        self.init_error = (json.dumps(body).encode(), "Runtime.BuildError")
        for line in failure.output:
            self._pending.add(line)
        self._transport.stop()
        self.dead.set()

    def _grow_pipe(self) -> None:
        """Ask for a PIPE_BYTES output pipe: while an invocation runs its lines are read when it
        answers (or every MEMORY_POLL_S), so they wait in the pipe, and a handler blocks on a
        full pipe only past that. Where that cannot be had the pipe keeps its size."""
        stdout = self._process.stdout if self._process is not None else None
        if stdout is None:
            return
        try:
            fd = stdout.fileno()
            with contextlib.suppress(OSError):
                fcntl.fcntl(fd, F_SETPIPE_SZ, PIPE_BYTES)
            self._pipe_bytes = int(fcntl.fcntl(fd, F_GETPIPE_SZ))
        except (OSError, ValueError):
            return

    def run(self, invocation: Invocation) -> None:
        """Hand ``invocation`` to the process and wait until it is answered, timed out or lost.

        While it runs, its output does not wake the worker's I/O thread (each wake-up made a
        thread of ours runnable in the middle of the handler, which on a busy machine then waited
        for the CPU: see runtime_api): the lines are read when the answer comes, by this thread
        every MEMORY_POLL_S, and at every line again once one such read found the pipe half full.
        """
        self._transport.output_interest(False)
        try:
            self._run(invocation)
        finally:
            self._transport.output_interest(True)

    def _run(self, invocation: Invocation) -> None:
        # The last invocation's 202, if its answer is still being written (a slow client): this
        # invocation must not wait for that write.
        unacked, self._unacked = self._unacked, None
        if unacked is not None:
            unacked.acknowledge()
        with self._lock:
            self.current = invocation
            pending, self._pending = self._pending, LogBuffer()
        for line in pending.lines():
            invocation.logs.add(line)
        invocation.logs.aws_calls.extend(pending.aws_calls)  # aws-calls hook: made at import
        if self._process is None and self.init_error is not None:  # the build failed
            invocation.finish("init_error", *self.init_error)
            invocation.logs_closed.set()
            with self._lock:
                self.current = None
            return
        self.invocations += 1
        self.taken.clear()
        with self._lock:
            parked, self._parked = self._parked, None
            if parked is not None and parked.open():
                self._deliver(parked, invocation)
            else:
                self._queued = invocation
        self._wait_answer(invocation)
        if invocation.outcome in ("timeout", "oom"):
            self.kill()
        if not invocation.logs_closed.wait(LOG_GRACE_S if invocation.outcome != "timeout" else 0.5):
            # The sentinel never came (the handler closed its stdout?): its next lines could not
            # be told apart, so this worker is not used again.
            self.kill()
        with self._lock:
            self.current = None

    # --- the Runtime API (called on the worker's I/O thread) ---

    def _admit(self, sock: socket.socket) -> bool:
        """Whether a new Runtime API connection comes from this worker's process or one of its
        descendants (a runtime it started): nothing else on the machine may take its
        invocations or answer them (see peer.py)."""
        return peer.peer_in_tree(sock, self.pid)

    def _on_request(self, connection: Connection, request: Request) -> None:
        if request.method == "GET" and request.path == "/2018-06-01/runtime/invocation/next":
            self._park(connection)
            return
        match = _ROUTE.match(request.path) if request.method == "POST" else None
        if match is None:
            connection.reply(404, _NOT_FOUND)
            return
        invocation = self.current
        request_id = match.group("id")
        if request_id is not None and (invocation is None or invocation.request_id != request_id):
            connection.reply(
                400, b'{"errorMessage":"unknown request id","errorType":"InvalidRequestID"}'
            )
            return
        body = request.body
        error_type = request.headers.get("lambda-runtime-function-error-type")
        if invocation is None:
            connection.reply(202, ACCEPTED)
            self.init_error = (body, error_type)
            return
        if connection.lent and invocation.ack is None:
            # Read on the invocation's own thread (the lent connection): the runtime's 202 is
            # sent once the client has its answer (Invocation.acknowledge), not before it. The
            # runtime needs it only to ask for its next invocation, which the endpoint cannot
            # hand over before the client has this answer and asked again.
            invocation.ack = connection
            self._unacked = invocation
        else:
            # Read by the I/O thread: accepted first, so the runtime asks for its next
            # invocation while the endpoint answers.
            connection.reply(202, ACCEPTED)
        # The sentinel line was written before this request: read it now, so the endpoint finds
        # the logs closed when it wakes up for the answer.
        self._on_output()
        if not self.runtime.writes_sentinel:
            # A runtime without one (a plain aws-lambda-go binary): what it wrote before its
            # answer is in the pipe, and was just read.
            invocation.logs_closed.set()
        started_ms = request.headers.get(RUNTIME_START_HEADER)
        if started_ms is not None:
            with contextlib.suppress(ValueError):
                invocation.runtime_start_ms = max(float(started_ms), 0.0)
        kind = match.group("kind")
        if kind == "response":
            invocation.finish("response", body)
        elif kind == "error":
            invocation.finish("error", body, error_type or "Unhandled")
        else:
            invocation.finish("init_error", body, error_type or "Runtime.Unknown")

    def _park(self, connection: Connection) -> None:
        """A GET /next arrived: give it the queued invocation, or keep it for the next one. A
        connection kept so is lent (runtime_api.Transport.lend): the next invocation's thread
        hands the invocation over and reads the answer on it itself. A second GET /next while
        one still waits on an open connection is refused: it never displaces the first."""
        with self._lock:
            parked = self._parked
            if parked is not None and parked is not connection and parked.open():
                connection.reply(409, _BUSY)
                return
            invocation, self._queued = self._queued, None
            if invocation is not None:
                self._deliver(connection, invocation)
            elif not self.dead.is_set():
                self._parked = connection
                if not connection.lent and self._lent is None:
                    self._transport.lend(connection)
                    self._lent = connection

    def _deliver(self, connection: Connection, invocation: Invocation) -> None:
        """Answer a waiting GET /next with ``invocation`` (under the worker's lock)."""
        invocation.started = time.monotonic()
        deadline_ms = int((time.time() + invocation.timeout_s) * 1000)
        self.taken.set()
        connection.reply(
            200,
            invocation.body,
            {
                "Lambda-Runtime-Aws-Request-Id": invocation.request_id,
                "Lambda-Runtime-Deadline-Ms": str(deadline_ms),
                "Lambda-Runtime-Invoked-Function-Arn": invocation.function_arn,
                "Lambda-Runtime-Trace-Id": _trace_id(invocation.request_id),
            },
        )

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
            # Time stopped in a debugger is not the handler's: it moves the deadline, and
            # while stopped there is none.
            deadline += self.clock.stopped_s(invocation)
            left = deadline - time.monotonic()
            if self.clock.stopped_now():
                left = max(left, MEMORY_POLL_S)
            if left <= 0:
                invocation.finish("timeout")
                return
            if self._wait_on_runtime(answered, min(left, MEMORY_POLL_S)):
                return
            if self.drain_output() >= self._pipe_bytes // 2:
                self._transport.output_interest(True)  # a flood: read it as it comes
            if self._out_of_memory(invocation):
                return

    def _wait_on_runtime(self, answered: threading.Event, timeout_s: float) -> bool:
        """Up to ``timeout_s`` for the answer: on the lent connection, read and handled on this
        thread (its GET /next takes a queued invocation, its POST answers), else as the I/O
        thread reports it. True once answered."""
        with self._lock:
            connection = self._lent
            self._pumping = connection is not None
        if connection is None:
            return answered.wait(timeout_s)
        deadline = time.monotonic() + timeout_s
        try:
            while not answered.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                if not self._transport.pump(connection, left):
                    break
        finally:
            with self._lock:
                self._pumping = False
            if self.dead.is_set():
                self._drop_lent(connection)  # killed while we waited: ours to close
        if answered.is_set():
            return True
        self._drop_lent(connection)  # the runtime closed it (or sent what we refuse)
        return answered.wait(max(deadline - time.monotonic(), 0.0))

    def _drop_lent(self, connection: Connection | None = None) -> None:
        """Close the lent connection (``connection``, if that is still it), unless a thread
        waits on it now: that thread closes it when the process is gone."""
        with self._lock:
            lent = self._lent
            if lent is None or (connection is not None and lent is not connection):
                return
            if connection is None and self._pumping:
                return
            self._lent = None
            if self._parked is lent:
                self._parked = None
        lent.close()

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

    def _serve(self) -> None:
        """The worker's I/O thread: its Runtime API and its output, until the output ends."""
        assert self._process is not None and self._process.stdout is not None
        try:
            fd = self._process.stdout.fileno()
            os.set_blocking(fd, False)
            self._transport.serve(fd)
        except (OSError, ValueError):
            self._transport.stop()
        finally:
            code = None
            if self._process is not None:
                try:
                    code = self._process.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    code = None
            with self._lock:
                target = self.current
            self._forget_process()
            self.clock.close(target)
            if target is not None:
                target.finish("exit", exit_code=code)
                target.logs_closed.set()
            self.dead.set()

    def _on_output(self) -> bool:
        self.drain_output()
        return not self._eof

    def drain_output(self) -> int:
        """Read what the pipe holds now, without blocking (the reader thread, the Runtime API
        thread when an answer arrives, or the endpoint's thread while it waits for one),
        attributing each line to the invocation in hand; returns how many bytes were read."""
        process = self._process
        read = 0
        if process is None or process.stdout is None:
            return read
        with self._read_lock:
            while not self._eof:
                try:
                    chunk = os.read(process.stdout.fileno(), READ_CHUNK)
                except (BlockingIOError, InterruptedError):
                    return read
                except (OSError, ValueError):
                    chunk = b""
                if not chunk:
                    self._eof = True
                    if self._partial:
                        self._line(self._partial)
                        self._partial = b""
                    return read
                read += len(chunk)
                self._feed(chunk)
        return read

    def _feed(self, chunk: bytes) -> None:
        data = self._partial + chunk if self._partial else chunk
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                break
            self._line(data[start : end + 1])
            start = end + 1
        rest = data[start:]
        if len(rest) > READ_CHUNK:
            # A very long line goes out in pieces (as readline(READ_CHUNK) gave it), keeping a
            # tail that could hold the start of a sentinel.
            keep = len(SENTINEL) + 64
            self._line(rest[:-keep])
            rest = rest[-keep:]
        self._partial = rest

    def _line(self, line: bytes) -> None:
        at = line.find(SENTINEL)
        with self._lock:
            target = self.current
        if at < 0 and STOP_MARK in line:
            mark_at = line.find(STOP_MARK)
            if self.clock.feed(line, target):
                if mark_at > 0:  # the handler's unfinished line before it
                    self._line(line[:mark_at])
                return
        with self._lock:
            target = self.current
            buffer = target.logs if target is not None else self._pending
            if at < 0:
                buffer.add_raw(line)
                return
            if at > 0:
                buffer.add_raw(line[:at])
        if target is not None:
            target.logs_closed.set()

    def lost_before_start(self, invocation: Invocation) -> bool:
        """Whether a warm worker died before it took ``invocation`` in hand (killed while idle):
        the invocation never ran and can be given to a fresh worker, unnoticed."""
        return invocation.outcome == "exit" and not self.taken.is_set() and self.invocations > 1

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
        self._forget_process()
        if process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
        self._transport.stop()

    def _forget_process(self) -> None:
        self._drop_lent()
        with self._lock:
            self._parked = None
            status_fd, self._status_fd = self._status_fd, None
        if status_fd is not None:
            with contextlib.suppress(OSError):
                os.close(status_fd)

    def max_rss_mb(self) -> int | None:
        """Peak resident memory of the process (Linux /proc), for the REPORT line. The status
        file is opened once per worker and read again in place (an open per invoke costs more
        than the read)."""
        with self._lock:
            if self._status_fd is None and self.pid is not None and not self.dead.is_set():
                try:
                    self._status_fd = os.open(f"/proc/{self.pid}/status", os.O_RDONLY)
                except OSError:
                    return None
            if self._status_fd is None:
                return None
            try:
                data = os.pread(self._status_fd, 8192, 0)
            except OSError:
                return None
        at = data.find(b"VmHWM:")
        if at < 0:
            return None
        try:
            return int(data[at + 6 : data.index(b"kB", at)]) // 1024
        except ValueError:
            return None
