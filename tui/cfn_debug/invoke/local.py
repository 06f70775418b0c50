"""Invoke functions on a local Lambda endpoint over HTTP: `sam local start-lambda`, the Runtime
Interface Emulator, or cfn-debug's embedded endpoint (all speak the Lambda Invoke API).

A plain ``http://`` endpoint is spoken to with the small h11 client of http1.py (a loopback
invoke costs a quarter of httpx's event-loop time there); anything else (``https://``) with httpx,
imported only then (and for `serve`'s details route): the embedded endpoint never needs it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from cfn_debug.aws_calls import calls_from_dicts
from cfn_debug.invoke import http1
from cfn_debug.invoke.base import AwsCallsHook, LogsHook
from cfn_debug.invoke.outcome import DEFAULT_BODY_CAP, classify
from cfn_debug.records import InvokeResult, OutcomeKind

if TYPE_CHECKING:
    import httpx

#: Lambda's longest timeout; past it a local endpoint that never answers is given up on.
DEFAULT_READ_TIMEOUT_S = 900.0
#: The header cfn-debug's own endpoint (`serve`) names an invocation's logs-and-calls route in.
DETAILS_HEADER = "x-cfn-debug-details"
#: cfn-debug's endpoint: milliseconds the handler spent stopped in a debugger (not its time).
STOPPED_HEADER = "x-cfn-debug-stopped-ms"
#: cfn-debug's endpoint: "quit" when the user ended the invocation from the debugger.
DEBUGGER_HEADER = "x-cfn-debug-debugger"
NESTED = "is nested too deep to read"
#: The header cfn-debug's own endpoint says the runtime's start in (ms; the Java runtime's JVM).
RUNTIME_START_HEADER = "x-cfn-debug-runtime-start-ms"
#: Said once, on the first step, by an invoker whose endpoint gives neither logs nor AWS calls.
NO_DETAILS_NOTE = (
    "[cfn-debug] {url} does not give cfn-debug the handler's logs or its AWS calls (sam local "
    "and the Runtime Interface Emulator print them in their own terminal); `cfn-debug serve` "
    "or the embedded endpoint (no --endpoint) show them beside every step"
)


def invoke_path(function_name: str) -> str:
    return f"/2015-03-31/functions/{quote(function_name, safe='')}/invocations"


def _decode_log_tail(value: str | None) -> list[str]:
    if not value:
        return []
    try:
        return base64.b64decode(value).decode("utf-8", errors="replace").splitlines()
    except ValueError:
        return []


def _stopped_s(value: str | None) -> float:
    try:
        return max(float(value), 0.0) / 1000 if value else 0.0
    except ValueError:
        return 0.0


class LocalInvoker:
    """POST /2015-03-31/functions/{name}/invocations on ``base_url``.

    ``logs`` fetches the handler's lines by request id (the embedded endpoint's ``logs_for``),
    ``aws_calls`` its AWS calls (``aws_calls_for``). Without them, an answer from cfn-debug's own
    `serve` names a route that gives both (DETAILS_HEADER), and it is fetched; an endpoint that
    gives neither (SAM, the emulator) is said to, once, in the first step's logs.
    ``log_tail`` sends ``X-Amz-Log-Type: Tail``: only for endpoints known to support it (SAM
    answers it with 501).
    """

    def __init__(
        self,
        base_url: str,
        *,
        logs: LogsHook | None = None,
        aws_calls: AwsCallsHook | None = None,
        aws_calls_note: Callable[[str], str | None] | None = None,
        log_tail: bool = False,
        read_timeout_s: float = DEFAULT_READ_TIMEOUT_S,
        connect_timeout_s: float = 3.0,
        body_cap: int = DEFAULT_BODY_CAP,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.label = self.base_url
        self._logs = logs
        self._aws_calls = aws_calls
        #: function name -> what stands for its AWS calls when its runtime records none
        self._aws_calls_note = aws_calls_note
        self._log_tail = log_tail
        self._noted_no_details = False
        self._details_client: tuple[asyncio.AbstractEventLoop, httpx.AsyncClient] | None = None
        self._read_timeout_s = read_timeout_s
        self._body_cap = body_cap
        self._connect_timeout_s = connect_timeout_s
        self._plain = self.base_url.startswith("http://")
        self._client: httpx.AsyncClient | http1.AsyncHTTP1Client | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _client_for_loop(self) -> httpx.AsyncClient | http1.AsyncHTTP1Client:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            # A client belongs to the loop it was made in (headless runs one loop per command).
            self._client = self._new_client()
            self._loop = loop
        return self._client

    def _new_client(self) -> httpx.AsyncClient | http1.AsyncHTTP1Client:
        if self._plain:
            try:
                return http1.AsyncHTTP1Client(
                    self.base_url,
                    connect_timeout_s=self._connect_timeout_s,
                    read_timeout_s=self._read_timeout_s,
                    write_timeout_s=60.0,
                )
            except ValueError:
                self._plain = False
        return self._httpx_client()

    def _httpx_client(self) -> httpx.AsyncClient:
        hx = _httpx()
        timeout = hx.Timeout(
            connect=self._connect_timeout_s,
            read=self._read_timeout_s,
            write=60.0,
            pool=self._connect_timeout_s,
        )
        return hx.AsyncClient(timeout=timeout, trust_env=False)

    def unreachable_message(self) -> str:
        return (
            f"nothing answers at {self.base_url}: start `sam local start-lambda`, or run without "
            "--endpoint to use the embedded endpoint"
        )

    async def invoke(self, function_name: str, body: bytes) -> InvokeResult:
        headers = {"Content-Type": "application/json"}
        if self._log_tail:
            headers["X-Amz-Log-Type"] = "Tail"
        client = self._client_for_loop()
        if isinstance(client, http1.AsyncHTTP1Client):
            return await self._invoke_plain(client, function_name, body, headers)
        url = self.base_url + invoke_path(function_name)
        hx = _httpx()
        started = time.perf_counter()
        try:
            async with client.stream("POST", url, content=body, headers=headers) as response:
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size <= self._body_cap:
                        chunks.append(chunk)
                duration = time.perf_counter() - started
        except (hx.ConnectError, hx.ConnectTimeout, hx.UnsupportedProtocol) as exc:
            return self._unreachable(started, exc)
        except hx.ReadTimeout:
            return self._timed_out(started)
        except hx.HTTPError as exc:
            return self._broke_off(started, exc)
        raw = b"".join(chunks)  # at most body_cap bytes: a bigger body is reported, not parsed
        return await self._result(
            function_name, raw, duration, response.status_code, response.headers, size
        )

    async def _invoke_plain(
        self,
        client: http1.AsyncHTTP1Client,
        function_name: str,
        body: bytes,
        headers: dict[str, str],
    ) -> InvokeResult:
        """The same exchange as invoke() with httpx, on the h11 client (same outcomes)."""
        started = time.perf_counter()
        try:
            response = await client.post(
                invoke_path(function_name), body, headers, body_cap=self._body_cap
            )
        except http1.ConnectError as exc:
            return self._unreachable(started, exc)
        except http1.ReadTimeout:
            return self._timed_out(started)
        except http1.HTTPError as exc:
            return self._broke_off(started, exc)
        duration = time.perf_counter() - started
        return await self._result(
            function_name,
            response.body,
            duration,
            response.status_code,
            response.headers,
            response.size,
        )

    def _unreachable(self, started: float, exc: Exception) -> InvokeResult:
        return InvokeResult(
            OutcomeKind.UNREACHABLE,
            duration_s=time.perf_counter() - started,
            error_type=type(exc).__name__,
            error_message=self.unreachable_message(),
        )

    def _timed_out(self, started: float) -> InvokeResult:
        return InvokeResult(
            OutcomeKind.TIMEOUT,
            duration_s=time.perf_counter() - started,
            error_message=f"no answer from {self.base_url} within {self._read_timeout_s:g} s",
        )

    def _broke_off(self, started: float, exc: Exception) -> InvokeResult:
        return InvokeResult(
            OutcomeKind.HTTP_ERROR,
            duration_s=time.perf_counter() - started,
            error_type=type(exc).__name__,
            error_message=f"{self.base_url} broke off the exchange: {exc or type(exc).__name__}",
        )

    async def _result(
        self,
        function_name: str,
        raw: bytes,
        duration: float,
        status: int,
        headers: Any,
        size: int,
    ) -> InvokeResult:
        request_id = headers.get("x-amzn-requestid")
        stopped_s = _stopped_s(headers.get(STOPPED_HEADER))
        result = classify(
            raw,
            duration_s=max(duration - stopped_s, 0.0),
            http_status=status,
            function_error=headers.get("x-amz-function-error"),
            error_type_header=headers.get("x-amzn-errortype"),
            request_id=request_id,
            total_bytes=size,
            function_name=function_name,
        )
        result.stopped_s = stopped_s
        result.debugger_quit = headers.get(DEBUGGER_HEADER) == "quit"
        result.logs = _decode_log_tail(headers.get("x-amz-log-result"))
        started = headers.get(RUNTIME_START_HEADER)
        if started is not None:
            with contextlib.suppress(ValueError):
                result.runtime_start_s = min(max(float(started) / 1000, 0.0), duration)
        if self._logs is not None and request_id:
            try:
                result.logs = list(self._logs(request_id)) or result.logs
            except Exception as exc:  # a log hook must never lose the invocation's result
                result.logs = [*result.logs, f"[cfn-debug] could not fetch the logs: {exc}"]
        await self._add_details(result, headers.get(DETAILS_HEADER))
        if self._aws_calls_note is not None and not result.aws_calls:
            result.aws_calls_note = self._aws_calls_note(function_name)
        return result

    async def _add_details(self, result: InvokeResult, details: str | None) -> None:
        """The invocation's AWS calls (and logs, from `serve`), or the note that this endpoint
        gives neither (once per invoker)."""
        request_id = result.request_id
        if self._aws_calls is not None and request_id:
            try:
                result.aws_calls = calls_from_dicts(self._aws_calls(request_id))
            except Exception as exc:
                result.logs = [*result.logs, f"[cfn-debug] could not fetch the AWS calls: {exc}"]
        if self._logs is not None or self._aws_calls is not None:
            return
        if details and details.startswith("/"):
            await self._fetch_details(details, result)
        elif not result.logs and not self._noted_no_details:
            self._noted_no_details = True
            result.logs = [NO_DETAILS_NOTE.format(url=self.base_url)]

    async def _fetch_details(self, path: str, result: InvokeResult) -> None:
        """The invocation's logs and AWS calls from cfn-debug's `serve` (its details route)."""
        loop = asyncio.get_running_loop()
        if self._details_client is None or self._details_client[0] is not loop:
            # its own client: the invoke client may not speak anything but the invoke POST
            client = self._httpx_client()
            self._details_client = (loop, client)
        try:
            response = await self._details_client[1].get(self.base_url + path)
            details = response.json() if response.status_code == 200 else None
        except (_httpx().HTTPError, ValueError) as exc:
            result.logs = [*result.logs, f"[cfn-debug] could not fetch the logs: {exc}"]
            return
        except RecursionError:  # nested past what json reads: the step's answer is kept
            result.logs = [*result.logs, f"[cfn-debug] could not read the logs: {path} {NESTED}"]
            return
        try:
            self._take_details(details, path, response.status_code, result)
        except RecursionError:
            result.logs = [*result.logs, f"[cfn-debug] could not read the logs: {path} {NESTED}"]
            result.aws_calls = []

    def _take_details(self, details: Any, path: str, status: int, result: InvokeResult) -> None:
        """The logs and AWS calls of a details answer, into ``result``."""
        if not isinstance(details, dict):
            result.logs = [
                *result.logs,
                f"[cfn-debug] could not fetch the logs: HTTP {status} from {path}",
            ]
            return
        logs = details.get("logs")
        if isinstance(logs, list):
            result.logs = [line for line in logs if isinstance(line, str)] or result.logs
        calls = details.get("aws_calls")
        if isinstance(calls, list):
            result.aws_calls = calls_from_dicts(calls)
        note = details.get("aws_calls_note")
        if isinstance(note, str) and not result.aws_calls:
            result.aws_calls_note = note

    async def aclose(self) -> None:
        details, self._details_client = self._details_client, None
        if details is not None and details[0] is asyncio.get_running_loop():
            await details[1].aclose()
        client, self._client = self._client, None
        if client is not None and self._loop is asyncio.get_running_loop():
            await client.aclose()

    def close(self) -> None:
        """Forget the client (its loop may be gone); connections close with their sockets."""
        self._client = None
        self._loop = None
        self._details_client = None


def _httpx() -> Any:
    """The httpx module: only https:// endpoints and `serve`'s details route use it."""
    import httpx  # lazy: ~0.15 s of every start of the embedded endpoint's commands otherwise

    return httpx
