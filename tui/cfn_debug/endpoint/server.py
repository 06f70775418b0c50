"""The embedded endpoint: the Lambda Invoke API, as `sam local start-lambda` speaks it.

Server choice: the standard library's ThreadingHTTPServer with HTTP/1.1 keep-alive. An invocation
blocks its connection's thread while a worker runs it, which is exactly the model threads give for
free; no dependency is added, and the endpoint runs the same under pytest, under the engine's
asyncio loop (it has its own threads) and under `cfn-debug serve`. Responses go out in one write
with TCP_NODELAY, so keep-alive clients never wait on delayed ACKs.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import json
import re
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import unquote

from cfn_debug.endpoint.logs import LogStore
from cfn_debug.endpoint.pool import FunctionPool, function_arn, lambda_environment
from cfn_debug.endpoint.template import FunctionSpec, env_string, load_functions
from cfn_debug.endpoint.worker import Invocation, Worker, write_response
from cfn_debug.errors import EndpointError
from cfn_debug.redact import credential_values, redact_lines

INVOKE_ROUTE = re.compile(r"^/2015-03-31/functions/(?P<name>[^/]+)/invocations$")
TAIL_BYTES = 4096


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


class _InvokeHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _InvokeServer

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: object) -> None:
        return

    def _send(
        self, status: int, body: bytes, request_id: str, headers: dict[str, str] | None = None
    ) -> None:
        write_response(
            self.wfile, status, body, {"x-amzn-RequestId": request_id, **(headers or {})}
        )

    def _service_error(
        self, status: int, error_type: str, kind: str, message: str, request_id: str
    ) -> None:
        self._send(status, _error_body(kind, message), request_id, {"x-amzn-errortype": error_type})

    def do_POST(self) -> None:
        request_id = str(uuid.uuid4())
        try:
            self._invoke(request_id)
        except (ConnectionError, TimeoutError):
            raise
        except Exception as error:  # the endpoint must outlive any one request's failure
            self.close_connection = True
            with contextlib.suppress(OSError):
                self._service_error(500, "ServiceException", "Service", str(error), request_id)

    def _invoke(self, request_id: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path, _, query = self.path.partition("?")
        match = INVOKE_ROUTE.match(path)
        if match is None:
            self._service_error(
                404, "LocalServiceException", "LocalService", "PathNotFoundException", request_id
            )
            return
        endpoint = self.server.endpoint
        name = _function_name(match.group("name"))
        pool = endpoint.pool(name)
        if pool is None:
            self._service_error(
                404,
                "ResourceNotFound",
                "User",
                f"Function not found: {function_arn(name)}",
                request_id,
            )
            return
        if query:
            self._service_error(
                400,
                "InvalidRequestContent",
                "User",
                "Query Parameters are not supported",
                request_id,
            )
            return
        invocation_type = self.headers.get("X-Amz-Invocation-Type", "RequestResponse")
        if invocation_type != "RequestResponse":
            self._service_error(
                501,
                "NotImplemented",
                "LocalService",
                f"invocation-type: {invocation_type} is not supported. "
                "RequestResponse is only supported.",
                request_id,
            )
            return
        secrets: tuple[str, ...] = ()
        if not body.strip():
            body = b"{}"
        else:
            try:
                secrets = credential_values(json.loads(body))
            except (ValueError, RecursionError):
                self._service_error(
                    400,
                    "InvalidRequestContent",
                    "User",
                    "Could not parse request body into json: No JSON object could be decoded",
                    request_id,
                )
                return
        tail = self.headers.get("X-Amz-Log-Type", "None") == "Tail"
        status, payload, headers = endpoint.invoke(
            pool, request_id, body, tail=tail, secrets=secrets
        )
        self._send(status, payload, request_id, headers)

    def do_GET(self) -> None:
        self._service_error(
            405, "LocalServiceException", "LocalService", "MethodNotAllowedException", "-"
        )


class _InvokeServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False  # a second `serve` on the same port must fail, not share it
    request_queue_size = 64

    def __init__(self, address: tuple[str, int], endpoint: EmbeddedEndpoint) -> None:
        self.endpoint = endpoint
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _InvokeHandler)

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hangs up mid-request is not an endpoint failure."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


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
    ) -> None:
        self.project_dir = Path(project_dir)
        self.host = host
        self.port = port
        self.functions: dict[str, FunctionSpec] = load_functions(self.project_dir)
        self.env_vars = _check_env_vars(env_vars)
        self.on_log = on_log
        self.url = ""
        self._pools: dict[str, FunctionPool] = {}
        self._logs = LogStore()
        self._server: _InvokeServer | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._log_lock = threading.Lock()

    # --- lifecycle ---

    def start(self) -> None:
        with self._lock:
            if self._server is not None:
                return
            try:
                server = _InvokeServer((self.host, self.port), self)
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
            self._pools = {
                name: FunctionPool(spec, lambda_environment(spec, self.env_vars))
                for name, spec in self.functions.items()
            }
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

    def stop(self) -> None:
        with self._lock:
            server, self._server = self._server, None
            pools, self._pools = self._pools, {}
        if server is not None:
            server.shutdown()
            server.server_close()
        for pool in pools.values():
            pool.close()

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

    def logs_for(self, request_id: str) -> list[str]:
        """The handler's lines of that invocation (one of the last 1,000), else []."""
        return self._logs.get(request_id)

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
    ) -> tuple[int, bytes, dict[str, str]]:
        """Run one invocation; returns (HTTP status, body, extra headers) as Lambda answers.

        The handler's lines are kept, tailed and printed with credentials redacted: by pattern,
        and by value for the ``secrets`` the request carried (see redact.credential_values).
        """
        spec = pool.spec
        invocation = Invocation(request_id, body, function_arn(spec.name), spec.timeout_s)
        started = time.monotonic()
        try:
            worker = pool.invoke(invocation)
        except RuntimeError:
            return (
                500,
                _error_body("Service", "ServiceException"),
                {"x-amzn-errortype": "ServiceException"},
            )
        headers: dict[str, str] = {"X-Amz-Executed-Version": "$LATEST"}
        outcome = invocation.outcome
        if outcome == "response":
            payload = invocation.payload
        else:
            headers["X-Amz-Function-Error"] = "Unhandled"
            payload = self._error_payload(invocation)
        lines = redact_lines(invocation.logs.lines(), secrets)
        self._logs.put(request_id, lines)
        report = self._report_lines(invocation, worker, started)
        if tail:
            text = "\n".join([report[0], *lines, *report[1:]]) + "\n"
            data = text.encode("utf-8")[-TAIL_BYTES:]
            headers["X-Amz-Log-Result"] = base64.b64encode(data).decode("ascii")
        if self.on_log is not None:
            with self._log_lock:
                self.on_log(report[0])
                for line in lines:
                    self.on_log(line)
                for line in report[1:]:
                    self.on_log(line)
        return 200, payload, headers

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

    def _report_lines(self, invocation: Invocation, worker: Worker, started: float) -> list[str]:
        rid = invocation.request_id
        end = invocation.ended or time.monotonic()
        began = invocation.started or started
        duration_ms = max(end - began, 0.0) * 1000
        report = f"REPORT RequestId: {rid}\tDuration: {duration_ms:.2f} ms\t"
        report += f"Billed Duration: {int(duration_ms) + 1} ms\t"
        report += f"Memory Size: {worker.spec.memory_mb} MB\t"
        rss = worker.max_rss_mb()
        if rss is not None:
            report += f"Max Memory Used: {rss} MB\t"
        if worker.invocations == 1 and invocation.started:
            report += f"Init Duration: {(invocation.started - worker.spawned_at) * 1000:.2f} ms\t"
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
