"""Outcomes that say nothing about the handler's contract: the function could not start, or the
AWS it calls could not be reached. They end a chain as an error (exit 2), never as a finding.

An unreachable endpoint and an HTTP error from it are typed by the invoker already
(OutcomeKind.UNREACHABLE, HTTP_ERROR); this module names the two that arrive looking like a
handler's answer:

- the Lambda runtime could not load the handler: ``Runtime.ImportModuleError`` (a missing
  dependency, a build not run), ``Runtime.HandlerNotFound``, ``Runtime.MalformedHandlerName``,
  ``Runtime.UserCodeSyntaxError``: the handler never ran, so there is no answer to judge;
- the handler raised because AWS could not be reached (botocore's EndpointConnectionError,
  ConnectTimeoutError, ...): the library answers FAILED InternalFailure, but the cause is the
  network or a local AWS (``--local-aws``) that is not running.
"""

from __future__ import annotations

from cfn_debug.records import InvokeResult, OutcomeKind

#: errorType values of a function the runtime could not load.
NOT_LOADED = frozenset(
    {
        "Runtime.ImportModuleError",
        "Runtime.HandlerNotFound",
        "Runtime.MalformedHandlerName",
        "Runtime.UserCodeSyntaxError",
    }
)
#: exception names (the last dotted part) that mean AWS could not be reached.
UNREACHABLE_AWS = frozenset(
    {
        "EndpointConnectionError",
        "ConnectTimeoutError",
        "ConnectionClosedError",
        "ProxyConnectionError",
    }
)
#: what cloudformation-cli-python-lib answers for an exception that is not its own
_LIBRARY_EXCEPTION_MESSAGES = ("", "Uninitialized", None)


def infrastructure_error(result: InvokeResult) -> str | None:
    """Why ``result`` is an infrastructure problem, or None when it is the handler's answer."""
    if result.kind is OutcomeKind.CRASH and result.error_type in NOT_LOADED:
        detail = f": {result.error_message}" if result.error_message else ""
        return f"the function could not be loaded ({result.error_type}{detail})"
    progress = result.progress
    if result.kind is not OutcomeKind.PROGRESS or not isinstance(progress, dict):
        return None
    if progress.get("status") != "FAILED" or progress.get("errorCode") != "InternalFailure":
        return None
    if progress.get("message") not in _LIBRARY_EXCEPTION_MESSAGES:
        return None
    from cfn_debug.contract.tracebacks import last_traceback

    found = last_traceback(result.logs)
    if found is None:
        return None
    name = found.exception.split(":", 1)[0].rsplit(".", 1)[-1].strip()
    if name in UNREACHABLE_AWS:
        return f"the handler could not reach AWS ({found.exception})"
    return None
