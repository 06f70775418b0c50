"""The hook contract's step and chain rules on answers built here (no endpoint): each rule fires
on its fault, and a hook that refuses a target (FAILED NonCompliant with a message) has no
finding, only its verdict."""

from __future__ import annotations

from typing import Any

import pytest

from cfn_debug.hooks.events import EXPECT_ALLOWED, EXPECT_REFUSED, EXPECT_UNSUPPORTED
from cfn_debug.hooks.rules import HOOK_RULES, check_hook_chain, check_hook_step, verdict_of
from cfn_debug.records import Action, InvokeResult, OutcomeKind, Step


def _result(
    progress: Any = None,
    *,
    kind: OutcomeKind = OutcomeKind.PROGRESS,
    duration: float = 0.01,
    logs: list[str] | None = None,
) -> InvokeResult:
    return InvokeResult(kind, duration_s=duration, progress=progress, logs=logs or [])


def _rules(progress: Any, **kwargs: Any) -> list[str]:
    options = {"expects_hook_status": True, "target_type": "RESOURCE", "limit_s": 60.0}
    options.update({k: v for k, v in kwargs.items() if k in options})
    result = _result(progress, **{k: v for k, v in kwargs.items() if k not in options})
    return [f.rule_id for f in check_hook_step(result, 0, **options)]


def _step(progress: dict[str, Any], index: int = 0) -> Step:
    return Step(index, Action.CREATE_PRE_PROVISION, "TypeFunction", {}, _result(progress), "", 60.0)


def test_a_refusal_with_non_compliant_and_a_message_is_no_finding() -> None:
    refused = {"hookStatus": "FAILED", "errorCode": "NonCompliant", "message": "no encryption"}
    assert _rules(refused) == []
    assert verdict_of([_step(refused)]) == "refused"
    assert (
        check_hook_chain([_step(refused)], lambda_hook=False, expect=None, verdict="refused") == []
    )


def test_the_library_answers_are_clean() -> None:
    # the library's Lambda entry point: callbackDelaySeconds 0 and message "" always present
    assert _rules({"hookStatus": "SUCCESS", "message": "", "callbackDelaySeconds": 0}) == []
    assert (
        _rules(
            {"hookStatus": "IN_PROGRESS", "callbackContext": {"a": 1}, "callbackDelaySeconds": 3}
        )
        == []
    )
    # the test entry point answers status; asked in that shape it is right
    assert _rules({"status": "SUCCESS", "message": ""}, expects_hook_status=False) == []


@pytest.mark.parametrize(
    ("progress", "rule"),
    [
        ({"hookStatus": "SUCCESS", "errorCode": "NonCompliant"}, "hook-success-clean"),
        ({"hookStatus": "SUCCESS", "callbackDelaySeconds": 5}, "hook-success-clean"),
        ({"hookStatus": "FAILED", "message": "x"}, "hook-failed-error-code"),
        ({"hookStatus": "FAILED", "errorCode": "Nope", "message": "x"}, "hook-failed-error-code"),
        (
            {"hookStatus": "FAILED", "errorCode": "NonCompliant", "message": ""},
            "hook-failed-message",
        ),
        (
            {
                "hookStatus": "FAILED",
                "errorCode": "NonCompliant",
                "message": "x",
                "callbackDelaySeconds": 2,
            },
            "hook-failed-no-delay",
        ),
        ({"hookStatus": "IN_PROGRESS", "errorCode": "Throttling"}, "hook-in-progress-clean"),
        ({"hookStatus": "IN_PROGRESS", "result": "x"}, "hook-in-progress-clean"),
        ({"hookStatus": "DONE"}, "hook-status-valid"),
        ({"status": "SUCCESS"}, "hook-status-valid"),  # CloudFormation reads hookStatus
        (
            {"hookStatus": "CHANGE_SET_SUCCESS_SKIP_STACK_HOOK"},
            "hook-status-valid",
        ),  # not a change set
    ],
)
def test_each_fault_is_its_rule(progress: dict[str, Any], rule: str) -> None:
    assert rule in _rules(progress)


def test_skip_stack_hook_is_a_change_set_hook_answer() -> None:
    assert (
        _rules({"hookStatus": "CHANGE_SET_SUCCESS_SKIP_STACK_HOOK"}, target_type="CHANGE_SET") == []
    )


def test_a_raised_exception_is_explained_with_its_traceback() -> None:
    logs = ["Traceback (most recent call last):", '  File "h.py", line 3, in f', "KeyError: 'Tags'"]
    found = check_hook_step(
        _result({"hookStatus": "FAILED", "errorCode": "InternalFailure", "message": ""}, logs=logs),
        0,
        expects_hook_status=True,
        target_type="RESOURCE",
        limit_s=60.0,
    )
    assert [f.rule_id for f in found] == ["hook-handler-exception"]
    assert "KeyError: 'Tags'" in found[0].message


def test_time_limit_and_outcome() -> None:
    assert _rules({"hookStatus": "SUCCESS"}, duration=31.0, limit_s=30.0) == [
        "hook-invocation-time-limit"
    ]
    assert _rules({"hookStatus": "SUCCESS"}, duration=29.0, limit_s=30.0) == []
    assert _rules(None, kind=OutcomeKind.TIMEOUT) == ["hook-invocation-outcome"]


def test_expectations_and_the_lambda_hook_in_progress_cap() -> None:
    allowed = _step({"hookStatus": "SUCCESS"})
    refused = _step({"hookStatus": "FAILED", "errorCode": "NonCompliant", "message": "m"})
    unsupported = _step({"hookStatus": "FAILED", "errorCode": "UnsupportedTarget", "message": "m"})

    def rules(steps: list[Step], expect: str | None, lambda_hook: bool = False) -> list[str]:
        found = check_hook_chain(
            steps, lambda_hook=lambda_hook, expect=expect, verdict=verdict_of(steps)
        )
        return [f.rule_id for f in found]

    assert rules([allowed], EXPECT_REFUSED) == ["hook-refuses-invalid-input"]
    assert rules([refused], EXPECT_REFUSED) == []
    assert rules([refused], EXPECT_ALLOWED) == ["hook-allows-compliant-input"]
    assert rules([refused], EXPECT_UNSUPPORTED) == ["hook-unsupported-target"]
    assert rules([unsupported], EXPECT_UNSUPPORTED) == []
    chain = [_step({"hookStatus": "IN_PROGRESS"}, i) for i in range(4)] + [
        _step({"hookStatus": "SUCCESS"}, 4)
    ]
    assert rules(chain, None, lambda_hook=True) == ["hook-in-progress-limit"]
    assert rules(chain, None, lambda_hook=False) == []


def test_every_rule_has_a_contract_sentence_and_levels_are_reasoned() -> None:
    for rule in HOOK_RULES:
        assert rule.contract.strip()
        assert rule.level.value in ("MUST", "SHOULD")
    levels = {r.id: r.level.value for r in HOOK_RULES}
    assert levels["hook-allows-compliant-input"] == "SHOULD"
