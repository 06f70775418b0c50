"""The sequence-level rules: what only a sequence of calls shows (the contract scenarios).

Same :class:`~cfn_debug.contract.rule.Rule` as the step and chain rules, with scope
``"scenario"``: ``contract`` holds the handler contract's own sentences, one per line, verbatim;
``actions`` are the actions whose response a rule judges. :data:`HOW` says how each is checked
(`cfn-debug rules` shows it as the explanation, as :func:`cfn_debug.contract.explain` for the
step rules). The checks themselves live
in :mod:`cfn_debug.scenarios`.
"""

from __future__ import annotations

from cfn_debug.contract.rule import Rule
from cfn_debug.records import Action, Level

SCENARIO = "scenario"

_C, _R, _U, _D, _L = Action.CREATE, Action.READ, Action.UPDATE, Action.DELETE, Action.LIST

_READ_AFTER_CREATE = (
    "After a `create` operation returns SUCCESS, a subsequent `read` request MUST succeed when "
    "passed in the primaryIdentifier or any additionalIdentifiers associated with the "
    "provisioned resource instance."
)
_LIST_AFTER_CREATE = (
    "After a `create` operation returns SUCCESS, a subsequent `list` operation MUST return the "
    "primaryIdentifier associated with the provisioned resource instance.\n"
    "If the `list` operation is paginated, the entire `list` operation is defined as all `list` "
    "requests until the `nextToken` is `null`."
)
_NO_NEW_RESOURCE = "An `update` handler MUST NOT create a new physical resource."
_FAILED_MESSAGE = (
    "The progress event MUST return an error message and the most applicable error code."
)


def _rule(
    id: str, level: Level, actions: set[Action], title: str, contract: str, reason: str = ""
) -> Rule:
    return Rule(id, level, frozenset(actions), title, contract, SCENARIO, reason)


