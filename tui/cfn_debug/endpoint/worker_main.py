"""The program a warm worker runs: a Lambda runtime for one Python handler.

Started by the endpoint as ``python -u worker_main.py MODULE.ATTR`` (leading a process group of its
own in the endpoint's session, without the terminal: see ``leave_terminal``) with cwd = the code
directory and the Lambda environment (AWS_LAMBDA_RUNTIME_API pointing at the endpoint's runtime-API
listener for this worker). It uses AWS's own runtime client, awslambdaric, when it is importable and
CFN_DEBUG_BOOTSTRAP is not "portable"; otherwise a small portable loop that speaks the same Runtime
API and reports errors in the same shapes (errorMessage, errorType, requestId, stackTrace).

Log attribution: stderr is the same pipe as stdout, and before posting a response or an error the
worker flushes both streams and writes one sentinel line naming the request id. The endpoint reads
the pipe until that line, so every byte written for an invocation is attributed to it. The sentinel
goes through a private duplicate of the pipe taken at start (a high, close-on-exec descriptor), so
a handler that closes or redirects its stdout/stderr still ends its invocation on time.

This file imports nothing from cfn_debug: it runs with the handler's code directory first on
sys.path and must not shadow or be shadowed by anything there. Importing it does nothing.
"""

from __future__ import annotations

import contextlib
import fcntl
import http.client
import importlib.util
import json
import logging
import os
import sys
import termios
import time
import traceback
from types import ModuleType
from typing import Any

SENTINEL = "\x1e__cfn_debug_end__ "
BOOTSTRAP_ENV = "CFN_DEBUG_BOOTSTRAP"
#: Where the sentinel is written: fd 1 until keep_log_channel() duplicates it.
_LOG_FD = 1
_LOG_FD_FLOOR = 200


def keep_log_channel() -> None:
    """Duplicate the output pipe to a private descriptor for the sentinel."""
    global _LOG_FD
    try:
        _LOG_FD = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, _LOG_FD_FLOOR)
    except OSError:
        try:
            _LOG_FD = os.dup(1)  # not inherited by the handler's children either
        except OSError:
            _LOG_FD = 1


