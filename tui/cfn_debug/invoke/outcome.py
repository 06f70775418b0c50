"""Turn what a Lambda endpoint answered into a typed ``InvokeResult``.

Shared by the local (HTTP) and AWS (boto3) invokers, so every endpoint's odd answers end up as the
same outcomes: a ProgressEvent, a crash with its stack, a timeout (SAM's empty body, the emulator's
plain text, Lambda's "Task timed out"), a body that is not JSON, JSON that is not a ProgressEvent,
JSON cfn-debug cannot read (an integer past Python's digit limit),
an HTTP error, or a response over Lambda's 6 MB synchronous limit.
"""

from __future__ import annotations

import gc
import json
import re
import sys
from typing import Any

import msgspec

from cfn_debug.records import InvokeResult, OutcomeKind
from cfn_debug.text.jsondigits import MAX_DIGITS, first_long_integer, is_digit_limit

#: Lambda's limit on a synchronous invocation's response.
LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024
#: How much of a body an invoker reads at most; past it the body is dropped, not parsed.
DEFAULT_BODY_CAP = 8 * 1024 * 1024
#: How much of an unusable body is kept for display.
EXCERPT_CHARS = 2000


def excerpt(body: bytes | str, limit: int = EXCERPT_CHARS) -> str:
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} more chars)"


def _stack_lines(stack: Any) -> list[str]:
    if isinstance(stack, str):
        return stack.splitlines()
    if not isinstance(stack, list):
        return []
    lines: list[str] = []
    for frame in stack:
        if isinstance(frame, str):
            lines.extend(line for line in frame.splitlines() if line.strip())
        elif isinstance(frame, list):  # [file, line, function, code], as some runtimes send it
            lines.append(", ".join(str(part) for part in frame))
        else:
            lines.append(str(frame))
    return lines


def _is_timeout_text(text: str) -> bool:
    lowered = text.lower()
    return "timed out" in lowered or ("timeout" in lowered and "task" in lowered)


def classify(
    body: bytes,
    *,
    duration_s: float,
    http_status: int = 200,
    function_error: str | None = None,
    error_type_header: str | None = None,
    request_id: str | None = None,
    total_bytes: int | None = None,
    function_name: str = "",
) -> InvokeResult:
    """The typed outcome of one answer. ``total_bytes`` is the body's full size when it was cut."""
    size = total_bytes if total_bytes is not None else len(body)
    base: dict[str, Any] = {
        "duration_s": duration_s,
        "http_status": http_status,
        "request_id": request_id,
    }
    if http_status >= 400 or error_type_header:
        return _http_error(body, http_status, error_type_header, function_name, base)
    if size > LAMBDA_RESPONSE_LIMIT:
        return InvokeResult(
            OutcomeKind.CRASH,
            error_type="Function.ResponseSizeTooLarge",
            error_message=f"the response is {size:,} bytes, over Lambda's "
            f"{LAMBDA_RESPONSE_LIMIT:,}-byte limit for a synchronous invocation: Lambda would "
            "reject it",
            body_excerpt=excerpt(body[:EXCERPT_CHARS]),
            **base,
        )
    if not body.strip():
        return InvokeResult(
            OutcomeKind.TIMEOUT,
            error_message="the endpoint answered with an empty body: `sam local` answers so when "
            "the function ran past its Timeout",
            **base,
        )
    try:
        data = _loads(body)
    except RecursionError:
        return InvokeResult(
            OutcomeKind.NOT_JSON,
            error_message="the function's answer is JSON nested too deep to parse (over "
            f"{sys.getrecursionlimit()} levels): a handler must return a ProgressEvent object",
            body_excerpt=excerpt(body),
            **base,
        )
    except (ValueError, UnicodeDecodeError) as error:
        text = body.decode("utf-8", errors="replace")
        if is_digit_limit(error):
            return _long_integer(body, text, base)
        if _is_timeout_text(text):
            return InvokeResult(
                OutcomeKind.TIMEOUT,
                error_message=f"the function timed out: {excerpt(text.strip(), 300)}",
                body_excerpt=excerpt(text),
                **base,
            )
        if function_error:
            return InvokeResult(
                OutcomeKind.CRASH,
                error_type=function_error,
                error_message=f"the function failed ({function_error}) with a body that is not "
                "JSON",
                body_excerpt=excerpt(text),
                **base,
            )
        return InvokeResult(
            OutcomeKind.NOT_JSON,
            error_message="the function's answer is not JSON: a handler must return a "
            "ProgressEvent object",
            body_excerpt=excerpt(text),
            **base,
        )
    is_error_object = (
        isinstance(data, dict)
        and "errorMessage" in data
        and "status" not in data
        and "hookStatus" not in data
    )
    if function_error or is_error_object:
        message = data.get("errorMessage") if isinstance(data, dict) else None
        message = message if isinstance(message, str) else ""
        stack = data.get("stackTrace") if isinstance(data, dict) else None
        if stack is None and isinstance(data, dict):
            stack = data.get("trace")  # Lambda's Node runtime names the stack so
        if "Task timed out" in message or (_is_timeout_text(message) and not stack):
            return InvokeResult(OutcomeKind.TIMEOUT, error_message=message, **base)
        error_type = data.get("errorType") if isinstance(data, dict) else None
        missing = missing_module(error_type, message)
        if missing is not None:
            typo = _handler_module_typo(missing, message, base)
            return typo if typo is not None else _missing_module(missing, message, base)
        return InvokeResult(
            OutcomeKind.CRASH,
            error_type=error_type if isinstance(error_type, str) else function_error or "Unhandled",
            error_message=message or "the function raised an exception",
            stack_trace=_stack_lines(stack),
            body_excerpt="" if isinstance(data, dict) else excerpt(body),
            **base,
        )
    if isinstance(data, dict) and ("status" in data or "hookStatus" in data):
        # a hook's Lambda entry point answers hookStatus (cfn_debug.hooks)
        return InvokeResult(OutcomeKind.PROGRESS, progress=data, **base)
    if isinstance(data, dict):
        what = f"an object with keys {sorted(data)[:10]}"
    else:
        what = {list: "an array", str: "a string", bool: "a boolean"}.get(type(data), "a number")
        what = "null" if data is None else what
    return InvokeResult(
        OutcomeKind.NOT_PROGRESS_EVENT,
        error_message=f'expected a ProgressEvent (an object with a "status"), got {what}',
        body_excerpt=excerpt(body),
        **base,
    )


