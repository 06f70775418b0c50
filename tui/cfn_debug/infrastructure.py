"""Outcomes that say nothing about the handler's contract: the function could not start, or the
AWS it calls could not be reached. They end a chain as an error (exit 2), never as a finding.

An unreachable endpoint and an HTTP error from it are typed by the invoker already
(OutcomeKind.UNREACHABLE, HTTP_ERROR); an answer that is valid JSON cfn-debug cannot read
(OutcomeKind.UNREADABLE: an integer past Python's digit limit) is one too. This module also names
those that arrive looking like a handler's answer:

- the Lambda runtime could not load the handler: ``Runtime.ImportModuleError`` (a missing
  dependency, a build not run), ``Runtime.HandlerNotFound``, ``Runtime.MalformedHandlerName``,
  ``Runtime.UserCodeSyntaxError``: the handler never ran, so there is no answer to judge;
- the handler raised because AWS could not be reached (botocore's EndpointConnectionError,
  ConnectTimeoutError, ...): the library answers FAILED InternalFailure, but the cause is the
  network or a local AWS (``--local-aws``) that is not running;
- the handler failed because a host it calls could not be reached from here (its FAILED message
  or its logged exception says a name did not resolve or a connection was refused: Node's
  ``getaddrinfo ENOTFOUND``, Python's ``Name or service not known``, Go's ``no such host``, ...):
  a type that calls a third-party API, run offline, never gets an answer to pass on;
- a request cloudformation-cli-python-lib refused before the handler ran (a request field its
  version does not read, a property the handler's model class lacks: ``pylib.refusal``): the
  handler never saw it;
- a call the local AWS could not serve: moto's server answers a service or an operation it does
  not implement with an HTML 500 page (or answers XML botocore cannot parse), and whatever the
  handler then answers (FAILED InternalFailure, GeneralServiceException, ...) says nothing
  about its contract.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from cfn_debug.pylib.refusal import library_refusal
from cfn_debug.records import InvokeResult, OutcomeKind, Step
from cfn_debug.text.tracebacks import last_traceback

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
#: botocore's EndpointConnectionError message
_CANNOT_CONNECT = "Could not connect to the endpoint URL"
#: what a message says when a host the handler calls cannot be reached from here: Node's system
#: errors, Python's socket and urllib3 texts, Go's net package, Java's exceptions
_NO_NETWORK = re.compile(
    r"getaddrinfo (?:ENOTFOUND|EAI_AGAIN)"
    r"|connect (?:ECONNREFUSED|ENETUNREACH|EHOSTUNREACH)"
    r"|Name or service not known|Temporary failure in name resolution"
    r"|nodename nor servname provided|No address associated with hostname"
    r"|Failed to establish a new connection|NameResolutionError"
    r"|\[Errno \d+\] Connection refused|ConnectionRefusedError"
    r"|dial tcp [^\n]{0,300}?(?:no such host|connection refused)"
    r"|java\.net\.(?:UnknownHostException|ConnectException)"
    r"|Inaccessible host: `"  # the AWS SDK for JavaScript v2's UnknownEndpoint
)
#: how much of a message or exception line _NO_NETWORK reads (a handler's text is unbounded)
_NETWORK_TEXT = 4096
#: what shows a web server's HTML page in an AWS call's error message, and how much is read
_PAGE = re.compile(r"<!doctype html|<html[\s>]|\"<!doctype ")
_PAGE_TEXT = 512
#: error codes that are a verdict of the handler whatever its message says
_VERDICT_CODES = frozenset({"NotFound", "AlreadyExists"})
#: what cloudformation-cli-python-lib answers for an exception that is not its own
_LIBRARY_EXCEPTION_MESSAGES = ("", "Uninitialized", None)


def infrastructure_error(result: InvokeResult) -> str | None:
    """Why ``result`` is an infrastructure problem, or None when it is the handler's answer."""
    if result.kind is OutcomeKind.UNREADABLE:
        return result.error_message or "the function's answer is JSON cfn-debug cannot read"
    if result.kind is OutcomeKind.CRASH and result.error_type in NOT_LOADED:
        detail = f": {result.error_message}" if result.error_message else ""
        return f"the function could not be loaded ({result.error_type}{detail})"
    progress = result.progress
    status = result.status  # a hook's hookStatus too
    succeeded = status in ("SUCCESS", "IN_PROGRESS")
    unserved = None if succeeded else _unserved_call(result.aws_calls)
    if unserved is not None:
        status = f"HTTP {unserved.http_status}" if unserved.http_status else "answered"
        what = (
            "with a web server's error page: moto does not implement it, or failed on it"
            if _html_page(unserved)
            else "with XML botocore cannot parse: AWS never answers so"
        )
        return (
            f"the local AWS could not serve {unserved.service} {unserved.operation} ({status} "
            f"{what}): an infrastructure limit, not the handler's answer"
        )
    if result.kind is not OutcomeKind.PROGRESS or not isinstance(progress, dict):
        return None

    refused = library_refusal(progress, result.logs)
    if refused is not None:
        return refused.line
    if status != "FAILED":
        return None
    message = progress.get("message")
    if isinstance(message, str) and message.startswith(_CANNOT_CONNECT):
        # botocore's EndpointConnectionError, passed on as the message (the library's own
        # text for a non-library exception in 2.0.0, or a handler's str(error))
        hint = ""
        if ".amazonaws.com" in message:
            hint = (
                ": the handler called AWS itself (a client given an endpoint_url of its own, "
                "or made without botocore, ignores AWS_ENDPOINT_URL; give --aws-endpoint-url "
                "to an AWS it can reach)"
            )
        return f"the handler could not reach AWS ({message.strip()[:200]}){hint}"
    if progress.get("errorCode") in _VERDICT_CODES:
        return None
    if isinstance(message, str) and _NO_NETWORK.search(message[:_NETWORK_TEXT]):
        return _no_network(message)
    if progress.get("errorCode") != "InternalFailure":
        return None
    if message not in _LIBRARY_EXCEPTION_MESSAGES:
        return None

    found = last_traceback(result.logs)
    if found is None:
        return None
    name = found.exception.split(":", 1)[0].rsplit(".", 1)[-1].strip()
    if name in UNREACHABLE_AWS:
        return f"the handler could not reach AWS ({found.exception})"
    if _NO_NETWORK.search(found.exception[:_NETWORK_TEXT]):
        return _no_network(found.exception)
    return None