SEQUENCE_RULES: tuple[Rule, ...] = (
    _rule(
        "scenario-create-already-exists",
        Level.MUST,
        {_C},
        "A second create of the same resource fails AlreadyExists",
        "A `create` handler MUST return FAILED with an AlreadyExists error code if the resource "
        "already existed prior to the create request.",
    ),
    _rule(
        "scenario-read-after-create",
        Level.MUST,
        {_R},
        "Read succeeds after create",
        _READ_AFTER_CREATE,
    ),
    _rule(
        "scenario-read-identifier-only",
        Level.MUST,
        {_R},
        "Read succeeds given only the primary identifier",
        _READ_AFTER_CREATE + "\n"
        "The input to a `read` handler MUST contain either the `primaryIdentifier` or an "
        "`additionalIdentifier`. Any other properties MAY NOT be included in the request.",
    ),
    _rule(
        "scenario-read-back-equal",
        Level.MUST,
        {_C, _U, _R},
        "What create or update was asked for reads back equal",
        "For Create and Update handlers, desired-state stabilization is satisfied when all "
        "properties specified in the request are applied as requested. This is verified by "
        "calling the Read handler.\n"
        "All properties specified in the `create` request MUST be present in the model returned, "
        "and they MUST match exactly, with the exception of properties defined as "
        "writeOnlyProperties in the resource schema.\n"
        "All properties specified in the `update` request MUST be present in the model returned, "
        "and they MUST match exactly, with the exception of properties defined as "
        "writeOnlyProperties in the resource schema.",
    ),
    _rule(
        "scenario-list-after-create",
        Level.MUST,
        {_L},
        "List returns the created resource's identifier",
        _LIST_AFTER_CREATE,
    ),
    _rule(
        "scenario-list-after-update",
        Level.MUST,
        {_L},
        "List still returns the identifier after update, and no second resource",
        _LIST_AFTER_CREATE + "\n" + _NO_NEW_RESOURCE,
    ),
    _rule(
        "scenario-update-not-found",
        Level.MUST,
        {_U},
        "Update of a resource that never existed fails NotFound, with a message",
        "An `update` handler MUST return FAILED with a `NotFound` error code if the resource did "
        "not exist prior to the `update` request.\n" + _NO_NEW_RESOURCE + "\n" + _FAILED_MESSAGE,
    ),
    _rule(
        "scenario-not-found-after-delete",
        Level.MUST,
        {_R, _U, _D},
        "Read, update and delete of a deleted resource fail NotFound",
        "Once a `delete` operation successfully completes, any subsequent `update`, `delete`, or "
        "`read` request for the deleted resource instance MUST return `FAILED` with a `NotFound` "
        "error code.\n"
        "A `delete` handler MUST return FAILED with a `NotFound` error code if the resource "
        "didn't exist prior to the delete request.",
    ),
    _rule(
        "scenario-list-after-delete",
        Level.MUST,
        {_L},
        "List no longer returns a deleted resource's identifier",
        "Once a `delete` operation successfully completes, any subsequent `list` operation MUST "
        "NOT return the primaryIdentifier associated with the deleted resource instance.\n"
        "If the `list` operation is paginated, the 'list operation' is defined as all `list` "
        "calls until the `nextToken` is `null`.",
    ),
    _rule(
        "scenario-create-after-delete",
        Level.MUST,
        {_C},
        "Create after delete does not fail AlreadyExists",
        "Once a `delete` operation successfully completes, a subsequent `create` request with the "
        "same primaryIdentifier or additionalIdentifiers MUST NOT return `FAILED` with an "
        "`AlreadyExists` error code.",
    ),
    _rule(
        "scenario-create-idempotent",
        Level.MUST,
        {_C, _R},
        "The same clientRequestToken twice creates one resource",
        "A `create` handler MUST NOT create multiple resources given the same idempotency "
        "token.\n"
        "A `create` handler is not idempotent. Re-invoking the handler with the same "
        "idempotencyToken will cause another resource to be created, and the handler is only "
        "tracking a single resource.",
        "MUST only for the second resource (the repeated answer itself is "
        "scenario-create-same-token, a SHOULD)",
    ),
    _rule(
        "scenario-create-same-token",
        Level.SHOULD,
        {_C},
        "The same clientRequestToken twice gets the first answer",
        "A `create` handler MUST be idempotent.",
        "was part of the MUST scenario-create-idempotent: a handler that keys its resource by a "
        "name the user gives cannot tell its own retry from a new request without keeping the "
        "token, and answering AlreadyExists then creates nothing twice; the contract does not "
        "say what a repeated request must be answered",
    ),
    _rule(
        "scenario-create-only-not-updatable",
        Level.SHOULD,
        {_U},
        "Changing a createOnly property fails NotUpdatable",
        "Any `createOnlyProperties` specified in update handler input MUST NOT be different from "
        "their previous state.\n" + _FAILED_MESSAGE,
        "the contract lets the handler assume a createOnly property never changes "
        "(CloudFormation replaces the resource instead), so NotUpdatable is the most "
        "applicable answer, not a required one",
    ),
    _rule(
        "scenario-list-pagination",
        Level.MUST,
        {_L},
        "List pagination advances and ends",
        "The `NextToken` returned MUST be able to be used in a subsequent `list` request to "
        "retrieve the next set of results from the service.\n"
        "The `NextToken` MUST be null when all results have been returned.",
    ),
    _rule(
        "scenario-list-empty",
        Level.MUST,
        {_L},
        "List of nothing returns an empty array",
        "A `list` request MUST return an empty array if there are no resources found.",
    ),
    _rule(
        "scenario-generated-inputs",
        Level.MUST,
        {_C, _R, _D},
        "A generated input that is created reads back equal and deletes",
        "The input to a `create` handler MUST be valid against the resource schema.\n"
        "A resource implementation MUST pass all resource contract tests in order to be "
        "registered.",
    ),
    _rule(
        "scenario-generated-inputs-created",
        Level.SHOULD,
        {_C},
        "A valid generated input is created",
        "The input to a `create` handler MUST be valid against the resource schema.\n"
        + _FAILED_MESSAGE,
        "a schema cannot say that a value must name a resource that exists (a bucket, a table) "
        "nor everything the service refuses, and no contract sentence asks a create to "
        "succeed: a correct handler answers such an input FAILED with a message and an error "
        "code; a create that crashes, breaks a step rule or succeeds and reads back wrong is "
        "still the MUST scenario-generated-inputs",
    ),
)

