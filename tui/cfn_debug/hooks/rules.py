"""The checks that apply the hook contract (its rules: :mod:`cfn_debug.contract.hook_rules`).

The sentences are those `cfn test` asserts on a hook's answers (cloudformation-cli's
``contract/hook_client.py`` and ``suite/hook/hook_handler_commons.py``), and, for Lambda Hooks, the
Lambda Hooks page of the CloudFormation Hooks User Guide (said in our words). A hook that refuses a
target, FAILED with NonCompliant and a message, is the hook doing its job: that is its verdict
(:func:`verdict_of`), never a finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cfn_debug.aws_calls import failed_call_note
from cfn_debug.contract.hook_rules import (
    ERROR_CODES,
    HOOK_RULES,
    LAMBDA_HOOK_ERROR_CODES,
    LAMBDA_HOOK_LIMIT_S,
    LAMBDA_HOOK_MAX_IN_PROGRESS,
)
from cfn_debug.contract.rule import Rule
from cfn_debug.hooks.events import EXPECT_ALLOWED, EXPECT_REFUSED, EXPECT_UNSUPPORTED
from cfn_debug.hooks.payload import hook_status
from cfn_debug.infrastructure import infrastructure_error
from cfn_debug.records import Finding, InvokeResult, Level, OutcomeKind, Step
from cfn_debug.text.tracebacks import last_traceback

__all__ = ["HOOK_RULES", "LAMBDA_HOOK_LIMIT_S", "check_hook_chain", "check_hook_step", "verdict_of"]

_BY_ID = {r.id: r for r in HOOK_RULES}


def hook_rule(rule_id: str) -> Rule:
    return _BY_ID[rule_id]


def _finding(rule_id: str, message: str, pointer: str | None, index: int | None) -> Finding:
    return Finding(rule_id, _BY_ID[rule_id].level, message, pointer, index)


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_OUTCOME_TEXT = {
    OutcomeKind.CRASH: "the function crashed instead of answering",
    OutcomeKind.TIMEOUT: "the function timed out",
    OutcomeKind.NOT_JSON: "the function's answer is not JSON",
    OutcomeKind.NOT_PROGRESS_EVENT: "the function's answer is not a hook progress event",
}


def check_hook_step(
    result: InvokeResult,
    index: int,
    *,
    expects_hook_status: bool,
    target_type: str,
    limit_s: float,
    lambda_hook: bool = False,
) -> list[Finding]:
    """The step rules on one invocation's answer. ``expects_hook_status``: the request was
    CloudFormation's (the caller reads ``hookStatus``), not the library's test event."""
    if infrastructure_error(result) is not None:
        return []  # not the handler's answer: the run ends as an error (exit 2)
    findings: list[Finding] = []
    if result.duration_s > limit_s:
        findings.append(
            _finding(
                "hook-invocation-time-limit",
                f"the invocation took {result.duration_s:.1f} s, over its {limit_s:.0f} s limit",
                None,
                index,
            )
        )
    if result.kind in _OUTCOME_TEXT:
        detail = result.error_message or ""
        if result.kind is OutcomeKind.CRASH and result.error_type:
            detail = f"{result.error_type}: {detail}" if detail else result.error_type
        note = failed_call_note(result.aws_calls)
        text = _OUTCOME_TEXT[result.kind] + (f" ({detail})" if detail else "")
        findings.append(
            _finding("hook-invocation-outcome", text + (f"\n{note}" if note else ""), None, index)
        )
        return findings
    progress = result.progress
    if not isinstance(progress, dict):
        return findings
    key = "hookStatus" if "hookStatus" in progress else "status"
    status = progress.get(key)
    if expects_hook_status and key != "hookStatus":
        findings.append(
            _finding(
                "hook-status-valid",
                "the answer has no hookStatus (it answers status, as the library's test entry "
                "point does): CloudFormation reads hookStatus",
                "/hookStatus",
                index,
            )
        )
    allowed = {"SUCCESS", "FAILED", "IN_PROGRESS"}
    if target_type == "CHANGE_SET":
        allowed.add("CHANGE_SET_SUCCESS_SKIP_STACK_HOOK")
    if status not in allowed:
        findings.append(
            _finding(
                "hook-status-valid",
                f"{key} must be one of {', '.join(sorted(allowed))}, got {_short(status)}",
                f"/{key}",
                index,
            )
        )
        return findings
    code = progress.get("errorCode")
    delay = progress.get("callbackDelaySeconds", 0)
    has_delay = delay not in (None, 0) or isinstance(delay, bool)
    if status == "SUCCESS" or status == "CHANGE_SET_SUCCESS_SKIP_STACK_HOOK":
        if code is not None:
            findings.append(
                _finding(
                    "hook-success-clean",
                    f"SUCCESS with errorCode {_short(code)}",
                    "/errorCode",
                    index,
                )
            )
        if has_delay:
            findings.append(
                _finding(
                    "hook-success-clean",
                    f"SUCCESS with callbackDelaySeconds {_short(delay)}",
                    "/callbackDelaySeconds",
                    index,
                )
            )
    elif status == "IN_PROGRESS":
        if code is not None:
            findings.append(
                _finding(
                    "hook-in-progress-clean",
                    f"IN_PROGRESS with errorCode {_short(code)}",
                    "/errorCode",
                    index,
                )
            )
        if progress.get("result") is not None:
            findings.append(
                _finding("hook-in-progress-clean", "IN_PROGRESS with a result", "/result", index)
            )
    else:  # FAILED
        findings.extend(_failed(result, progress, index, has_delay, delay))
        code = progress.get("errorCode")
        if lambda_hook and code in ERROR_CODES and code not in LAMBDA_HOOK_ERROR_CODES:
            findings.append(
                _finding(
                    "hook-failed-error-code",
                    f"{_short(code)}: a Lambda Hook answers NonCompliant or InternalFailure",
                    "/errorCode",
                    index,
                )
            )
    return findings


def _failed(
    result: InvokeResult, progress: dict[str, Any], index: int, has_delay: bool, delay: Any
) -> list[Finding]:
    findings: list[Finding] = []
    code = progress.get("errorCode")
    message = progress.get("message")
    if code is None:
        findings.append(
            _finding("hook-failed-error-code", "FAILED without an errorCode", "/errorCode", index)
        )
    elif code not in ERROR_CODES:
        findings.append(
            _finding(
                "hook-failed-error-code",
                f"{_short(code)} is not a handler error code",
                "/errorCode",
                index,
            )
        )
    if has_delay:
        findings.append(
            _finding(
                "hook-failed-no-delay",
                f"FAILED with callbackDelaySeconds {_short(delay)}",
                "/callbackDelaySeconds",
                index,
            )
        )
    empty = not isinstance(message, str) or not message.strip() or message == "Uninitialized"
    found = last_traceback(result.logs)
    note = failed_call_note(result.aws_calls)
    if code == "InternalFailure" and empty and found is not None:
        summary = found.exception or "an exception"
        findings.append(
            _finding(
                "hook-handler-exception",
                f"the handler raised {summary}"
                + (f"\n{note}" if note else "")
                + "\n"
                + "\n".join(found.lines),
                "/message",
                index,
            )
        )
    elif not isinstance(message, str) or not message.strip():
        findings.append(
            _finding(
                "hook-failed-message",
                "FAILED without a message to tell the caller why" + (f"\n{note}" if note else ""),
                "/message",
                index,
            )
        )
    return findings


def check_hook_chain(
    steps: Sequence[Step], *, lambda_hook: bool, expect: str | None, verdict: str | None
) -> list[Finding]:
    """The rules only the whole chain shows: Lambda Hooks' IN_PROGRESS cap, and what the
    event expected (its input file said compliant, non-compliant, or an unsupported target)."""
    findings: list[Finding] = []
    own = [s for s in steps if s.origin is None]
    if lambda_hook:
        in_progress = sum(1 for s in own if _status(s) == "IN_PROGRESS")
        if in_progress > LAMBDA_HOOK_MAX_IN_PROGRESS:
            findings.append(
                _finding(
                    "hook-in-progress-limit",
                    f"IN_PROGRESS {in_progress} times: CloudFormation fails a Lambda Hook after "
                    f"{LAMBDA_HOOK_MAX_IN_PROGRESS}",
                    None,
                    None,
                )
            )
    last = own[-1] if own else None
    if last is None or expect is None or _status(last) not in ("SUCCESS", "FAILED"):
        return findings
    if any(f.level is Level.MUST for s in own for f in s.findings):
        return findings  # a broken answer (a crash, a FAILED without a code) says it already
    progress = last.result.progress or {}
    status, code = _status(last), progress.get("errorCode")

    if expect == EXPECT_UNSUPPORTED and (status != "FAILED" or code != "UnsupportedTarget"):
        got = status if status != "FAILED" else f"FAILED {code}"
        findings.append(
            _finding(
                "hook-unsupported-target",
                f"a target the hook does not handle was answered {got}, not FAILED "
                "UnsupportedTarget",
                "/errorCode",
                last.index,
            )
        )
    elif expect == EXPECT_REFUSED and status != "FAILED":
        findings.append(
            _finding(
                "hook-refuses-invalid-input",
                "the target of an inputs_N_invalid file was allowed (SUCCESS): the input "
                "says the hook must refuse it",
                None,
                last.index,
            )
        )
    elif expect == EXPECT_ALLOWED and status == "FAILED":
        findings.append(
            _finding(
                "hook-allows-compliant-input",
                f"the target of an inputs_N_pre_<x> file was refused ({verdict}): the "
                "input says it is compliant",
                None,
                last.index,
            )
        )
    return findings


def _status(step: Step) -> str | None:
    return hook_status(step.result.progress)


def verdict_of(steps: Sequence[Step]) -> str | None:
    """The hook's verdict on its target: ``allowed`` (SUCCESS), ``refused`` (FAILED
    NonCompliant), ``unsupported target``, ``failed <code>`` (FAILED for another reason: the hook
    could not evaluate), ``skipped`` (a change-set hook skipping its stack hook); None when it
    gave none (a crash, a timeout, still IN_PROGRESS)."""
    own = [s for s in steps if s.origin is None]
    if not own:
        return None
    progress = own[-1].result.progress
    status = _status(own[-1])
    if status == "SUCCESS":
        return "allowed"
    if status == "CHANGE_SET_SUCCESS_SKIP_STACK_HOOK":
        return "allowed (stack hook skipped)"
    if status == "FAILED":
        code = (progress or {}).get("errorCode")
        if code == "NonCompliant":
            return "refused"
        if code == "UnsupportedTarget":
            return "unsupported target"
        return f"failed {code}" if isinstance(code, str) else "failed"
    return None
