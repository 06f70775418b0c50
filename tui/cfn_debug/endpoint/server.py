"""The embedded endpoint: the Lambda Invoke API, as `sam local start-lambda` speaks it.

HTTP is h11's, one thread per connection (http_server.py): an invocation blocks its connection's
thread while a worker runs it, the endpoint runs the same under pytest, under the engine's asyncio
loop (it has its own threads) and under `cfn-debug serve`. Before a body is read, every request
meets guard.py's checks (no browser, no foreign Host name) and Lambda's 6 MB payload limit; the
routes and their errors are invoke_api.py's, the invocation (a warm worker per function, its log
lines and AWS calls, Lambda's REPORT lines) this module's.
"""

from __future__ import annotations

import base64
import errno
import functools
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import Any

from cfn_debug.aws_calls import calls_from_dicts
from cfn_debug.endpoint.debugchannel import DebugChannel, DebugSession
from cfn_debug.endpoint.debughook import (
    BREAK_AT_ENV,
    BREAK_ENTRY_ENV,
    DEBUGPY_PATH_ENV,
    DEBUGPY_PORT_ENV,
)
from cfn_debug.endpoint.http_server import HttpServer
from cfn_debug.endpoint.invocation import Invocation
from cfn_debug.endpoint.invoke_api import (
    DETAILS_PATH,
    MAX_REQUEST_BYTES,
    InvokeApi,
    error_body,
    payload_too_large,
)
from cfn_debug.endpoint.logs import LogBuffer, LogStore
from cfn_debug.endpoint.pool import FunctionPool, function_arn, lambda_environment
from cfn_debug.endpoint.pyenv import ProgressCallback, interpreter_for
from cfn_debug.endpoint.runtimes import Runtime, RuntimeOptions, project_language, runtime_for
from cfn_debug.endpoint.runtimes.handler_request import RequestRefused
from cfn_debug.endpoint.runtimes.python import PythonRuntime
from cfn_debug.endpoint.template import FunctionSpec, env_string, load_functions
from cfn_debug.endpoint.worker import Worker
from cfn_debug.errors import EndpointError
from cfn_debug.step_calls import redact_call_dicts
from cfn_debug.text.terminal import printable

#: The header an invocation's answer names its details route in (``DETAILS_PATH`` + request
#: id); other endpoints do not send it.
DETAILS_HEADER = "X-Cfn-Debug-Details"
#: Milliseconds the handler spent stopped in a debugger (not its time); sent when any.
STOPPED_HEADER = "X-Cfn-Debug-Stopped-Ms"
#: "quit": the user ended the invocation from the debugger (pdb's q): not the handler's crash.
DEBUGGER_HEADER = "X-Cfn-Debug-Debugger"
#: The header an answer says in how long of its time the runtime started (the Java runtime's
#: JVM), in ms: not the handler's time.
RUNTIME_START_HEADER = "X-Cfn-Debug-Runtime-Start-Ms"
TAIL_BYTES = 4096
#: A client that takes longer than this to send a request's head (or stalls in its body) is dropped.
HEADER_TIMEOUT_S = 10.0