def leave_terminal() -> None:
    """Give up the controlling terminal, if the process has one, and stay in its session.

    A worker leads its own process group in the endpoint's session rather than a session of its
    own: on Linux a new session is also a new scheduler group (autogroup), and a worker in a group
    of its own was preempted by every hand-off to and from the endpoint and waited behind every
    other busy session on a loaded machine (the emulator's runtime shares the emulator's session).
    What a session of its own gave besides, no terminal to read, write or be signalled from, this
    gives: TIOCNOTTY detaches only the calling process when it does not lead the session."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return  # no controlling terminal (or no terminals at all)
    try:
        fcntl.ioctl(fd, termios.TIOCNOTTY)
    except OSError:
        pass
    finally:
        os.close(fd)


def mark_end(request_id: str) -> None:
    """Flush everything written so far and write the end-of-invocation sentinel line."""
    for stream in (sys.stderr, sys.stdout):
        try:
            stream.flush()
        except Exception:
            continue
    # If the handler closed even this descriptor, the endpoint's grace period covers it.
    with contextlib.suppress(OSError):
        os.write(_LOG_FD, f"{SENTINEL}{request_id}\n".encode())


def _prepare_path(code_dir: str) -> None:
    # sys.path[0] is this file's directory: replace it with the code directory, as Lambda has
    # /var/task first.
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    sys.path.insert(0, code_dir)


def run_awslambdaric(handler: str, bootstrap: ModuleType, runtime_client: ModuleType) -> None:
    """The handler run by awslambdaric's ``bootstrap`` with a ``runtime_client`` (its
    lambda_runtime_client module) that marks the end of each invocation."""

    class _MarkingClient(runtime_client.LambdaRuntimeClient):
        def post_invocation_result(
            self,
            invoke_id: str,
            result_data: Any,
            content_type: str = "application/json",
            invocation_id: str | None = None,
        ) -> None:
            mark_end(invoke_id)
            super().post_invocation_result(invoke_id, result_data, content_type, invocation_id)

        def post_invocation_error(
            self,
            invoke_id: str,
            error_response_data: Any,
            xray_fault: Any,
            invocation_id: str | None = None,
        ) -> None:
            mark_end(invoke_id)
            super().post_invocation_error(invoke_id, error_response_data, xray_fault, invocation_id)

        def post_init_error(
            self, error_response_data: Any, error_type_override: str | None = None
        ) -> None:
            mark_end("init")
            super().post_init_error(error_response_data, error_type_override)

    bootstrap.run(handler, _MarkingClient(os.environ["AWS_LAMBDA_RUNTIME_API"]))


def _record_aws_calls() -> None:
    """Load aws_recorder.py (beside this file, by path: nothing from cfn_debug is imported) and
    install it; a worker that cannot record AWS calls still runs the handler."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "aws_recorder.py")
    loaded = sys.modules.get("_cfn_debug_aws_recorder")  # a fork server may have loaded it
    if loaded is not None:
        loaded.install()
        return
    try:
        spec = importlib.util.spec_from_file_location("_cfn_debug_aws_recorder", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        module.install()
    except Exception as error:
        print(f"[cfn-debug] AWS calls are not recorded: {error}", file=sys.stderr)


def _write_mark(line: str) -> None:
    """One line of debughook's (STOPPED/RESUMED/QUIT) on the log channel."""
    with contextlib.suppress(OSError):
        os.write(_LOG_FD, (line + "\n").encode())


def load_debug_hook() -> Any:
    """debughook.py (beside this file, loaded by path as aws_recorder.py is), or None."""
    loaded = sys.modules.get("_cfn_debug_debughook")  # a fork server may have loaded it
    if loaded is not None:
        return loaded
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "debughook.py")
    try:
        spec = importlib.util.spec_from_file_location("_cfn_debug_debughook", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    except Exception as error:
        print(f"[cfn-debug] breakpoints are not routed: {error}", file=sys.stderr)
        return None
    return module


def _install_debug_hook(handler: str) -> None:
    """breakpoint(), pdb.set_trace(), --break-at and --debug-port: see debughook.py."""
    module = load_debug_hook()
    if module is not None:
        module.install(_write_mark, handler=handler)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: worker_main.py MODULE.ATTR", file=sys.stderr)
        return 2
    handler = argv[1]
    leave_terminal()
    keep_log_channel()
    _prepare_path(os.environ.get("LAMBDA_TASK_ROOT", os.getcwd()))
    _record_aws_calls()  # aws-calls hook: see aws_recorder.py
    _install_debug_hook(handler)
    if os.environ.get(BOOTSTRAP_ENV, "auto") != "portable":
        try:
            # lazy: the handler's own awslambdaric, when it has one (else the portable loop runs)
            from awslambdaric import bootstrap, lambda_runtime_client
        except ImportError:
            if os.environ.get(BOOTSTRAP_ENV) == "awslambdaric":
                raise
        else:
            run_awslambdaric(handler, bootstrap, lambda_runtime_client)
            return 0
    run_portable(handler, os.environ["AWS_LAMBDA_RUNTIME_API"])
    return 0


# --- the portable runtime loop (where awslambdaric is not installed, or when forced) ---

RUNTIME = "/2018-06-01/runtime"
ERROR_TYPE_HEADER = "Lambda-Runtime-Function-Error-Type"


class _Unbuffered:
    """What awslambdaric does to sys.stdout/sys.stderr: flush after every write."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def write(self, text: str) -> int:
        written = self._stream.write(text)
        self._stream.flush()
        return int(written or 0)

    def writelines(self, lines: Any) -> None:
        self._stream.writelines(lines)
        self._stream.flush()


class LambdaContext:
    """The context object a Python handler receives, with Lambda's attribute names."""

    def __init__(self, request_id: str, function_arn: str, deadline_ms: int) -> None:
        self.aws_request_id = request_id
        self.invoked_function_arn = function_arn
        self.function_name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME", "")
        self.function_version = os.environ.get("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        self.memory_limit_in_mb = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")
        self.log_group_name = os.environ.get("AWS_LAMBDA_LOG_GROUP_NAME", "")
        self.log_stream_name = os.environ.get("AWS_LAMBDA_LOG_STREAM_NAME", "")
        self.identity = None
        self.client_context = None
        self.tenant_id = None
        self._deadline_ms = deadline_ms

    def get_remaining_time_in_millis(self) -> int:
        return max(self._deadline_ms - int(time.time() * 1000), 0)


class _Fault(Exception):
    def __init__(self, error_type: str, message: str, trace: list[str] | None = None) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.trace = trace or []


_CURRENT_REQUEST_ID = ""


def _load_handler(handler: str) -> Any:
    try:
        module_name, attr = handler.rsplit(".", 1)
    except ValueError as error:
        raise _Fault("Runtime.MalformedHandlerName", f"Bad handler '{handler}': {error}") from None
    if module_name.split(".")[0] in sys.builtin_module_names:
        raise _Fault(
            "Runtime.BuiltInModuleConflict",
            f"Cannot use built-in module {module_name} as a handler module",
        )
    try:
        module = importlib.import_module(module_name.replace("/", "."))
    except ImportError as error:
        raise _Fault(
            "Runtime.ImportModuleError", f"Unable to import module '{module_name}': {error}"
        ) from None
    except SyntaxError as error:
        trace = [f'  File "{error.filename}" Line {error.lineno}\n    {error.text}']
        raise _Fault(
            "Runtime.UserCodeSyntaxError",
            f"Syntax error in module '{module_name}': {error}",
            trace,
        ) from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise _Fault(
            "Runtime.HandlerNotFound", f"Handler '{attr}' missing on module '{module_name}'"
        ) from None


def _error_body(message: str, error_type: str, trace: list[str], request_id: str) -> dict[str, Any]:
    return {
        "errorMessage": message,
        "errorType": error_type,
        "requestId": request_id,
        "stackTrace": trace,
    }


def _exception_body(error: BaseException, request_id: str) -> dict[str, Any]:

    frames = traceback.extract_tb(error.__traceback__)
    here = os.path.abspath(__file__)
    user = [f for f in frames if os.path.abspath(f.filename) != here]
    return _error_body(str(error), type(error).__name__, traceback.format_list(user), request_id)


def _log_error(body: dict[str, Any]) -> None:
    """The [ERROR] line awslambdaric writes for an unhandled exception (text log format)."""
    line = "[ERROR]"
    if body["errorType"]:
        line += " " + body["errorType"] + (":" if body["errorMessage"] else "")
    if body["errorMessage"]:
        line += " " + body["errorMessage"]
    lines = [line, "Traceback (most recent call last):"]
    for element in body["stackTrace"]:
        lines.extend(element.splitlines() or [""])
    sys.stdout.write("\r".join(lines) + "\n")


def _setup_logging() -> None:

    class _RequestIdFilter(logging.Filter):
        def filter(self, record: logging.LogRecord) -> bool:
            record.aws_request_id = _CURRENT_REQUEST_ID
            return True

    logging.Formatter.converter = time.gmtime
    handler = logging.StreamHandler(sys.stdout)
    handler.terminator = ""
    handler.setFormatter(
        logging.Formatter(
            "[%(levelname)s]\t%(asctime)s.%(msecs)03dZ\t%(aws_request_id)s\t%(message)s\n",
            "%Y-%m-%dT%H:%M:%S",
        )
    )
    handler.addFilter(_RequestIdFilter())
    logging.getLogger().addHandler(handler)


def run_portable(handler_name: str, api: str) -> None:

    global _CURRENT_REQUEST_ID
    sys.stdout = _Unbuffered(sys.stdout)
    sys.stderr = _Unbuffered(sys.stderr)
    _setup_logging()
    connection = http.client.HTTPConnection(api)

    def call(method: str, path: str, body: bytes | None = None, headers: Any = None) -> Any:
        nonlocal connection
        for attempt in (0, 1):
            try:
                connection.request(method, path, body=body, headers=headers or {})
                response = connection.getresponse()
                data = response.read()
                return response, data
            except (ConnectionError, http.client.HTTPException):
                connection.close()
                connection = http.client.HTTPConnection(api)
                if attempt:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    try:
        handler = _load_handler(handler_name)
    except _Fault as fault:
        body = _error_body(fault.message, fault.error_type, fault.trace, "")
        _log_error(body)
        mark_end("init")
        call(
            "POST",
            f"{RUNTIME}/init/error",
            json.dumps(body).encode(),
            {ERROR_TYPE_HEADER: fault.error_type, "Content-Type": "application/json"},
        )
        sys.exit(1)

    while True:
        response, event_body = call("GET", f"{RUNTIME}/invocation/next")
        request_id = response.getheader("Lambda-Runtime-Aws-Request-Id", "")
        _CURRENT_REQUEST_ID = request_id
        context = LambdaContext(
            request_id,
            response.getheader("Lambda-Runtime-Invoked-Function-Arn", ""),
            int(response.getheader("Lambda-Runtime-Deadline-Ms", "0") or 0),
        )
        error: dict[str, Any] | None = None
        result = b""
        try:
            try:
                event = json.loads(event_body) if event_body else {}
            except ValueError as decode_error:
                raise _Fault(
                    "Runtime.UnmarshalError", f"Unable to unmarshal input: {decode_error}"
                ) from None
            output = handler(event, context)
            try:
                result = json.dumps(output).encode()
            except (TypeError, ValueError) as encode_error:
                raise _Fault(
                    "Runtime.MarshalError", f"Unable to marshal response: {encode_error}"
                ) from None
        except _Fault as fault:
            error = _error_body(fault.message, fault.error_type, fault.trace, request_id)
        except Exception as exception:
            error = _exception_body(exception, request_id)
        if error is not None:
            _log_error(error)
            mark_end(request_id)
            call(
                "POST",
                f"{RUNTIME}/invocation/{request_id}/error",
                json.dumps(error).encode(),
                {ERROR_TYPE_HEADER: error["errorType"], "Content-Type": "application/json"},
            )
        else:
            mark_end(request_id)
            call(
                "POST",
                f"{RUNTIME}/invocation/{request_id}/response",
                result,
                {"Content-Type": "application/json"},
            )


if __name__ == "__main__":
    sys.exit(main(sys.argv))
