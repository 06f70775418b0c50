"""The step checks of returned models: schema shape, identifiers, requested properties, nulls,
readOnly and writeOnly properties, DELETE and LIST results."""

from __future__ import annotations

from itertools import chain
from typing import Any

from cfn_debug.contract.constraints import with_constraint
from cfn_debug.contract.context import (
    STATUSES,
    Problems,
    StepContext,
)
from cfn_debug.contract.requested import (
    as_answered,
    comparable_request,
    requested_differences,
    short,
    transformed_properties,
)
from cfn_debug.diff import canonical_key
from cfn_debug.records import Action, OutcomeKind
from cfn_debug.schema import (
    MISSING,
    ResourceSchema,
    expand_pattern,
    join_pointer,
    resolve_pointer,
    split_pointer,
)
from cfn_debug.text.jsonfast import holds

# --- returned models ------------------------------------------------------------------------------


def _null_rule_applies(ctx: StepContext) -> bool:
    return ctx.status == "SUCCESS" and ctx.action in (Action.CREATE, Action.UPDATE, Action.READ)


def model_conforms_to_schema(ctx: StepContext) -> Problems:
    """Every returned model (resourceModel, each of resourceModels, whatever the status) against
    the schema's shape: Draft 7 minus required, dependencies, propertyNames and the conditional
    and boolean-logic subschemas, as the contract lists them. A null where no-null-properties
    applies is left to that rule, so it is reported once."""
    if ctx.schema is None:
        return []
    skip_nulls = _null_rule_applies(ctx)
    problems: Problems = []
    for base, model in ctx.returned_models():
        errors = ctx.schema.model_errors(model, encodings=ctx.encodings)
        typed = as_answered(ctx.schema, ctx.progress, model) if errors else model
        if typed is not model:  # the Go plugin's stringified scalars, read as the schema's
            model, errors = typed, ctx.schema.model_errors(typed)
        for pointer, message in errors:
            if skip_nulls and resolve_pointer(model, pointer) is None:
                continue
            problems.append((base + pointer, with_constraint(ctx.schema, model, pointer, message)))
    return problems


def _missing_identifier(schema: ResourceSchema, model: dict[str, Any]) -> str | None:
    for pointer in schema.primary_identifier:
        value = resolve_pointer(model, pointer)
        if value is MISSING or value is None or value == "":
            return pointer
    return None


def primary_identifier_present(ctx: StepContext) -> Problems:
    """Every CREATE and UPDATE model MUST include the primary identifier; a missing model on
    IN_PROGRESS or SUCCESS is a missing identifier too ("in every ProgressEvent object ... MUST
    return a model"). Exempt: CREATE's first event when it is FAILED (nothing was created), and
    FAILED events that carry no model at all (the library's exception path returns none, and
    `cfn test` does not ask for one). An empty string counts as missing, as in `cfn test`."""
    if ctx.schema is None or ctx.status not in STATUSES:
        return []
    if ctx.status == "FAILED" and ctx.action is Action.CREATE and ctx.index == 0:
        return []
    model = ctx.resource_model
    if model is None:
        if ctx.status == "FAILED":
            return []
        return [("/resourceModel", f"{ctx.status} without a resourceModel: no primary identifier")]
    missing = _missing_identifier(ctx.schema, model)
    if missing is None:
        return []
    return [("/resourceModel" + missing, f"the model lacks the primary identifier {missing}")]


def _request_identifier(ctx: StepContext) -> dict[str, Any] | None:
    if ctx.schema is None:
        return None
    for model in (ctx.original_desired, ctx.previous, ctx.desired):
        found = ctx.schema.identifier_of(model)
        if found is not None:
            return found
    return None


def primary_identifier_matches_request(ctx: StepContext) -> Problems:
    """UPDATE: the returned primary identifier equals the one in the request (the chain's first
    desired state, else the previous state). A request without one is input-identifier-present's
    finding, a model without one primary-identifier-present's."""
    model = ctx.resource_model
    expected = _request_identifier(ctx)
    if ctx.schema is None or model is None or expected is None:
        return []
    returned = ctx.schema.identifier_of(model)
    if returned is None:
        return []
    return [
        (
            "/resourceModel" + pointer,
            f"returned {short(returned[pointer])}, the request has {short(value)}",
        )
        for pointer, value in expected.items()
        if canonical_key(returned[pointer], None, "") != canonical_key(value, None, "")
    ]


