"""The hook contract's rules (scope ``"hook"``), as data: the catalogue entries the checks in
:mod:`cfn_debug.hooks.rules` apply, and ``cfn-debug rules`` lists.

The sentences are those `cfn test` asserts on a hook's answers (cloudformation-cli's
``contract/hook_client.py`` and ``suite/hook/hook_handler_commons.py``), and, for Lambda Hooks,
the Lambda Hooks page of the CloudFormation Hooks User Guide (said in our words).
"""

from __future__ import annotations

from cfn_debug.contract.rule import Rule
from cfn_debug.records import Action, Level

HOOK = "hook"
HOOK_ACTIONS = frozenset(
    {Action.CREATE_PRE_PROVISION, Action.UPDATE_PRE_PROVISION, Action.DELETE_PRE_PROVISION}
)
#: The Lambda Hooks page: CloudFormation waits up to 30 seconds for the function.
LAMBDA_HOOK_LIMIT_S = 30.0
#: The Lambda Hooks page: the error codes a Lambda Hook answers with.
LAMBDA_HOOK_ERROR_CODES = frozenset({"NonCompliant", "InternalFailure"})
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
        "FAILED events must have an error code set.\n"
        "A Lambda Hook's errorCode is NonCompliant or InternalFailure.\n" + _PASS_TESTS,
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
        "30 s is written for Lambda Hooks; for registry hooks the Hooks User Guide gives no "
        "figure (AWS answers on re:Post say 30 s), so the CLI's HookClient default of 60 s, "
        "the most lenient reading, is the limit",
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
