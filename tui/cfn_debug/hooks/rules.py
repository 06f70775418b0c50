"""The hook contract as rules (scope ``"hook"``) and the checks that apply them.

The sentences are those `cfn test` asserts on a hook's answers (cloudformation-cli's
``contract/hook_client.py`` and ``suite/hook/hook_handler_commons.py``), and, for Lambda Hooks, the
Lambda Hooks page of the CloudFormation Hooks User Guide (said in our words). A hook that refuses a
target, FAILED with NonCompliant and a message, is the hook doing its job: that is its verdict
(:func:`verdict_of`), never a finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cfn_debug.contract.rules import Rule
from cfn_debug.records import Action, Finding, InvokeResult, Level, OutcomeKind, Step

HOOK = "hook"
HOOK_ACTIONS = frozenset(
    {Action.CREATE_PRE_PROVISION, Action.UPDATE_PRE_PROVISION, Action.DELETE_PRE_PROVISION}
)
#: The Lambda Hooks page: CloudFormation waits up to 30 seconds for the function.
LAMBDA_HOOK_LIMIT_S = 30.0
#: The Lambda Hooks page: a hook may answer IN_PROGRESS 3 times; then it fails.
LAMBDA_HOOK_MAX_IN_PROGRESS = 3
ERROR_CODES = frozenset(
    {
        "NotUpdatable", "InvalidRequest", "AccessDenied", "InvalidCredentials", "AlreadyExists",
        "NotFound", "ResourceConflict", "Throttling", "ServiceLimitExceeded", "NotStabilized",
        "GeneralServiceException", "ServiceInternalError", "NetworkFailure", "InternalFailure",
        "InvalidTypeConfiguration", "HandlerInternalFailure", "NonCompliant", "UnsupportedTarget",
        "Unknown",
    }
)  # fmt: skip
_PASS_TESTS = "A hook MUST pass the hook contract tests (`cfn test`) to be registered."


def _rule(id: str, level: Level, title: str, contract: str, reason: str = "") -> Rule:
    return Rule(id, level, HOOK_ACTIONS, title, contract, HOOK, reason)


MUST, SHOULD = Level.MUST, Level.SHOULD

HOOK_RULES: tuple[Rule, ...] = (
    _rule(
        "hook-invocation-outcome",
        MUST,
        "The invocation returns a hook progress event",
        "The hook handler returns a progress event with a hookStatus (`cfn test` reads "
        'response["hookStatus"]).\n' + _PASS_TESTS,
    ),
    _rule(
        "hook-status-valid",
        MUST,
        "The answer's status is SUCCESS, FAILED or IN_PROGRESS, in the field the caller reads",
        "hookStatus is SUCCESS, FAILED or IN_PROGRESS (CHANGE_SET_SUCCESS_SKIP_STACK_HOOK for a "
        "change-set target); the Lambda entry point answers hookStatus, the library's test entry "
        "point status.\n" + _PASS_TESTS,
    ),
    _rule(
        "hook-success-clean",
        MUST,
        "A SUCCESS carries no errorCode and no callbackDelaySeconds",
        "SUCCESS events should have no error code set.\n"
        "SUCCESS events should have no callback delay.\n" + _PASS_TESTS,
        "`cfn test` fails the hook on either (hook_client.assert_success), and passing the "
        "contract tests is a MUST for registration",
    ),
    _rule(
        "hook-failed-error-code",
        MUST,
        "A FAILED carries a valid error code",
        "FAILED events must have an error code set.\n" + _PASS_TESTS,
    ),
    _rule(
        "hook-failed-message",
        MUST,
        "A FAILED carries a message",
        "FAILED events should have a message.\n"
        "The message tells the caller why the hook failed (shown in the stack's events).\n"
        + _PASS_TESTS,
        "`cfn test` asserts a non-empty message on every FAILED (test_hook_failed), so a hook "
        "without one cannot pass the contract tests",
    ),
    _rule(
        "hook-failed-no-delay",
        MUST,
        "A FAILED carries no callbackDelaySeconds",
        "FAILED events should have no callback delay.\n" + _PASS_TESTS,
        "`cfn test` fails the hook on it (hook_client.assert_failed)",
    ),
    _rule(
        "hook-in-progress-clean",
        MUST,
        "An IN_PROGRESS carries no errorCode and no result",
        "IN_PROGRESS events should have no error code set.\n"
        "IN_PROGRESS events should have no result.\n" + _PASS_TESTS,
        "`cfn test` fails the hook on either (hook_client.assert_in_progress)",
    ),
    _rule(
        "hook-handler-exception",
        MUST,
        "The handler raised: FAILED InternalFailure, explained with the logged traceback",
        "The hook handler returns a progress event of its own; an exception the handler does not "
        "catch reaches CloudFormation as FAILED InternalFailure without its reason.\n"
        + _PASS_TESTS,
    ),
    _rule(
        "hook-invocation-time-limit",
        MUST,
        "Each invocation returns within its limit (30 s for a Lambda Hook, 60 s otherwise)",
        "CloudFormation waits up to 30 seconds for a Lambda Hook's function to evaluate its "
        "input.\n"
        "A hook handler, like a resource handler, returns within 60 seconds (the CLI's "
        "HookClient enforces 60 s by default).",
        "30 s is written for Lambda Hooks; for registry hooks 60 s is the CLI's own default "
        "limit, the most lenient reading",
    ),
    _rule(
        "hook-in-progress-limit",
        MUST,
        "A Lambda Hook answers IN_PROGRESS at most 3 times",
        "A Lambda Hook may return IN_PROGRESS 3 times; with no result after that, the hook fails.",
    ),
    _rule(
        "hook-unsupported-target",
        MUST,
        "A target the hook does not support is answered FAILED UnsupportedTarget",
        "A hook handler MUST return FAILED with a UnsupportedTarget error code if the target is "
        "not supported",
    ),
    _rule(
        "hook-refuses-invalid-input",
        MUST,
        "A target the project's inputs_N_invalid file declares non-compliant is refused",
        "contract_pre_<x>_failed: for each target of inputs_N_invalid[_pre_<x>].json, the hook "
        "answers FAILED with an error code and a message.\n" + _PASS_TESTS,
        "the input file is the author's own statement that the hook must refuse this target, "
        "and `cfn test` fails the hook when it does not",
    ),
    _rule(
        "hook-allows-compliant-input",
        SHOULD,
        "A target the project's inputs_N_pre_<x> file declares compliant is allowed",
        "contract_pre_<x>_success: for each target of inputs_N_pre_<x>.json (or a generated "
        "one), the hook answers SUCCESS.\n" + _PASS_TESTS,
        "a hook that refuses a target with NonCompliant and a message is doing its job; the "
        "input may be what is wrong. Generated targets a hook refuses are its verdict, never "
        "a finding",
    ),
)

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
) -> list[Finding]:
    """The step rules on one invocation's answer. ``expects_hook_status``: the request was
    CloudFormation's (the caller reads ``hookStatus``), not the library's test event."""
    from cfn_debug.aws_calls import failed_call_note
    from cfn_debug.infrastructure import infrastructure_error

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
    return findings


def _failed(
    result: InvokeResult, progress: dict[str, Any], index: int, has_delay: bool, delay: Any
) -> list[Finding]:
    from cfn_debug.aws_calls import failed_call_note
    from cfn_debug.contract.tracebacks import last_traceback

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
    from cfn_debug.hooks.events import EXPECT_ALLOWED, EXPECT_REFUSED, EXPECT_UNSUPPORTED

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
    from cfn_debug.hooks.payload import hook_status

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
