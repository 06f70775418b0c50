"""The AWS API calls a handler made during one invocation, as the engine keeps them.

The worker records every call through botocore's event hooks (endpoint/aws_recorder.py) and the
endpoint hands them back with the invocation's logs; each becomes an :class:`AwsCall` on
``Step.aws_calls``. ``raised`` marks the call whose error is the exception the handler's
traceback (or crash) ends with: the AWS error that made the step fail.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class AwsCall:
    """One AWS API call: what was asked (top-level parameters, secrets masked) and the answer."""

    service: str  # botocore's service name: "dynamodb", "s3", "sqs"
    operation: str  # the API operation: "PutItem"
    params: dict[str, Any] = field(default_factory=dict)  # top-level request parameters, masked
    http_status: int | None = None  # None: no HTTP answer (connection refused, timeout)
    error_code: str | None = None  # "ResourceNotFoundException", or the exception's type name
    error_message: str | None = None
    duration_ms: float = 0.0  # from the call (parameters given) to its parsed answer, retries in
    raised: bool = False  # the call whose error the handler's traceback ends with
    attempts: int = 1  # HTTP attempts botocore made (its retries of throttling, 5xx, ...)

    @property
    def failed(self) -> bool:
        return (
            self.error_code is not None
            or (self.http_status or 0) >= 300
            or (self.http_status is None and self.error_message is not None)
        )

    @property
    def unanswered(self) -> bool:
        """The invocation ended (a timeout, a crash) while the call still waited for its answer."""
        return self.http_status is None and self.error_code is None and bool(self.error_message)

    @property
    def name(self) -> str:
        """``dynamodb PutItem``."""
        return f"{self.service} {self.operation}"

    def describe(self) -> str:
        """``dynamodb PutItem failed: ResourceNotFoundException: Requested resource not found``
        for a failed call, ``dynamodb PutItem (200)`` otherwise."""
        if not self.failed:
            return f"{self.name} ({self.http_status})" if self.http_status else self.name
        if self.unanswered:
            return f"{self.name}: {self.error_message} (waited {self.duration_ms:.0f} ms)"
        why = ": ".join(part for part in (self.error_code, self.error_message) if part)
        if not why:
            why = f"HTTP {self.http_status}" if self.http_status else "no answer"
        return f"{self.name} failed: {why}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AwsCall:
        """The call ``data`` describes. The records come from the handler's process, so a field
        of the wrong type (a handler printing a forged record) is replaced, never trusted."""
        status = data.get("http_status")
        duration = data.get("duration_ms")
        attempts = data.get("attempts")
        params = data.get("params")
        return cls(
            service=_text(data.get("service")) or "?",
            operation=_text(data.get("operation")) or "?",
            params=params if isinstance(params, dict) else {},
            http_status=status if _is_int(status) else None,
            error_code=_text(data.get("error_code")),
            error_message=_text(data.get("error_message")),
            duration_ms=float(duration) if _is_number(duration) else 0.0,
            raised=data.get("raised") is True,
            attempts=attempts if _is_int(attempts) and attempts > 0 else 1,
        )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


#: botocore's ClientError text: "An error occurred (CODE) when calling the OPERATION operation".
_CLIENT_ERROR = re.compile(
    r"An error occurred \((?P<code>[^)]*)\) when calling the (?P<operation>\w+) operation"
)


def calls_from_dicts(items: Iterable[Any]) -> list[AwsCall]:
    """The calls of a worker's records (or a journal's), skipping anything that is not one."""
    return [
        AwsCall.from_dict(item)
        for item in items
        if isinstance(item, dict) and "service" in item and "operation" in item
    ]


def mark_raised(calls: Sequence[AwsCall], error_text: str | None) -> list[AwsCall]:
    """``calls`` with ``raised`` set on the failed call ``error_text`` (the exception line of the
    traceback, or a crash's errorType and errorMessage) names.

    botocore's ClientError names the error code and the operation; the last failed call that
    matches both is the one that raised. Other errors (a connection failure) name neither: the
    last failed call is marked when it failed without an HTTP answer and ``error_text`` names
    its error type. Nothing is marked when nothing matches: a wrong mark is worse than none.
    """
    if not calls or not error_text or any(call.raised for call in calls):
        return list(calls)
    chosen: int | None = None
    match = _CLIENT_ERROR.search(error_text)
    for index in range(len(calls) - 1, -1, -1):
        call = calls[index]
        if not call.failed:
            continue
        if match is not None:
            if call.operation == match["operation"] and call.error_code == match["code"]:
                chosen = index
                break
        elif call.http_status is None and call.error_code and call.error_code in error_text:
            chosen = index
            break
    if chosen is None:
        return list(calls)
    marked = list(calls)
    marked[chosen] = replace(marked[chosen], raised=True)
    return marked


def raised_call(calls: Sequence[AwsCall]) -> AwsCall | None:
    return next((call for call in calls if call.raised), None)


def failed_call_note(calls: Sequence[AwsCall]) -> str | None:
    """What a finding about a crash, a handler exception or a FAILED step adds about the AWS
    calls: the call that raised (``the AWS call that raised: dynamodb PutItem failed:
    ResourceNotFoundException: Requested resource not found``), else the last call when it
    failed; None when neither."""
    call = raised_call(calls)
    if call is not None:
        return f"the AWS call that raised: {call.describe()}"
    if calls and calls[-1].unanswered:
        return f"the AWS call still waiting for its answer: {calls[-1].describe()}"
    if calls and calls[-1].failed:
        return f"the last AWS call failed: {calls[-1].describe()}"
    return None


# --- the text every consumer shows (console, Markdown, HTML, JUnit) ----------------------------

RAISED_MARK = "◀ raised"


def status_text(call: AwsCall) -> str:
    """``200``, ``400``, or ``no answer`` (the call got no HTTP response)."""
    return str(call.http_status) if call.http_status is not None else "no answer"


def error_text(call: AwsCall) -> str:
    """``ResourceNotFoundException: Requested resource not found``, or "" for a call that worked."""
    return ": ".join(part for part in (call.error_code, call.error_message) if part)


def params_text(call: AwsCall, limit: int = 300) -> str:
    """The parameters as compact JSON, cut at ``limit`` characters."""
    text = json.dumps(call.params, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def call_line(call: AwsCall, *, params: bool = False) -> str:
    """One line: ``dynamodb PutItem  400  3.2 ms  ResourceNotFoundException: ...  ◀ raised``."""
    parts = [call.name, status_text(call), f"{call.duration_ms:.1f} ms"]
    if call.failed and error_text(call):
        parts.append(error_text(call))
    if call.attempts > 1:
        parts.append(f"after {call.attempts} attempts")
    if call.raised:
        parts.append(RAISED_MARK)
    if params and call.params:
        parts.append(params_text(call))
    return "  ".join(parts)