#: From this many bytes on, an answer is parsed with the cyclic collector held off.
_GC_PAUSE_MIN = 64 * 1024


def _long_integer(body: bytes, text: str, base: dict[str, Any]) -> InvokeResult:
    """A valid JSON answer holding an integer longer than Python converts: an UNREADABLE
    outcome naming where the integer is and its length (the answer is JSON; cfn-debug cannot
    judge it, so the run ends as an error, not a finding)."""
    found = first_long_integer(body)
    where = (
        f"{found[0] or '/'} holds an integer of {found[1]:,} digits"
        if found is not None
        else f"it holds an integer of more than {MAX_DIGITS:,} digits"
    )
    return InvokeResult(
        OutcomeKind.UNREADABLE,
        error_message=f"the function's answer is valid JSON, but {where}, more than cfn-debug "
        f"reads (Python converts integers of at most {MAX_DIGITS:,} digits): cfn-debug cannot "
        "judge this answer",
        body_excerpt=excerpt(text),
        **base,
    )


def _loads(body: bytes) -> Any:
    """``json.loads(body)``, exactly, for less: msgspec's decoder first (a 5 MB model in ~29 ms
    of CPU against json's ~43), and ``json.loads`` itself wherever msgspec refuses the text.

    Where msgspec reads a text it gives what json gives (same values, types and key order: big
    integers whole, floats correctly rounded, the last of duplicate keys); what it refuses and
    json reads (NaN and the infinities, escaped lone surrogates, a BOM, UTF-16/32, bytes json
    decodes with surrogatepass) and every malformed text go to json, so the value, or the error
    the caller tells apart (the digit limit, RecursionError, JSONDecodeError), is json's own
    (``tests/invoke/test_fast_loads.py`` holds the two equal). A large body is parsed with the
    cyclic garbage collector held off: every dict made counts towards a collection though none
    can be part of a cycle (a 5 MB model set off ~80 collections, ~5 ms). The collector is
    re-enabled (if it was enabled) before this returns or raises."""
    if len(body) < _GC_PAUSE_MIN or not gc.isenabled():
        return _exact_loads(body)
    gc.disable()
    try:
        return _exact_loads(body)
    finally:
        gc.enable()


_DECODER = msgspec.json.Decoder()


def _exact_loads(body: bytes) -> Any:
    try:
        return _DECODER.decode(body)
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError):
        return json.loads(body)


_NO_MODULE = re.compile(r"No module named '(?P<name>[^']+)'")
#: Node's words for a package that is not installed; only a bare package name ("aws-sdk",
#: "@aws-sdk/client-s3", "aws-sdk/clients/s3"), not the project's own files ("./models").
_NO_NODE_MODULE = re.compile(r"Cannot find module '(?P<name>(?:@[^/.'][^/']*/)?[^./'][^']*)'")
#: how cfn-debug's Node runtime says the module the function's Handler names is not there
#: ("Cannot find module 'dist/handlers' (looked for ...: is the project built?)"): the project's
#: own output, not a package
_HANDLER_MODULE_MISSING = "(looked for "
#: the first module of Node's "Require stack:" (the one that asked for the missing module)
_REQUIRED_BY = re.compile(r"Require stack:\s*\n- (?P<path>[^\n]+)")