class EmbeddedEndpoint:
    """A Docker-free `sam local start-lambda` for the Python functions of one project."""

    def __init__(
        self,
        project_dir: Path,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        env_vars: dict[str, dict[str, str]] | None = None,
        on_log: Callable[[str], None] | None = None,
        on_logs: Callable[[list[str]], None] | None = None,
        python: str | Path | None = None,
        on_env_progress: ProgressCallback | None = None,
        header_timeout_s: float = HEADER_TIMEOUT_S,
        debugger: Callable[[DebugSession], None] | None = None,
        debug_port: int | None = None,
        break_at: Sequence[tuple[str, int]] = (),
        node: str | None = None,
    ) -> None:
        self.project_dir = Path(project_dir)
        # pdb in the workers: each worker's session goes to ``debugger`` (a terminal, the
        # dashboard's panel); without one a breakpoint is skipped with a notice (debughook).
        self.debugger = debugger
        self.debug_port = debug_port  # debugpy in the worker on 127.0.0.1:PORT (--debug-port)
        self.break_at = list(break_at)  # pdb breakpoints set in every worker (--break-at)
        self._channel: DebugChannel | None = None
        self.python_choice = python  # --python, else the project's (cached) environment
        self.node_choice = node  # --node, else `node` on PATH
        self.on_env_progress = on_env_progress
        self.python: Path | None = None
        self.host = host
        self.port = port
        self.functions: dict[str, FunctionSpec] = load_functions(self.project_dir)
        self.env_vars = _check_env_vars(env_vars)
        # Each line of each invocation, in order, before its answer is sent (tests count them).
        self.on_log = on_log
        # Or all the lines of one invocation at once, once its answer is sent (`serve`: one write
        # per invocation, off the answer's path).
        self.on_logs = on_logs
        self.header_timeout_s = header_timeout_s
        self.url = ""
        self._pools: dict[str, FunctionPool] = {}
        #: function name -> its runtime (runtimes/: how its workers are built and started)
        self.runtimes: dict[str, Runtime] = {}
        self._logs: LogStore[str] = LogStore()
        self._aws_calls: LogStore[dict[str, Any]] = LogStore()
        #: request id -> [the function that ran it], for the details route's aws_calls_note
        self._functions_by_request: LogStore[str] = LogStore()
        self._server: HttpServer | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._log_lock = threading.Lock()

    # --- lifecycle ---

    def start(self) -> None:
        with self._lock:
            if self._server is not None:
                return
            runtimes = self._runtimes()
            api = InvokeApi(self)
            try:
                server = HttpServer(
                    (self.host, self.port),
                    api.handle,
                    screen=api.screen,
                    max_body=MAX_REQUEST_BYTES,
                    too_large=payload_too_large,
                    header_timeout_s=self.header_timeout_s,
                )
            except OSError as error:
                if error.errno in (errno.EADDRINUSE, errno.EACCES):
                    reason = "is in use" if error.errno == errno.EADDRINUSE else "is not allowed"
                    raise EndpointError(
                        f"port {self.port} {reason} on {self.host} "
                        f"(stop whatever holds it, or choose another with --port)"
                    ) from None
                raise EndpointError(
                    f"cannot listen on {self.host}:{self.port}: {error.strerror or error}"
                ) from None
            try:
                debug_env = self._debug_env()
            except BaseException:
                server.server_close()
                raise
            self._pools = {
                name: FunctionPool(
                    spec,
                    {**lambda_environment(spec, self.env_vars), **debug_env},
                    python=self.python,
                    runtime=runtimes[name],
                )
                for name, spec in self.functions.items()
            }
            self.runtimes = runtimes
            self._server = server
            host, port = server.server_address[:2]
            self.port = int(port)
            shown = f"[{host}]" if ":" in str(host) else str(host)
            self.url = f"http://{shown}:{self.port}"
            self._thread = threading.Thread(
                target=server.serve_forever,
                kwargs={"poll_interval": 0.2},
                name="cfn-debug-endpoint",
                daemon=True,
            )
            self._thread.start()

    def _runtimes(self) -> dict[str, Runtime]:
        """Each function's runtime, its toolchain checked and its code built (once per project;
        a later start finds it fresh); the Python environment chosen only when a function runs
        on Python. An EndpointError (exit 2) names what cannot run or build."""
        options = RuntimeOptions(
            python=self.python_choice,
            node=self.node_choice,
            progress=self.on_env_progress,
            debug_port=self.debug_port,  # Node: --inspect=127.0.0.1:PORT (Python: debughook)
        )
        language = project_language(self.project_dir)
        runtimes = {
            name: runtime_for(spec, self.project_dir, options, language=language)
            for name, spec in self.functions.items()
        }
        for runtime in runtimes.values():
            runtime.check()
        if self.python is None and any(r.forks_python for r in runtimes.values()):
            self.python = interpreter_for(
                self.project_dir, python=self.python_choice, progress=self.on_env_progress
            )
        for runtime in runtimes.values():
            if isinstance(runtime, PythonRuntime) and self.python is not None:
                runtime.python = str(self.python)
            runtime.prepare()
        return runtimes

    def aws_calls_note(self, function: str) -> str | None:
        """What a function's steps say instead of AWS calls when its runtime records none."""
        runtime = self.runtimes.get(function)
        return runtime.aws_calls_note if runtime is not None else None

    def aws_calls_note_for(self, request_id: str) -> str | None:
        """aws_calls_note of the function that ran that invocation (one of the last 1,000)."""
        function = self._functions_by_request.get(request_id)
        return self.aws_calls_note(function[0]) if function else None

    def stop(self) -> None:
        with self._lock:
            server, self._server = self._server, None
            pools, self._pools = self._pools, {}
            channel, self._channel = self._channel, None
        if server is not None:
            server.shutdown()
            server.server_close()
        for pool in pools.values():
            pool.close()
        if channel is not None:
            channel.stop()

    def _debug_env(self) -> dict[str, str]:
        """What the workers are given to stop in a debugger (read by debughook, which takes the
        variables out of the handler's environment)."""
        env: dict[str, str] = {}
        if self.debug_port is not None:
            env[DEBUGPY_PORT_ENV] = str(self.debug_port)
            env[DEBUGPY_PATH_ENV] = debugpy_path()  # EndpointError when not installed
        if self.debugger is not None:
            self._channel = DebugChannel(self.debugger)
            self._channel.start()
            env.update(self._channel.env())
        if self.break_at:
            env[BREAK_AT_ENV] = json.dumps([[path, line] for path, line in self.break_at])
        return env

    def __enter__(self) -> EmbeddedEndpoint:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def restart_workers(self, *, prewarm: bool = False) -> None:
        """Replace every warm worker (watch mode calls this after a save, with ``prewarm``: the
        functions that have run get their next worker started at once; see FunctionPool)."""
        for pool in list(self._pools.values()):
            pool.restart(prewarm=prewarm)

    def debug_next(self, *, entry: str | None = None, at: tuple[str, int] | None = None) -> None:
        """Replace every warm worker with one whose pdb stops at the first function of ``entry``
        that runs, or at ``at`` (besides --break-at's); with neither, back to --break-at's only
        (a replay under the debugger arms this before its invocation and disarms it after)."""
        points = [*self.break_at, *([at] if at is not None else [])]
        for pool in list(self._pools.values()):
            env = {k: v for k, v in pool.env.items() if k not in (BREAK_AT_ENV, BREAK_ENTRY_ENV)}
            if points:
                env[BREAK_AT_ENV] = json.dumps([[path, line] for path, line in points])
            if entry is not None:
                env[BREAK_ENTRY_ENV] = entry
            pool.env = env
            pool.restart()

    def logs_for(self, request_id: str) -> list[str]:
        """The handler's lines of that invocation (one of the last 1,000), else []."""
        return self._logs.get(request_id)

    def aws_calls_for(self, request_id: str) -> list[dict[str, Any]]:
        """The AWS calls the handler made in that invocation (see aws_recorder), else []."""
        return self._aws_calls.get(request_id)

    def pool(self, name: str) -> FunctionPool | None:
        return self._pools.get(name)

    # --- one invocation ---

    def invoke(
        self,
        pool: FunctionPool,
        request_id: str,
        body: bytes,
        *,
        tail: bool = False,
        secrets: tuple[str, ...] = (),
        defer: Callable[[Callable[[], None]], None] | None = None,
    ) -> tuple[int, bytes, dict[str, str]]:
        """Run one invocation; returns (HTTP status, body, extra headers) as Lambda answers.

        The handler's lines are kept, tailed and printed with credentials redacted: by pattern,
        and by value for the ``secrets`` the request carried (see redact.credential_values).
        Printing them (with the START/END/REPORT lines) to ``on_logs`` is handed to ``defer``
        when given, to be done once the answer is sent: formatting and writing a dozen lines cost
        as much as the rest of the endpoint's side of a warm invoke. Every fact they show is
        taken before this returns. ``on_log`` gets them before this returns, as it always did.
        """
        spec = pool.spec
        try:
            body = pool.runtime.adapt_request(body)
        except RequestRefused as refused:
            return (
                refused.status,
                error_body("User", refused.message),
                {"x-amzn-errortype": refused.error_type},
            )
        invocation = Invocation(
            request_id, body, function_arn(spec.name), spec.timeout_s, logs=LogBuffer(secrets)
        )
        started = time.monotonic()
        try:
            worker = pool.invoke(invocation)
        except RuntimeError:
            invocation.acknowledge()
            return (
                500,
                error_body("Service", "ServiceException"),
                {"x-amzn-errortype": "ServiceException"},
            )
        if defer is not None:
            defer(invocation.acknowledge)
        else:
            invocation.acknowledge()
        headers: dict[str, str] = {"X-Amz-Executed-Version": "$LATEST"}
        outcome = invocation.outcome
        if outcome == "response":
            payload = invocation.payload
        else:
            headers["X-Amz-Function-Error"] = "Unhandled"
            payload = self._error_payload(invocation)
        lines = invocation.logs.lines()  # redacted, by pattern and by the request's values
        self._logs.put(request_id, lines)
        calls = redact_call_dicts(invocation.logs.calls(), secrets)
        self._aws_calls.put(request_id, calls)
        if not calls and pool.runtime.aws_calls_note is not None:
            self._functions_by_request.put(request_id, [spec.name])
        headers[DETAILS_HEADER] = DETAILS_PATH + request_id
        if invocation.stopped_s > 0:
            headers[STOPPED_HEADER] = f"{invocation.stopped_s * 1000:.1f}"
        if invocation.debugger_quit:
            headers[DEBUGGER_HEADER] = "quit"
        if invocation.runtime_start_ms is not None:
            headers[RUNTIME_START_HEADER] = f"{invocation.runtime_start_ms:.1f}"
        printing = self.on_log is not None or self.on_logs is not None
        if not tail and not printing:
            return 200, payload, headers
        facts = _ReportFacts.of(invocation, worker, started)
        if tail:
            report = facts.lines()
            text = "\n".join([report[0], *lines, *report[1:]]) + "\n"
            data = text.encode("utf-8")[-TAIL_BYTES:]
            headers["X-Amz-Log-Result"] = base64.b64encode(data).decode("ascii")
        if printing:
            if defer is not None and self.on_logs is not None:
                defer(functools.partial(self._print, facts, lines, calls))
            else:
                self._print(facts, lines, calls)
        return 200, payload, headers

    def _print(self, facts: _ReportFacts, lines: list[str], calls: list[dict[str, Any]]) -> None:
        """One invocation's lines to on_logs (at once) or on_log (one by one), kept together."""
        report = facts.lines()
        batch = [report[0], *lines]
        batch += [
            printable(f"[aws] {c.describe()} {c.duration_ms:.1f} ms")
            for c in calls_from_dicts(calls)
        ]
        batch += report[1:]
        with self._log_lock:
            if self.on_logs is not None:
                self.on_logs(batch)
            elif self.on_log is not None:
                for line in batch:
                    self.on_log(line)

    def _error_payload(self, invocation: Invocation) -> bytes:
        rid = invocation.request_id
        if invocation.outcome in ("error", "init_error"):
            return (
                invocation.payload
                or json.dumps(
                    {"errorMessage": "", "errorType": invocation.error_type or "Unhandled"}
                ).encode()
            )
        if invocation.outcome == "timeout":
            stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
            message = f"{stamp} {rid} Task timed out after {invocation.timeout_s:.2f} seconds"
            invocation.logs.add(message)
            return json.dumps({"errorMessage": message}).encode()
        if invocation.outcome == "oom":
            # Lambda stops a function past its MemorySize and reports it so.
            message = f"RequestId: {rid} Error: Runtime exited with error: signal: killed"
            invocation.logs.add(message)
            invocation.logs.add("Runtime.OutOfMemory")
            return json.dumps(
                {"errorMessage": message, "errorType": "Runtime.OutOfMemory"}
            ).encode()
        status = exit_description(invocation.exit_code)
        return json.dumps(
            {
                "errorMessage": f"RequestId: {rid} Error: Runtime exited with error: {status}",
                "errorType": "Runtime.ExitError",
            }
        ).encode()