#: rule id -> how cfn-debug checks it (the scenarios' counterpart of the checks' docstrings).
HOW: dict[str, str] = {
    "scenario-create-already-exists": "Create, then create the same input again under a new "
    "clientRequestToken: the second create must end FAILED with errorCode AlreadyExists. "
    "When a primary identifier part is not createOnly (the service names each resource, and "
    "`cfn test` skips this test), a second create that succeeds with another identifier "
    "passes too: the same input twice may rightly be two resources.",
    "scenario-read-after-create": "Create, then read with the model create returned: the read "
    "must end SUCCESS.",
    "scenario-read-identifier-only": "Create, then read with a model holding only the primary "
    "identifier: the read must end SUCCESS with the full model.",
    "scenario-read-back-equal": "Every property of the create (or update) request reads back "
    "equal: writeOnly and readOnly properties excepted (as `cfn test` compares), extra "
    "properties allowed, insertionOrder-false arrays compared as multisets.",
    "scenario-list-after-create": "Create, then list, following nextToken through every page: "
    "the created primary identifier must be among the models.",
    "scenario-list-after-update": "Create, list, update, then list every page again: the "
    "identifier is listed, and no identifier appears that was not listed before the update.",
    "scenario-update-not-found": "Update a primary identifier no resource has (its readOnly "
    "parts generated from the schema, its settable parts from the create input with a fresh "
    "suffix where one is allowed, references to resources that exist kept): FAILED NotFound "
    "with a non-empty message.",
    "scenario-not-found-after-delete": "Create, delete, then read, update or delete again: "
    "FAILED NotFound.",
    "scenario-list-after-delete": "Create, delete, then list every page: the deleted "
    "identifier must not be listed.",
    "scenario-create-after-delete": "Create, delete, then create the same input again: it must "
    "not end FAILED AlreadyExists.",
    "scenario-create-idempotent": "Create twice with the same clientRequestToken and read the "
    "first identifier: the repeated request must not name another identifier that reads back "
    "too, and the read must succeed; where the type has a LIST handler, list before and after "
    "must show one new resource, not two.",
    "scenario-create-same-token": "Create twice with the same clientRequestToken: the repeated "
    "request should end SUCCESS with the first identifier (AlreadyExists is a SHOULD failure).",
    "scenario-create-only-not-updatable": "Create, then update with a createOnly property "
    "changed: the most applicable answer is FAILED NotUpdatable (SHOULD: the contract lets the "
    "handler assume it never happens, CloudFormation replaces the resource instead).",
    "scenario-list-pagination": "While listing every page: a nextToken must not repeat, and "
    "the pages must end within the page cap.",
    "scenario-list-empty": "List with no resources: SUCCESS with resourceModels [] and no "
    "nextToken. Checked only when every page is empty (a fresh state); skipped otherwise.",
    "scenario-generated-inputs": "Inputs generated from the schema (hypothesis-jsonschema): "
    "create, read back, delete each; the first failure is shrunk to a minimal input. A create "
    "that ends FAILED cleanly (an error code, no MUST finding) is not judged here but by the "
    "SHOULD scenario-generated-inputs-created; skipped when no generated input was created.",
    "scenario-generated-inputs-created": "Each generated input's create should end SUCCESS; "
    "one that ends FAILED with an error code and no MUST finding is counted here (FAILED "
    "InvalidRequest is not counted at all: refusing what the service refuses is the handler's "
    "right).",
}
