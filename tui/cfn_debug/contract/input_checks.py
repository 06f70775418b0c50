"""The input assumptions: checks of the first invocation's request (valid against the schema, no
readOnly properties, createOnly properties unchanged, an identifier present)."""

from __future__ import annotations

import re
from typing import Any

from cfn_debug.contract.constraints import is_write_only, with_constraint
from cfn_debug.contract.context import (
    REQUEST_DESIRED,
    Problems,
    StepContext,
)
from cfn_debug.contract.requested import (
    short,
    typed_as_sent,
)
from cfn_debug.diff import canonical_key
from cfn_debug.records import Action
from cfn_debug.schema import (
    MISSING,
    expand_pattern,
)

# --- input assumptions: the first invocation's request ------------------------------------------


def _first(ctx: StepContext) -> bool:
    return ctx.index == 0


def input_valid(ctx: StepContext) -> Problems:
    """The first request's desired state against the full schema (:func:`desired_state_errors`).
    Later requests carry the handler's own models, not the user's input."""
    if not _first(ctx) or ctx.schema is None:
        return []
    if ctx.desired is None:
        return [(REQUEST_DESIRED, "the request has no desired state")]
    return [(REQUEST_DESIRED + p, m) for p, m in desired_state_errors(ctx.schema, ctx.desired)]


def desired_state_errors(schema: Any, desired: Any) -> list[tuple[str, str]]:
    """(pointer, message) for each way ``desired`` is not an input CloudFormation could send:
    the full schema, required included (but a readOnly property listed as required, which no
    request can carry), with the integers, numbers and booleans CloudFormation sends as strings
    ("6", "false") read as the handler library recasts them."""
    errors = schema.input_errors(desired)
    if any(_STRINGIFIED.match(m) for _, m in errors):
        desired = typed_as_sent(schema, desired)
        errors = schema.input_errors(desired)
    return [
        (p, with_constraint(schema, desired, p, m))
        for p, m in errors
        if not _read_only_required(schema, p, m)
    ]


_STRINGIFIED = re.compile(r"^'.*' is not of type '(integer|number|boolean)'$", re.S)


_REQUIRED = re.compile(r"^'(.+)' is a required property$", re.S)


def _read_only_required(schema: Any, pointer: str, message: str) -> bool:
    """A ``required`` error for a readOnly property: no request can carry it (the service sets
    it, CloudFormation refuses it in a template), so a schema that lists it as required
    describes the resource, not what a request must hold."""
    found = _REQUIRED.match(message)
    if found is None:
        return False
    name = found.group(1).replace("~", "~0").replace("/", "~1")
    return f"{pointer}/{name}" in schema.read_only


def input_no_read_only(ctx: StepContext) -> Problems:
    """A CREATE request that sets readOnly properties: CloudFormation rejects them in a
    template, so a test event with them tests something that cannot happen. SHOULD, since
    the contract says this only through "valid against the resource schema"."""
    if not _first(ctx) or ctx.schema is None or not isinstance(ctx.desired, dict):
        return []
    return [
        (REQUEST_DESIRED + pointer, f"readOnly {pointer} set in a CREATE request")
        for pattern in sorted(ctx.schema.read_only)
        for pointer, _ in expand_pattern(ctx.desired, pattern)
    ]


def input_create_only_unchanged(ctx: StepContext) -> Problems:
    """UPDATE: a createOnly property present in the desired state equals its previous value
    (CloudFormation replaces the resource instead of updating it). Only properties the request
    specifies are compared, and only when there is a previous state. A writeOnly property
    absent from the previous state is not compared: the previous state is the model a handler
    returned, which never carries writeOnly values, so "absent" there says nothing."""
    if not _first(ctx) or ctx.schema is None:
        return []
    if not isinstance(ctx.desired, dict) or not isinstance(ctx.previous, dict):
        return []
    problems: Problems = []
    write_only = ctx.schema.write_only
    for pattern in sorted(ctx.schema.create_only):
        before = dict(expand_pattern(ctx.previous, pattern))
        for pointer, value in expand_pattern(ctx.desired, pattern):
            item = ctx.schema.pattern_of(pointer)
            old = before.get(pointer, MISSING)
            if old is MISSING and (pattern in write_only or item in write_only):
                continue
            if old is MISSING or canonical_key(old, ctx.schema, item) != canonical_key(
                value, ctx.schema, item
            ):
                if is_write_only(ctx.schema, pointer):  # its values are never quoted
                    problems.append(
                        (REQUEST_DESIRED + pointer, f"writeOnly createOnly {pointer} changes")
                    )
                    continue
                was = "absent" if old is MISSING else short(old)
                problems.append(
                    (
                        REQUEST_DESIRED + pointer,
                        f"createOnly {pointer} changes from {was} to {short(value)}",
                    )
                )
    return problems


def input_identifier_present(ctx: StepContext) -> Problems:
    """READ, UPDATE and DELETE requests carry the primary identifier or a complete additional
    identifier in the desired state; for UPDATE the previous state counts too (it is part of
    the handler's input)."""
    if not _first(ctx) or ctx.schema is None:
        return []
    if ctx.schema.any_identifier_of(ctx.desired) is not None:
        return []
    if ctx.action is Action.UPDATE and ctx.schema.any_identifier_of(ctx.previous) is not None:
        return []
    names = ", ".join(ctx.schema.primary_identifier)
    return [(REQUEST_DESIRED, f"no primary identifier ({names}) nor an additional identifier")]