@dataclass(frozen=True)
class _ReportFacts:
    """What Lambda's START/END/REPORT lines of one invocation say, taken when it ended (the
    worker may run another invocation before the lines are written)."""

    request_id: str
    duration_ms: float
    memory_mb: int
    max_rss_mb: int | None
    init_ms: float | None

    @classmethod
    def of(cls, invocation: Invocation, worker: Worker, started: float) -> _ReportFacts:
        end = invocation.ended or time.monotonic()
        began = invocation.started or started
        init_ms = None
        if worker.invocations == 1 and invocation.started:
            init_ms = (invocation.started - worker.spawned_at) * 1000
        return cls(
            invocation.request_id,
            max(end - began - invocation.stopped_s, 0.0) * 1000,
            worker.spec.memory_mb,
            worker.max_rss_mb(),
            init_ms,
        )

    def lines(self) -> list[str]:
        rid, duration_ms = self.request_id, self.duration_ms
        report = f"REPORT RequestId: {rid}\tDuration: {duration_ms:.2f} ms\t"
        report += f"Billed Duration: {int(duration_ms) + 1} ms\t"
        report += f"Memory Size: {self.memory_mb} MB\t"
        if self.max_rss_mb is not None:
            report += f"Max Memory Used: {self.max_rss_mb} MB\t"
        if self.init_ms is not None:
            report += f"Init Duration: {self.init_ms:.2f} ms\t"
        return [
            f"START RequestId: {rid} Version: $LATEST",
            f"END RequestId: {rid}",
            report,
        ]


