"""The Lambda Invoke API's routes and errors, as `sam local start-lambda` answers them, over the
endpoint's HTTP transport (http_server.py): the screen every request meets before its body is read
(guard.py's checks: no browser, no foreign Host name), the invoke route (function names, partial
and full ARNs, the invocation type, the body's JSON), cfn-debug's details route, and SAM's error
answers (x-amzn-errortype and {"Type", "Message"}). The invocation itself is the endpoint's
(server.EmbeddedEndpoint.invoke).
"""

from __future__ import annotations

import functools
import json
import re
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from cfn_debug.endpoint.guard import browser_header, host_allowed
from cfn_debug.endpoint.http_server import Reply, Request
from cfn_debug.endpoint.pool import function_arn
from cfn_debug.text.redact import credential_values

if TYPE_CHECKING:
    from cfn_debug.endpoint.server import EmbeddedEndpoint

INVOKE_ROUTE = re.compile(r"^/2015-03-31/functions/(?P<name>[^/]+)/invocations$")
#: cfn-debug's own route: one invocation's logs and AWS calls, by request id (`serve` clients).
DETAILS_PATH = "/_cfn_debug/invocations/"
#: Lambda's limit on a synchronous invocation's request payload (6 MiB).
MAX_REQUEST_BYTES = 6 * 1024 * 1024


def error_body(error_type: str, message: str) -> bytes:
    return json.dumps({"Type": error_type, "Message": message}).encode()


def _function_name(raw: str) -> str:
    """The function name from a name, a partial ARN or a full ARN (a qualifier is ignored)."""
    name = unquote(raw)
    if ":function:" in name:
        name = name.split(":function:", 1)[1]
    elif name.startswith("function:"):
        name = name[len("function:") :]
    return name.split(":", 1)[0]


class InvokeApi:
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
        error_body(kind, message),
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