def primary_identifier_stable(ctx: StepContext) -> Problems:
    """Once a model of the chain carried the primary identifier, every later one carries the
    same: each re-invocation's request holds the previous model, and an identifier that
    changes mid-chain loses track of the resource it named (a leak)."""
    model = ctx.resource_model
    if ctx.schema is None or model is None:
        return []
    returned = ctx.schema.identifier_of(model)
    if returned is None:
        return []
    for step in ctx.previous_steps:
        progress = step.result.progress if step.result.kind is OutcomeKind.PROGRESS else None
        earlier = progress.get("resourceModel") if isinstance(progress, dict) else None
        first = ctx.schema.identifier_of(earlier)
        if first is None:
            continue
        return [
            (
                "/resourceModel" + pointer,
                f"changed from {short(value)} (step {step.index}) to {short(returned[pointer])}",
            )
            for pointer, value in first.items()
            if canonical_key(returned[pointer], None, "") != canonical_key(value, None, "")
        ]
    return []


def requested_properties_returned(ctx: StepContext) -> Problems:
    """SUCCESS of CREATE/UPDATE returns every property of the chain's first desired state,
    equal. Not compared: writeOnly properties (the contract's exception), readOnly ones in the
    request (the user cannot set them; CloudFormation drops them), deprecated ones (the schema
    guide lets handlers ignore them) and those with a propertyTransform (CloudFormation compares
    them after the transform, which cfn-debug cannot run). Extra properties in the model are
    fine; an extra element in an array is not (arrays are compared whole, as `cfn test` does),
    and insertionOrder-false arrays are compared as multisets at any depth. A requested empty
    array or object that the model leaves out is not reported: the contract forbids returning
    properties that have no values, and cloudformation-cli-python-lib turns [] and {} into None
    before a Python handler sees them, so a correct handler cannot return them."""
    if ctx.status != "SUCCESS" or ctx.original_desired is None:
        return []
    model = ctx.resource_model
    if model is None:
        return [
            (
                "/resourceModel",
                "SUCCESS without a resourceModel: the requested properties are not returned",
            )
        ]
    schema = ctx.schema
    expected = ctx.original_desired
    if schema is not None:
        expected = comparable_request(
            schema, expected, also=schema.deprecated | transformed_properties(schema)
        )
        model = as_answered(schema, ctx.progress, model)
    return [
        ("/resourceModel" + pointer, text)
        for pointer, text in requested_differences(expected, model, schema, encodings=ctx.encodings)
    ]


