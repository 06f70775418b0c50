"""The embedded endpoint: the Lambda Invoke API, as `sam local start-lambda` speaks it.

HTTP is h11's, one thread per connection (http_server.py): an invocation blocks its connection's
thread while a worker runs it, the endpoint runs the same under pytest, under the engine's asyncio
loop (it has its own threads) and under `cfn-debug serve`. Before a body is read, every request
meets guard.py's checks (no browser, no foreign Host name) and Lambda's 6 MB payload limit.
"""

from __future__ import annotations

import base64
import errno
import functools
import json
import re
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import unquote

from cfn_debug.aws_calls import calls_from_dicts, redact_call_dicts
from cfn_debug.endpoint.debugchannel import DebugChannel, DebugSession
from cfn_debug.endpoint.debughook import (
    BREAK_AT_ENV,
    BREAK_ENTRY_ENV,
    DEBUGPY_PATH_ENV,
    DEBUGPY_PORT_ENV,
)
from cfn_debug.endpoint.guard import browser_header, host_allowed
from cfn_debug.endpoint.http_server import HttpServer, Reply, Request
from cfn_debug.endpoint.logs import LogBuffer, LogStore
from cfn_debug.endpoint.pool import FunctionPool, function_arn, lambda_environment
from cfn_debug.endpoint.pyenv import ProgressCallback, interpreter_for
from cfn_debug.endpoint.runtimes import Runtime, RuntimeOptions, project_language, runtime_for
from cfn_debug.endpoint.runtimes.handler_request import RequestRefused
from cfn_debug.endpoint.runtimes.python import PythonRuntime
from cfn_debug.endpoint.template import FunctionSpec, env_string, load_functions
from cfn_debug.endpoint.worker import Invocation, Worker
from cfn_debug.errors import EndpointError
from cfn_debug.text.redact import credential_values
from cfn_debug.text.terminal import printable

INVOKE_ROUTE = re.compile(r"^/2015-03-31/functions/(?P<name>[^/]+)/invocations$")
#: cfn-debug's own route: one invocation's logs and AWS calls, by request id (`serve` clients).
DETAILS_PATH = "/_cfn_debug/invocations/"
#: The header an invocation's answer names that route in; other endpoints do not send it.
DETAILS_HEADER = "X-Cfn-Debug-Details"
#: Milliseconds the handler spent stopped in a debugger (not its time); sent when any.
STOPPED_HEADER = "X-Cfn-Debug-Stopped-Ms"
#: "quit": the user ended the invocation from the debugger (pdb's q): not the handler's crash.
DEBUGGER_HEADER = "X-Cfn-Debug-Debugger"
#: The header an answer says in how long of its time the runtime started (the Java runtime's
#: JVM), in ms: not the handler's time.
RUNTIME_START_HEADER = "X-Cfn-Debug-Runtime-Start-Ms"
TAIL_BYTES = 4096
#: Lambda's limit on a synchronous invocation's request payload (6 MiB).
MAX_REQUEST_BYTES = 6 * 1024 * 1024
#: A client that takes longer than this to send a request's head (or stalls in its body) is dropped.
HEADER_TIMEOUT_S = 10.0


def _error_body(error_type: str, message: str) -> bytes:
    return json.dumps({"Type": error_type, "Message": message}).encode()


def _function_name(raw: str) -> str:
    """The function name from a name, a partial ARN or a full ARN (a qualifier is ignored)."""
    name = unquote(raw)
    if ":function:" in name:
        name = name.split(":function:", 1)[1]
    elif name.startswith("function:"):
        name = name[len("function:") :]
    return name.split(":", 1)[0]


