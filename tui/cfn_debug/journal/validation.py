"""Check a journal's or a transcript's run objects field by field before they become records.

``RunRecord.from_dict`` trusts its input; a hand-edited or truncated journal or transcript must
instead fail with a JournalError naming the file, the field (e.g.
``runs[2].steps[0].result.kind``) and what was expected there.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from cfn_debug.errors import JournalError
from cfn_debug.records import Action, ChangeKind, EndReason, Level, OutcomeKind

# field -> (required, expected description, predicate)
_Spec = dict[str, tuple[bool, str, Any]]


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_opt_str(v: Any) -> bool:
    return v is None or isinstance(v, str)


def _is_number(v: Any) -> bool:
    """A number a float can hold (a 400-digit integer is not a duration, and cannot be shown)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_opt_int(v: Any) -> bool:
    return v is None or _is_int(v)


def _is_list(v: Any) -> bool:
    return isinstance(v, list)


def _is_str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _one_of(enum: Any, *, optional: bool = False) -> tuple[str, Any]:
    values = [e.value for e in enum]
    described = "one of " + ", ".join(repr(v) for v in values) + (" or null" if optional else "")
    return described, lambda v: (optional and v is None) or v in values


def _anything(_v: Any) -> bool:
    return True


_RUN: _Spec = {
    "run_id": (True, "a string", _is_str),
    "event_name": (True, "a string", _is_str),
    "event_path": (False, "a string or null", _is_opt_str),
    "action": (True, *_one_of(Action)),
    "function_name": (True, "a string", _is_str),
    "endpoint": (True, "a string", _is_str),
    "started_at": (True, "an ISO 8601 time string", _is_str),
    "steps": (False, "a list of steps", _is_list),
    "end_reason": (False, *_one_of(EndReason, optional=True)),
    "final_status": (False, "a string or null", _is_opt_str),
    "chain_findings": (False, "a list of findings", _is_list),
    "total_s": (False, "a number of seconds", _is_number),
    "user_wait_s": (False, "a number of seconds", _is_number),
    "debugger_s": (False, "a number of seconds", _is_number),
    "replay_of": (False, "a string or null", _is_opt_str),
    "verdict": (False, "a string or null (a hook's verdict)", _is_opt_str),
}
_STEP: _Spec = {
    "index": (True, "an integer", _is_int),
    "action": (True, *_one_of(Action)),
    "function_name": (True, "a string", _is_str),
    "request": (True, "an object", lambda v: isinstance(v, dict)),
    "result": (True, "an object", lambda v: isinstance(v, dict)),
    "started_at": (True, "an ISO 8601 time string", _is_str),
    "limit_s": (True, "a number of seconds", _is_number),
    "callback_delay_s": (False, "a number of seconds", _is_number),
    "findings": (False, "a list of findings", _is_list),
    "diff_request": (False, "a list of changes", _is_list),
    "diff_previous": (False, "a list of changes", _is_list),
    "aws_calls": (False, "a list of AWS calls", _is_list),
    "origin": (False, "a string or null", _is_opt_str),
}
_RESULT: _Spec = {
    "kind": (True, *_one_of(OutcomeKind)),
    "duration_s": (True, "a number of seconds", _is_number),
    "progress": (False, "an object or null", lambda v: v is None or isinstance(v, dict)),
    "body_excerpt": (False, "a string", _is_str),
    "http_status": (False, "an integer or null", _is_opt_int),
    "error_type": (False, "a string or null", _is_opt_str),
    "error_message": (False, "a string or null", _is_opt_str),
    "stack_trace": (False, "a list of strings", _is_str_list),
    "request_id": (False, "a string or null", _is_opt_str),
    "logs": (False, "a list of strings", _is_str_list),
    "stopped_s": (False, "a number of seconds", _is_number),
    "debugger_quit": (False, "true or false", lambda v: isinstance(v, bool)),
    "runtime_start_s": (
        False,
        "a number of seconds or null",
        lambda v: v is None or _is_number(v),
    ),
    "aws_calls_note": (False, "a string or null", _is_opt_str),
}
_FINDING: _Spec = {
    "rule_id": (True, "a string", _is_str),
    "level": (True, *_one_of(Level)),
    "message": (True, "a string", _is_str),
    "pointer": (False, "a JSON pointer string or null", _is_opt_str),
    "step": (False, "an integer or null", _is_opt_int),
}
_CHANGE: _Spec = {
    "pointer": (True, "a JSON pointer string", _is_str),
    "kind": (True, *_one_of(ChangeKind)),
    "before": (False, "any JSON value", _anything),
    "after": (False, "any JSON value", _anything),
    "note": (False, "a string", _is_str),
}
_AWS_CALL: _Spec = {
    "service": (True, "a string", _is_str),
    "operation": (True, "a string", _is_str),
    "params": (False, "an object", lambda v: isinstance(v, dict)),
    "http_status": (False, "an integer or null", _is_opt_int),
    "error_code": (False, "a string or null", _is_opt_str),
    "error_message": (False, "a string or null", _is_opt_str),
    "duration_ms": (False, "a number of milliseconds", _is_number),
    "raised": (False, "true or false", lambda v: isinstance(v, bool)),
    "attempts": (False, "an integer", _is_int),
}


def _check(data: Any, spec: _Spec, path: Path, where: str, what: str) -> None:
    if not isinstance(data, dict):
        raise JournalError(f"expected {what} (a JSON object)", path=path, field=where)
    for key, (required, expected, ok) in spec.items():
        if key not in data:
            if required:
                raise JournalError(
                    f"missing; expected {expected}", path=path, field=f"{where}.{key}"
                )
            continue
        if not ok(data[key]):
            raise JournalError(
                f"expected {expected}, got {_short(data[key])}", path=path, field=f"{where}.{key}"
            )
    unknown = sorted(set(data) - set(spec))
    if unknown:
        raise JournalError(
            f"unknown field; expected only {', '.join(spec)}",
            path=path,
            field=f"{where}.{unknown[0]}",
        )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_run(data: Any, path: Path, where: str) -> None:
    """Raise JournalError unless ``data`` is a run object ``RunRecord.from_dict`` can load."""
    _check(data, _RUN, path, where, "a run")
    for i, finding in enumerate(data.get("chain_findings", [])):
        _check(finding, _FINDING, path, f"{where}.chain_findings[{i}]", "a finding")
    for i, step in enumerate(data.get("steps", [])):
        check_step(step, path, f"{where}.steps[{i}]")


def check_step(step: Any, path: Path, at: str) -> None:
    """Raise JournalError unless ``step`` is a step object ``Step.from_dict`` can load (a
    transcript's, or a journal line's)."""
    _check(step, _STEP, path, at, "a step")
    _check(step["result"], _RESULT, path, f"{at}.result", "an invocation result")
    for j, finding in enumerate(step.get("findings", [])):
        _check(finding, _FINDING, path, f"{at}.findings[{j}]", "a finding")
    for name in ("diff_request", "diff_previous"):
        for j, change in enumerate(step.get(name, [])):
            _check(change, _CHANGE, path, f"{at}.{name}[{j}]", "a model change")
    for j, call in enumerate(step.get("aws_calls", [])):
        _check(call, _AWS_CALL, path, f"{at}.aws_calls[{j}]", "an AWS call")