def _nulls(value: Any, pointer: str) -> list[str]:
    if value is None:
        return [pointer]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _nulls(v, join_pointer(pointer, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _nulls(v, join_pointer(pointer, i))]
    return []


_is_dict = dict.__instancecheck__
_is_list = list.__instancecheck__
_LEAVES = frozenset({str, int, float, bool})


def _has_null(value: Any) -> bool:
    """Is there a null anywhere in ``value``? One level of the tree at a time, the values of
    each level gathered by C loops; :func:`_nulls` then finds where (only when there is one)."""
    level: list[Any] = [value]
    while level:
        kinds = set(map(type, level))
        if type(None) in kinds:
            return True
        if kinds <= _LEAVES:
            return False
        following = list(chain.from_iterable(map(dict.values, filter(_is_dict, level))))
        following.extend(chain.from_iterable(filter(_is_list, level)))
        level = following
    return False


def _may_have_null(ctx: StepContext, model: Any) -> bool:
    """:func:`_has_null`, answered by the exact encodings of the model's members where they
    have no ``null`` (the step's shared encodings, which the diffs, the redaction and the journal
    use too; a 5 MB model is a memchr scan, remembered, instead of a walk)."""
    if ctx.encodings is None:
        return _has_null(model)
    if type(model) is not dict:
        raw = ctx.encodings.of(model)
        return (raw is None or holds(raw, b"null")) and _has_null(model)
    for value in model.values():
        if value is None:
            return True
        if type(value) is dict or type(value) is list:
            raw = ctx.encodings.of(value)
            if (raw is None or holds(raw, b"null")) and _has_null(value):
                return True
        elif type(value) not in _LEAVES and _has_null(value):
            return True
    return False


def no_null_properties(ctx: StepContext) -> Problems:
    """No null anywhere in a SUCCESS model of CREATE, UPDATE or READ, the models the sentence is
    written for. Nulls elsewhere (IN_PROGRESS, LIST) are shape errors where the schema does not
    allow null, and model-conforms-to-schema reports them."""
    if not _null_rule_applies(ctx):
        return []
    if not any(_may_have_null(ctx, model) for _, model in ctx.returned_models()):
        return []
    return [
        (pointer, "null value: leave the property out instead")
        for base, model in ctx.returned_models()
        for pointer in _nulls(model, base)
    ]


def without_echoes(ctx: StepContext, findings: list[Any]) -> list[Any]:
    """``findings`` less the model-conforms-to-schema ones at a value that merely echoes the
    request's invalid input (same pointer, same value): input-valid reports that cause once."""
    if ctx.schema is None or ctx.action not in (Action.CREATE, Action.UPDATE):
        return findings  # input-valid judges CREATE and UPDATE requests only
    original = ctx.original_desired if ctx.original_desired is not None else ctx.desired
    return echoes_dropped(ctx.schema, original, ctx.resource_model, findings)


def echoes_dropped(
    schema: ResourceSchema, original: Any, model: dict[str, Any] | None, findings: list[Any]
) -> list[Any]:
    """``findings`` less model-conforms-to-schema ones at a value of ``model`` equal to the
    value ``original`` (the user's request) holds there, where that request is invalid."""
    if not any(f.rule_id == "model-conforms-to-schema" for f in findings):
        return findings
    if not isinstance(original, dict) or model is None:
        return findings
    invalid = {pointer for pointer, _ in schema.input_errors(original) if pointer}
    if not invalid:
        return findings

    def echoed(finding: Any) -> bool:
        pointer = finding.pointer or ""
        if finding.rule_id != "model-conforms-to-schema":
            return False
        if not pointer.startswith("/resourceModel/"):
            return False
        inner = pointer[len("/resourceModel") :]
        if not any(inner == p or inner.startswith(p + "/") for p in invalid):
            return False
        value = resolve_pointer(model, inner)
        return value is not MISSING and value == resolve_pointer(original, inner)

    return [f for f in findings if not echoed(f)]


def read_only_properties_present(ctx: StepContext) -> Problems:
    """A SUCCESS model of CREATE, UPDATE or READ includes the readOnly properties. SHOULD:
    the contract asks for properties "that have values", and some readOnly properties have
    none for a given resource (an optional attribute never set). A nested readOnly property is
    looked for only where its parent object is present. A missing primary identifier of a
    CREATE/UPDATE model is primary-identifier-present's finding, not this rule's too."""
    if ctx.schema is None or ctx.status != "SUCCESS":
        return []
    model = ctx.resource_model
    if model is None:
        return []
    problems: Problems = []
    patterns = ctx.schema.read_only
    if ctx.action in (Action.CREATE, Action.UPDATE):
        patterns = patterns - set(ctx.schema.primary_identifier)
    for pattern in sorted(patterns):
        tokens = split_pointer(pattern)
        for parent, value in expand_pattern(model, join_pointer("", *tokens[:-1])):
            if isinstance(value, dict) and tokens[-1] not in value:
                pointer = join_pointer(parent, tokens[-1])
                problems.append(("/resourceModel" + pointer, f"readOnly {pointer} is missing"))
    return problems


def write_only_not_returned(ctx: StepContext) -> Problems:
    """writeOnly properties never appear in a READ or LIST model, nor in the model of a
    CREATE/UPDATE SUCCESS (`cfn test` asserts that on the final event). IN_PROGRESS models may
    carry them: the next invocation needs them as its desired state."""
    if ctx.schema is None or not ctx.schema.write_only:
        return []
    if ctx.action in (Action.CREATE, Action.UPDATE) and ctx.status != "SUCCESS":
        return []
    return [
        (base + pointer, f"writeOnly {pointer} returned")
        for base, model in ctx.returned_models()
        for pattern in sorted(ctx.schema.write_only)
        for pointer, _ in expand_pattern(model, pattern)
    ]


def delete_success_no_model(ctx: StepContext) -> Problems:
    """DELETE SUCCESS MUST NOT contain a model: `cfn test` asserts there is no resourceModel
    key at all, so an empty object counts as a model."""
    if ctx.status != "SUCCESS" or not ctx.progress:
        return []
    return [
        (f"/{name}", f"DELETE SUCCESS with a {name}")
        for name in ("resourceModel", "resourceModels")
        if ctx.progress.get(name) is not None
    ]


def list_shape(ctx: StepContext) -> Problems:
    """LIST SUCCESS: resourceModels is an array (empty when there is nothing; absent is not
    empty), each model an object with its primary identifier, and nextToken a string or
    absent/null (null ends the pagination)."""
    if ctx.status != "SUCCESS" or not ctx.progress:
        return []
    problems: Problems = []
    models = ctx.progress.get("resourceModels")
    if not isinstance(models, list):
        problems.append(
            ("/resourceModels", f"resourceModels must be an array, got {short(models, 60)}")
        )
    else:
        for index, model in enumerate(models):
            pointer = f"/resourceModels/{index}"
            if not isinstance(model, dict):
                problems.append((pointer, f"not a model object: {short(model, 60)}"))
                continue
            missing = _missing_identifier(ctx.schema, model) if ctx.schema else None
            if missing is not None:
                problems.append((pointer + missing, f"lacks the primary identifier {missing}"))
    token = ctx.progress.get("nextToken")
    if token is not None and not isinstance(token, str):
        problems.append(("/nextToken", f"nextToken must be a string or null, got {short(token)}"))
    return problems
