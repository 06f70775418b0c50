"""A step's AWS calls as the engine records them: credentials redacted, the call that raised
marked. Apart from aws_calls.py because records (which every part imports, the dashboard's first
frame included) import that module, and redaction is only needed once calls arrive."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from cfn_debug.aws_calls import AwsCall, calls_from_dicts, mark_raised
from cfn_debug.text.redact import redact, redact_text
from cfn_debug.text.tracebacks import last_traceback


def redact_call_dicts(calls: Iterable[dict[str, Any]], values: Sequence[str] = ()) -> list[Any]:
    """Call records with credentials redacted: by key and pattern (redact.redact) and by value
    (the credentials the request carried, wherever a parameter or message quotes them)."""

    def by_value(value: Any) -> Any:
        if isinstance(value, str):
            return redact_text(value, values)
        if isinstance(value, dict):
            return {key: by_value(item) for key, item in value.items()}
        if isinstance(value, list):
            return [by_value(item) for item in value]
        return value

    def clean(call: dict[str, Any]) -> Any:
        try:
            call = redact(call)
            return by_value(call) if values else call
        except RecursionError:  # parameters nested too deep to walk: kept out
            shallow = {key: value for key, value in call.items() if key != "params"}
            return {**clean(shallow), "params": {"note": "nested too deep to record"}}

    return [clean(call) for call in calls]


def step_calls(
    calls: Sequence[AwsCall],
    *,
    logs: Sequence[str],
    crash: str | None,
    values: Sequence[str] = (),
) -> list[AwsCall]:
    """A step's calls: credentials redacted (``values``: the request's own credentials) and the
    one that raised marked, from the crash's ``ErrorType: message`` or else the exception line
    of the last traceback in ``logs``."""
    if not calls:
        return []
    cleaned = calls_from_dicts(redact_call_dicts((call.to_dict() for call in calls), values))
    error_text = crash
    if not error_text:
        found = last_traceback(logs)
        error_text = found.exception if found is not None else None
    return mark_raised(cleaned, error_text)