#: How Lambda's runtime (Go's os.ProcessState) names the signal that ended a process.
SIGNAL_NAMES = {
    1: "hangup",
    2: "interrupt",
    3: "quit",
    4: "illegal instruction",
    5: "trace/breakpoint trap",
    6: "aborted",
    7: "bus error",
    8: "floating point exception",
    9: "killed",
    11: "segmentation fault",
    13: "broken pipe",
    14: "alarm clock",
    15: "terminated",
}


def debugpy_path() -> str:
    """The directory cfn-debug's own debugpy is imported from (a worker whose interpreter has
    none imports it from there); EndpointError when it is not installed."""
    try:  # lazy: debugpy (optional) only for --debug-port
        import debugpy
    except ImportError:
        raise EndpointError(
            "--debug-port needs debugpy, which is not installed: pip install 'cfn-debug[debug]' "
            "(or pip install debugpy)"
        ) from None
    return str(Path(debugpy.__file__).resolve().parent.parent)


def exit_description(code: int | None) -> str:
    """ "exit status 3" or "signal: killed", as Lambda words "Runtime exited with error: ..."."""
    if code is None:
        return "signal: killed"  # the reader could not learn the status: it was killed
    if code >= 0:
        return f"exit status {code}"
    return f"signal: {SIGNAL_NAMES.get(-code, f'signal {-code}')}"


def _check_env_vars(
    env_vars: dict[str, dict[str, str]] | None,
) -> dict[str, dict[str, str]]:
    """Validate the --env-vars structure: {"Parameters"|FunctionName: {NAME: value}}."""
    if env_vars is None:
        return {}
    if not isinstance(env_vars, dict):
        raise EndpointError(
            'expected an object such as {"FunctionName": {"VAR": "value"}}', field="env_vars"
        )
    checked: dict[str, dict[str, str]] = {}
    for section, variables in env_vars.items():
        if not isinstance(variables, dict):
            raise EndpointError(
                f'expected an object of variables such as {{"VAR": "value"}}, got {variables!r}',
                field=str(section),
            )
        values: dict[str, str] = {}
        for key, value in variables.items():
            if isinstance(value, (dict, list)):
                raise EndpointError(
                    f"expected a string, number or boolean, got {value!r}",
                    field=f"{section}.{key}",
                )
            values[str(key)] = env_string(value)
        checked[str(section)] = values
    return checked
