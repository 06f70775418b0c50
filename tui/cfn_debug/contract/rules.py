"""The rule catalogue: every contract rule cfn-debug checks, as data.

The dashboard, the console printer, the exporters and the docs read this catalogue; the checks
in :mod:`cfn_debug.contract.checks` and :mod:`cfn_debug.contract.chain_checks` implement it.
``contract`` holds sentences of the handler contract (the AWS "Resource type handler contract"
page) exactly as they read there, one per line; :meth:`Rule.contract_for` picks the ones that
speak of one action. A rule's ``level`` is the level of its findings, except that ``status-valid``
reports unknown ProgressEvent fields at SHOULD (see its check).
"""

from __future__ import annotations

from cfn_debug.contract.hook_rules import HOOK_RULES
from cfn_debug.contract.rule import CHAIN, READ_BACK, STEP, Rule
from cfn_debug.contract.sequence_rules import SEQUENCE_RULES
from cfn_debug.records import RESOURCE_ACTIONS, Action, Level

ALL = frozenset(RESOURCE_ACTIONS)
MUTATING = frozenset({Action.CREATE, Action.UPDATE, Action.DELETE})
CREATE_UPDATE = frozenset({Action.CREATE, Action.UPDATE})
READ_LIST = frozenset({Action.READ, Action.LIST})

#: "MUST pass all resource contract tests": the rules `cfn test` itself asserts.
_CONTRACT_TESTS = (
    "A resource implementation MUST pass all resource contract tests in order to be registered."
)

_RETURN_WITHIN = "\n".join(
    f"A{'n' if a == 'update' else ''} `{a}` handler MUST always return a ProgressEvent object "
    f"within {30 if a in ('read', 'list') else 60} seconds."
    for a in ("create", "update", "delete", "read", "list")
)
_FAILED_MESSAGE = (
    "The progress event MUST return an error message and the most applicable error code."
)
_TIMEOUT_FAILED = "\n".join(
    f"A{'n' if a == 'update' else ''} `{a}` handler MUST return FAILED progress event if it "
    "cannot reach the desired-state within the timeout specified in the resource schema."
    for a in ("create", "update", "delete")
)
_CONFORMS = (
    "In every ProgressEvent object, the `create` handler MUST return a model which conforms to "
    "the shape of the resource schema.\n"
    "In every ProgressEvent object, the `update` handler MUST return a model which conforms to "
    "the shape of the resource schema.\n"
    "A `read` handler MUST return a model representation that conforms to the shape of the "
    "resource schema.\n"
    "A model returned in a ProgressEvent object MUST always conform to the shape of the resource "
    "schema."
)
_REQUESTED = "\n".join(
    f"All properties specified in the `{a}` request MUST be present in the model returned, and "
    "they MUST match exactly, with the exception of properties defined as writeOnlyProperties in "
    "the resource schema."
    for a in ("create", "update")
)
_STABILIZED = (
    "For Create and Update handlers, desired-state stabilization is satisfied when all "
    "properties specified in the request are applied as requested. This is verified by calling "
    "the Read handler."
)
_NO_NULLS = "The model MUST NOT return any properties that are null or do not have values."
_READ_ONLY = (
    "The model MUST contain all properties that have values, including any properties that have "
    "default values, and any readOnlyProperties as defined in the resource schema."
)


def _rule(
    id: str,
    level: Level,
    actions: frozenset[Action],
    title: str,
    contract: str,
    scope: str = STEP,
    reason: str = "",
) -> Rule:
    return Rule(id, level, frozenset(actions), title, contract, scope, reason)


MUST, SHOULD = Level.MUST, Level.SHOULD