def missing_module(error_type: Any, message: str) -> str | None:
    """The module a Runtime.ImportModuleError says is missing (not a handler's syntax error)."""
    if error_type != "Runtime.ImportModuleError":
        return None
    match = _NO_MODULE.search(message)
    if match is not None:
        return match.group("name")
    match = _NO_NODE_MODULE.search(message)
    if match is None or _HANDLER_MODULE_MISSING in message:
        return None
    return "node:" + match.group("name")


def _node_package(name: str) -> str:
    """The package a Node module name is in: "aws-sdk" for "aws-sdk/clients/all",
    "@aws-sdk/client-s3" for "@aws-sdk/client-s3/dist-cjs/index.js"."""
    parts = name.split("/")
    return "/".join(parts[:2]) if name.startswith("@") else parts[0]


_IMPORTING = re.compile(r"Unable to import module '(?P<module>[^']+)'")


def _handler_module_typo(missing: str, message: str, base: dict[str, Any]) -> InvokeResult | None:
    """The module the function's Handler names is itself missing (``Unable to import module
    'notes.handlers': No module named 'notes'``): a typo in template.yml's Handler (or a CodeUri
    that points elsewhere), not a dependency to install. A function that could not be loaded
    (CRASH with the runtime's error type: exit 2, never a finding), said so."""
    match = _IMPORTING.search(message)
    if match is None:
        return None
    module = match.group("module")
    if missing != module and not module.startswith(missing + "."):
        return None
    return InvokeResult(
        OutcomeKind.CRASH,
        error_type="Runtime.ImportModuleError",
        error_message=(
            f"the Handler in template.yml names module {module!r}, and there is no {missing!r} "
            "in the function's code directory: check the Handler's spelling (and its CodeUri)"
        ),
        **base,
    )


def _missing_module(module: str, message: str, base: dict[str, Any]) -> InvokeResult:
    """A module missing from the handler's environment: the environment's problem, not the
    handler's (DESIGN section 9), so an infrastructure outcome (the chain ends with ERROR, exit
    2, no finding) that names the module and how to install it."""
    if module.startswith("node:"):
        name = module[len("node:") :]
        package = _node_package(name)
        what = f"package {package!r}" if name == package else f"{name!r} (package {package!r})"
        first = message.strip().splitlines()[0] if message.strip() else message
        asked = _REQUIRED_BY.search(message)
        if asked is not None:  # from node_modules/ on: which package needs it
            path = asked.group("path").strip()
            cut = path.rfind("node_modules/")
            first += f", required by {path[cut:] if cut >= 0 else path}"
        return InvokeResult(
            OutcomeKind.HTTP_ERROR,
            error_type="Runtime.ImportModuleError",
            error_message=(
                f"the handler's node_modules has no {what} ({first}): name {package} in the "
                "project's package.json dependencies (cfn-debug then installs them), or "
                f"`npm install {package}` in the project"
            ),
            **base,
        )
    top = module.split(".", 1)[0]
    return InvokeResult(
        OutcomeKind.HTTP_ERROR,
        error_type="Runtime.ImportModuleError",
        error_message=(
            f"the handler's Python environment has no module {module!r} ({message}): name its "
            f"package in the project's requirements.txt (cfn-debug then builds the environment "
            f"with it), or install it (`pip install {top}`, if that is its package's name) into "
            "the interpreter given with --python"
        ),
        **base,
    )


def _http_error(
    body: bytes,
    http_status: int,
    error_type_header: str | None,
    function_name: str,
    base: dict[str, Any],
) -> InvokeResult:
    message = ""
    error_type = error_type_header
    try:
        data = json.loads(body) if body.strip() else None
    except (ValueError, UnicodeDecodeError, RecursionError):
        data = None
    if isinstance(data, dict):
        found = data.get("Message") or data.get("message") or data.get("errorMessage")
        message = found if isinstance(found, str) else ""
        if not error_type:
            found_type = data.get("Type") or data.get("__type") or data.get("errorType")
            error_type = found_type if isinstance(found_type, str) else None
    elif body.strip():
        message = excerpt(body, 300).strip()
    hint = ""
    if http_status == 404 or error_type == "ResourceNotFound":
        hint = f" (is {function_name!r} a function of this endpoint? name it with --function-name)"
    elif http_status == 501:
        hint = " (the endpoint does not support this request, e.g. log tailing)"
    explained = f"HTTP {http_status}" + (f" {error_type}" if error_type else "")
    explained += f": {message}" if message else ""
    return InvokeResult(
        OutcomeKind.HTTP_ERROR,
        error_type=error_type,
        error_message=explained + hint,
        body_excerpt=excerpt(body) if not isinstance(data, dict) else "",
        **base,
    )