class _InvokeApi:
    """The Invoke API's routes and errors over the HTTP transport (http_server.py)."""

    def __init__(self, endpoint: EmbeddedEndpoint) -> None:
        self.endpoint = endpoint

    def screen(self, request: Request) -> Reply | None:
        """Refuse, before the body is read, what must never reach a handler (see guard.py)."""
        hosts = [value for name, value in request.headers if name == "host"]
        if len(hosts) > 1 or not host_allowed(hosts[0] if hosts else None, self.endpoint.host):
            shown = printable_host(hosts[-1]) if hosts else ""
            return _service_error(
                403,
                "AccessDeniedException",
                "User",
                f"Host {shown!r} is not allowed: this endpoint answers only requests addressed "
                "to a loopback name or address or the address it is bound to "
                "(DNS rebinding protection)",
            )
        header = browser_header(request.headers)
        if header is not None:
            return _service_error(
                403,
                "AccessDeniedException",
                "User",
                f"requests from a web browser are refused (the request carries {header}): "
                "no web page may invoke a handler",
            )
        if not request.target.startswith("/"):
            return _service_error(
                400, "InvalidRequestContent", "User", "expected a path such as /2015-03-31/..."
            )
        return None

    def handle(self, request: Request) -> Reply:
        request_id = str(uuid.uuid4())
        if request.method == "GET" and request.target.startswith(DETAILS_PATH):
            return self._details(request, request_id)
        if request.method == "GET":
            return self._get(request)
        if request.method != "POST":
            return _method_not_allowed()
        try:
            return self._invoke(request, request_id)
        except Exception as error:  # the endpoint must outlive any one request's failure
            reply = _service_error(500, "ServiceException", "Service", str(error), request_id)
            reply.close = True
            return reply

    def _get(self, request: Request) -> Reply:
        """GET routes (none of the Invoke API's own; cfn-debug's may live here)."""
        return _method_not_allowed()

    def _invoke(self, request: Request, request_id: str) -> Reply:
        body = request.body
        path, _, query = request.target.partition("?")
        match = INVOKE_ROUTE.match(path)
        if match is None:
            return _service_error(
                404, "LocalServiceException", "LocalService", "PathNotFoundException", request_id
            )
        endpoint = self.endpoint
        name = _function_name(match.group("name"))
        pool = endpoint.pool(name)
        if pool is None:
            return _service_error(
                404,
                "ResourceNotFound",
                "User",
                f"Function not found: {function_arn(name)}",
                request_id,
            )
        if query:
            return _service_error(
                400,
                "InvalidRequestContent",
                "User",
                "Query Parameters are not supported",
                request_id,
            )
        invocation_type = request.header("x-amz-invocation-type", "RequestResponse")
        if invocation_type != "RequestResponse":
            return _service_error(
                501,
                "NotImplemented",
                "LocalService",
                f"invocation-type: {invocation_type} is not supported. "
                "RequestResponse is only supported.",
                request_id,
            )
        secrets: tuple[str, ...] = ()
        if not body.strip():
            body = b"{}"
        else:
            try:
                secrets = credential_values(json.loads(body))
            except (ValueError, RecursionError):
                return _service_error(
                    400,
                    "InvalidRequestContent",
                    "User",
                    "Could not parse request body into json: No JSON object could be decoded",
                    request_id,
                )
        tail = request.header("x-amz-log-type", "None") == "Tail"
        later: list[Callable[[], None]] = []
        status, payload, headers = endpoint.invoke(
            pool, request_id, body, tail=tail, secrets=secrets, defer=later.append
        )
        reply = Reply(status, payload, {"x-amzn-RequestId": request_id, **headers})
        if later:  # the runtime's 202 and the log lines, once the answer is sent
            reply.after = later[0] if len(later) == 1 else functools.partial(_run_all, later)
        return reply

    def _details(self, request: Request, request_id: str) -> Reply:
        """cfn-debug's own route: one invocation's logs and AWS calls (for `run --endpoint`)."""
        wanted = unquote(request.target[len(DETAILS_PATH) :].partition("?")[0])
        endpoint = self.endpoint
        details: dict[str, Any] = {
            "logs": endpoint.logs_for(wanted),
            "aws_calls": endpoint.aws_calls_for(wanted),
        }
        note = endpoint.aws_calls_note_for(wanted)
        if note is not None:
            details["aws_calls_note"] = note
        return Reply(200, json.dumps(details).encode(), {"x-amzn-RequestId": request_id})


def _run_all(work: list[Callable[[], None]]) -> None:
    """Each of ``work`` in order; one's failure does not keep the rest from running."""
    for item in work:
        try:
            item()
        except Exception:
            continue


def _service_error(
    status: int, error_type: str, kind: str, message: str, request_id: str | None = None
) -> Reply:
    """An Invoke API error as SAM answers it: x-amzn-errortype and {"Type", "Message"}."""
    return Reply(
        status,
        _error_body(kind, message),
        {"x-amzn-RequestId": request_id or str(uuid.uuid4()), "x-amzn-errortype": error_type},
    )


def _method_not_allowed() -> Reply:
    return _service_error(
        405, "LocalServiceException", "LocalService", "MethodNotAllowedException", "-"
    )


def printable_host(value: str) -> str:
    """A Host header shortened and with control characters escaped, for an error message."""
    return value[:100].encode("ascii", "backslashreplace").decode("ascii")


def payload_too_large() -> Reply:
    """Lambda's answer to a synchronous payload over 6 MB (6,291,456 bytes)."""
    return _service_error(
        413,
        "RequestEntityTooLargeException",
        "User",
        f"Request must be smaller than {MAX_REQUEST_BYTES} bytes for the InvokeFunction operation",
    )


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
            api = _InvokeApi(self)
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
                _error_body("User", refused.message),
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
                _error_body("Service", "ServiceException"),
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
    try:
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