CATALOGUE: tuple[Rule, ...] = (
    # --- the invocation and the ProgressEvent itself ---
    _rule(
        "invocation-outcome",
        MUST,
        ALL,
        "The invocation returns a ProgressEvent",
        _RETURN_WITHIN,
    ),
    _rule(
        "status-valid",
        MUST,
        ALL,
        "The ProgressEvent has a valid status and well-typed fields",
        _RETURN_WITHIN,
    ),
    _rule(
        "failed-error-code",
        MUST,
        ALL,
        "A FAILED event carries a valid error code",
        _FAILED_MESSAGE,
    ),
    _rule(
        "failed-message",
        MUST,
        ALL,
        "A FAILED event carries an error message",
        _FAILED_MESSAGE,
    ),
    _rule(
        "handler-exception",
        MUST,
        ALL,
        "The handler raised an exception",
        _RETURN_WITHIN + "\n" + _FAILED_MESSAGE,
    ),
    _rule(
        "in-progress-no-error-code",
        MUST,
        MUTATING,
        "An IN_PROGRESS event carries no error code and no resourceModels",
        _CONTRACT_TESTS,
    ),
    _rule(
        "terminal-no-callback-delay",
        MUST,
        ALL,
        "A SUCCESS or FAILED event has callbackDelaySeconds 0",
        _CONTRACT_TESTS,
    ),
    _rule(
        "callback-delay-range",
        SHOULD,
        MUTATING,
        "IN_PROGRESS callbackDelaySeconds is a whole number of seconds from 0 to 900",
        _TIMEOUT_FAILED,
        STEP,
        "no contract sentence fixes a range: 900 s is Lambda's longest run and a negative "
        "delay strands the chain, but neither is written as a MUST",
    ),
    _rule(
        "read-list-not-in-progress",
        MUST,
        READ_LIST,
        "READ and LIST never return IN_PROGRESS",
        "A `read` handler MUST always return a status of `SUCCESS` or `FAILED`; it MUST NOT "
        "return a status of `IN_PROGRESS`.\n"
        "A `list` handler MUST always return a status of `SUCCESS` or `FAILED`; it MUST NOT "
        "return a status of `IN_PROGRESS`.",
    ),
    # --- returned models ---
    _rule(
        "model-conforms-to-schema",
        MUST,
        ALL,
        "Every returned model conforms to the shape of the schema",
        _CONFORMS,
    ),
    _rule(
        "primary-identifier-present",
        MUST,
        CREATE_UPDATE,
        "Every model includes the primary identifier",
        "Every model MUST include the primaryIdentifier. The only exception is if the first "
        "progress event is `FAILED`, and the resource has not yet been created.",
    ),
    _rule(
        "primary-identifier-matches-request",
        MUST,
        frozenset({Action.UPDATE}),
        "The returned primary identifier is the one in the request",
        "The primaryIdentifier returned in every progress event must match the primaryIdentifier "
        "passed into the request.",
    ),
    _rule(
        "primary-identifier-stable",
        MUST,
        CREATE_UPDATE,
        "The primary identifier never changes along the chain",
        "Every model MUST include the primaryIdentifier.\n"
        "The primaryIdentifier returned in every progress event must match the primaryIdentifier "
        "passed into the request.",
    ),
    _rule(
        "requested-properties-returned",
        MUST,
        CREATE_UPDATE,
        "SUCCESS returns every requested property, unchanged",
        _REQUESTED,
    ),
    _rule(
        "no-null-properties",
        MUST,
        frozenset({Action.CREATE, Action.UPDATE, Action.READ}),
        "A SUCCESS model holds no null values",
        _NO_NULLS,
    ),
    _rule(
        "read-only-properties-present",
        SHOULD,
        frozenset({Action.CREATE, Action.UPDATE, Action.READ}),
        "A SUCCESS model includes the readOnly properties",
        _READ_ONLY,
        STEP,
        "a readOnly property may have no value for a given resource (an optional "
        "attribute never set), and the contract asks only for properties that have "
        "values; read-back-complete makes it a MUST where the READ shows a value",
    ),
    _rule(
        "write-only-not-returned",
        MUST,
        frozenset({Action.CREATE, Action.UPDATE, Action.READ, Action.LIST}),
        "writeOnly properties are never returned by READ, LIST or a final SUCCESS",
        _REQUESTED + "\n" + _CONTRACT_TESTS,
    ),
    _rule(
        "delete-success-no-model",
        MUST,
        frozenset({Action.DELETE}),
        "DELETE SUCCESS returns no model",
        "When the `delete` handler returns SUCCESS, the ProgressEvent object MUST NOT contain a "
        "model.",
    ),
    _rule(
        "list-shape",
        MUST,
        frozenset({Action.LIST}),
        "LIST returns a list of models with their primary identifiers, and a string nextToken",
        "A `list` handler MUST return an array of primary identifiers.\n"
        "A `list` request MUST return an empty array if there are no resources found.\n"
        "The `NextToken` MUST be null when all results have been returned.",
    ),
    # --- timing ---
    _rule(
        "invocation-time-limit",
        MUST,
        ALL,
        "Each invocation returns within 60 s (30 s for READ and LIST)",
        _RETURN_WITHIN,
    ),
    _rule(
        "invocation-time-warning",
        SHOULD,
        ALL,
        "Each invocation stays clear of its time limit",
        _RETURN_WITHIN,
    ),
    _rule(
        "chain-timeout",
        MUST,
        MUTATING,
        "The whole chain finishes within the schema's timeoutInMinutes",
        _TIMEOUT_FAILED,
        CHAIN,
    ),
    # --- read-back: the READ cfn-debug sends after a CREATE/UPDATE SUCCESS ---
    _rule(
        "read-back-succeeds",
        MUST,
        CREATE_UPDATE,
        "A READ with the returned identifier succeeds after SUCCESS",
        "After a `create` operation returns SUCCESS, a subsequent `read` request MUST succeed "
        "when passed in the primaryIdentifier or any additionalIdentifiers associated with the "
        "provisioned resource instance.\n" + _STABILIZED,
        READ_BACK,
    ),
    _rule(
        "read-back-complete",
        MUST,
        CREATE_UPDATE,
        "A SUCCESS model holds every readOnly value the READ right after returns",
        _READ_ONLY,
        READ_BACK,
        "read-only-properties-present is a SHOULD because a readOnly property may have no "
        "value; the READ right after SUCCESS proves it has one, so its absence is a MUST",
    ),
    _rule(
        "read-back-keeps-requested",
        SHOULD,
        CREATE_UPDATE,
        "The READ right after SUCCESS holds every property the request set",
        _STABILIZED + "\n" + _READ_ONLY,
        READ_BACK,
        "a correct handler meets it when its schema leaves an input-only property (one the "
        "API takes but cannot describe) unmarked as writeOnly: its READ cannot return it",
    ),
    _rule(
        "invalid-input-rejected",
        SHOULD,
        CREATE_UPDATE,
        "An input that is invalid on purpose (inputs_N_invalid) is refused: FAILED InvalidRequest",
        "The input to a `create` handler MUST be valid against the resource schema.\n"
        "The progress event MUST return an error message and the most applicable error code.",
        "expectation",
        "the contract lets a handler assume its input is valid (CloudFormation checks "
        "templates first), so accepting an invalid one breaks no MUST; InvalidRequest is the "
        "most applicable answer",
    ),
    # --- input assumptions (the event, not the handler; first invocation only) ---
    _rule(
        "input-valid",
        MUST,
        CREATE_UPDATE,
        "The request's desired state is valid against the schema",
        "The input to a `create` handler MUST be valid against the resource schema.\n"
        "The input to an `update` handler MUST be valid against the resource schema.",
    ),
    _rule(
        "input-no-read-only",
        SHOULD,
        frozenset({Action.CREATE}),
        "A CREATE request sets no readOnly properties",
        "The input to a `create` handler MUST be valid against the resource schema.",
        STEP,
        "the contract says this only through the input being valid against the schema; a "
        "test event with readOnly values tests something CloudFormation never sends",
    ),
    _rule(
        "input-create-only-unchanged",
        MUST,
        frozenset({Action.UPDATE}),
        "An UPDATE request leaves createOnly properties unchanged",
        "Any `createOnlyProperties` specified in update handler input MUST NOT be different from "
        "their previous state.",
    ),
    _rule(
        "input-identifier-present",
        MUST,
        frozenset({Action.READ, Action.UPDATE, Action.DELETE}),
        "The request carries the primary identifier or an additional identifier",
        "The input to an `update` handler MUST contain either the `primaryIdentifier` or an "
        "`additionalIdentifier`.\n"
        "The input to a `delete` handler MUST contain either the `primaryIdentifier` or an "
        "`additionalIdentifier`.\n"
        "The input to a `read` handler MUST contain either the `primaryIdentifier` or an "
        "`additionalIdentifier`.",
    ),
)

#: Every rule by id: the catalogue's, the contract scenarios' sequence-level rules and the hook
#: contract's rules.
_BY_ID = {r.id: r for r in CATALOGUE + SEQUENCE_RULES + HOOK_RULES}


def rule(rule_id: str) -> Rule:
    """The catalogue entry for ``rule_id``; KeyError names the known ids when it is unknown."""
    try:
        return _BY_ID[rule_id]
    except KeyError:
        raise KeyError(f"no contract rule {rule_id!r}; known: {', '.join(_BY_ID)}") from None