def step_infrastructure_error(step: Step) -> str | None:
    """:func:`infrastructure_error` of a step, with the AWS calls the step keeps: a result that
    went through a journal or transcript (what `run` prints from) carries none of its own."""
    result = step.result
    if not result.aws_calls and step.aws_calls:
        result = dataclasses.replace(result, aws_calls=list(step.aws_calls))
    return infrastructure_error(result)


def _no_network(text: str) -> str:
    return (
        f"the handler could not reach a host it calls ({text.strip()[:200]}): unreachable from "
        "here, so the answer says nothing about the handler's contract"
    )


def _unserved_call(calls: Any) -> Any:
    """The first AWS call answered with an HTML 5xx page: what moto's server (Flask) sends for a
    service or operation it does not implement (or an error in moto itself). AWS answers its APIs
    in XML or JSON, never so. For an XML protocol (EC2, IAM, SQS's query API, STS, ...) botocore
    cannot parse the page: it raises ResponseParserError (no ClientError, no status), the page's
    first bytes in its message."""
    for call in calls or ():
        if _html_page(call) or _unparseable_xml(call):
            return call
    return None


def _html_page(call: Any) -> bool:
    status = getattr(call, "http_status", None) or 0
    message = (getattr(call, "error_message", None) or "").lstrip().lower()
    if status >= 500 and _PAGE.search(message[:_PAGE_TEXT]):
        # the page itself, or an SDK's error quoting its first bytes (the AWS SDK for
        # JavaScript v3: ``Unexpected token '<', "<!doctype "... is not valid JSON``; v2 through
        # the --require hook, which adds them to its message); AWS answers its APIs in XML or
        # JSON, never in HTML
        return True
    if status >= 500 and getattr(call, "error_code", None) == str(status):
        # a REST-XML service (S3): botocore found no error code in the page and took the status
        # as the code and its reason phrase as the message; AWS always names its error
        return True
    return getattr(call, "error_code", None) == "ResponseParserError" and (
        "b'<!doctype html" in message or "b'<html" in message
    )


def _unparseable_xml(call: Any) -> bool:
    """botocore could not parse an XML answer (moto echoing a value with characters XML cannot
    hold, say): no AWS answers with malformed XML."""
    message = (getattr(call, "error_message", None) or "").lower()
    return getattr(call, "error_code", None) == "ResponseParserError" and (
        "invalid xml received" in message
    )
