"""The read-back checks: a CREATE/UPDATE SUCCESS model, and the request's desired state, held
against the READ cfn-debug sends right after it (:mod:`cfn_debug.readback`). Their findings go
on the SUCCESS step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cfn_debug.contract.requested import comparable_request, short, transformed_properties
from cfn_debug.contract.rules import rule
from cfn_debug.records import Action, Finding, Level, Step
from cfn_debug.schema import (
    MISSING,
    ResourceSchema,
    expand_pattern,
    join_pointer,
    resolve_pointer,
)

Problems = list[tuple[str | None, str]]
#: a read-back check: (schema, the SUCCESS step, the READ step, the request's desired state, or
#: None when it is not to be judged) -> problems
Check = Callable[[ResourceSchema | None, Step, Step, dict[str, Any] | None], Problems]


def _model(step: Step) -> dict[str, Any] | None:
    model = (step.result.progress or {}).get("resourceModel") if step.result.progress else None
    return model if isinstance(model, dict) else None


def read_back_succeeds(
    schema: ResourceSchema | None,
    success: Step,
    read: Step,
    requested: dict[str, Any] | None = None,
) -> Problems:
    """After a CREATE or UPDATE SUCCESS, a READ with the primary identifier the handler returned
    must succeed: the resource exists (CREATE: "a subsequent read request MUST succeed"; UPDATE:
    desired-state stabilization "is verified by calling the Read handler", and a read handler
    answers NotFound only for what does not exist). Reported only when the READ answered a
    proper FAILED: a READ that crashed, timed out or answered IN_PROGRESS has that finding on
    its own step (the root cause is there), and an endpoint that could not be reached is no
    finding at all."""
    if read.result.status == "SUCCESS" or any(f.level is Level.MUST for f in read.findings):
        return []
    progress = read.result.progress or {}
    code = progress.get("errorCode")
    message = progress.get("message")
    answer = f"{read.result.status or read.result.kind.value}" + (f" {code}" if code else "")
    if isinstance(message, str) and message:
        answer += f": {short(message, 160)}"
    verb = "created" if success.action is Action.CREATE else "updated"
    return [
        (
            "/resourceModel",
            f"the READ cfn-debug sent with the returned primary identifier ended {answer}: the "
            f"resource the {success.action.value} reported {verb} cannot be read",
        )
    ]


def read_back_complete(
    schema: ResourceSchema | None,
    success: Step,
    read: Step,
    requested: dict[str, Any] | None = None,
) -> Problems:
    """Every readOnly property the READ returns with a value is in the SUCCESS model: "The model
    MUST contain all properties that have values, including ... any readOnlyProperties". The
    READ proves the value exists, so this is a MUST where read-only-properties-present (which
    cannot know) is a SHOULD. Not reported: writeOnly properties (never expected in a returned
    model), empty arrays and objects (cloudformation-cli-python-lib turns them into None),
    requested properties the SUCCESS model lacks (requested-properties-returned says so
    already), the primary identifier (primary-identifier-present), and a nested readOnly
    property whose parent the SUCCESS model lacks altogether (one finding per cause)."""
    if schema is None or read.result.status != "SUCCESS":
        return []
    before, after = _model(success), _model(read)
    if before is None or after is None:
        return []
    problems: Problems = []
    skip = set(schema.primary_identifier) | schema.write_only
    for pattern in sorted(schema.read_only - skip):
        for pointer, value in expand_pattern(after, pattern):
            if value is None or value == [] or value == {}:
                continue
            parent = pointer.rsplit("/", 1)[0]
            if parent and resolve_pointer(before, parent) is MISSING:
                continue  # the whole parent is missing: that is the parent's finding
            if resolve_pointer(before, pointer) is MISSING:
                problems.append(
                    (
                        "/resourceModel" + pointer,
                        f"readOnly {pointer} is missing, but the READ right after returns it: "
                        f"{short(value, 80)}",
                    )
                )
    return problems


def read_back_keeps_requested(
    schema: ResourceSchema | None,
    success: Step,
    read: Step,
    requested: dict[str, Any] | None = None,
) -> Problems:
    """Every property the request's desired state set with a value is in the model of the READ
    right after SUCCESS: desired-state stabilization "is verified by calling the Read handler",
    and a read model "MUST contain all properties that have values". Only whether the READ
    holds the property is judged here, not its value (scenario-read-back-equal compares
    values). Not reported: what scenario-read-back-equal exempts too (writeOnly and readOnly
    properties, and all below them), deprecated properties and those with a propertyTransform
    (as requested-properties-returned), the primary identifier (the READ was sent with it),
    values that hold nothing (null, "", and arrays and objects with nothing else inside:
    cloudformation-cli-python-lib turns [] and {} into None, and many services keep no empty
    string), what the SUCCESS model lacks as well (requested-properties-returned says so
    already), anything inside an array (elements are compared whole, by the scenario), a
    property whose parent the READ lacks altogether (the parent is reported: one finding per
    cause), and a request that is invalid (its input-valid finding, or an inputs_N_invalid
    event, is the cause). Judged only when the READ answered SUCCESS with a model."""
    if schema is None or requested is None or read.result.status != "SUCCESS":
        return []
    before, after = _model(success), _model(read)
    if before is None or after is None:
        return []
    also = schema.deprecated | transformed_properties(schema) | set(schema.primary_identifier)
    wanted = comparable_request(schema, requested, also=also)
    return [
        (
            "/resourceModel" + pointer,
            f"requested {pointer} = {short(value, 60)} is missing from the READ right after "
            "SUCCESS",
        )
        for pointer, value in _lacking(wanted, after, before)
    ]


def _lacking(wanted: dict[str, Any], read: dict[str, Any], returned: Any) -> list[tuple[str, Any]]:
    """(pointer, value) of each value ``wanted`` holds that ``read`` lacks and ``returned`` (the
    SUCCESS model at the same place) has; into objects only, and not below what is lacking.
    A walk with a list, not recursion: a request nested hundreds of levels deep is judged, not a
    RecursionError."""
    found: list[tuple[str, Any]] = []
    pending: list[tuple[dict[str, Any], dict[str, Any], Any, str]] = [(wanted, read, returned, "")]
    while pending:
        wants, has, kept_here, pointer = pending.pop()
        below = []
        for key, value in wants.items():
            if not _has_value(value):
                continue
            here = join_pointer(pointer, key)
            kept = kept_here.get(key, MISSING) if isinstance(kept_here, dict) else MISSING
            if key not in has:
                if kept is not MISSING:
                    found.append((here, value))
            elif isinstance(value, dict) and isinstance(has[key], dict):
                below.append((value, has[key], kept, here))
        pending.extend(reversed(below))
    return found


def _has_value(value: Any) -> bool:
    """Whether ``value`` holds anything: null, "" and arrays and objects of nothing do not."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif item is not None and item != "":
            return True
    return False


#: rule id -> check, for every read-back rule (scope "read-back").
READ_BACK_CHECKS: dict[str, Check] = {
    "read-back-succeeds": read_back_succeeds,
    "read-back-complete": read_back_complete,
    "read-back-keeps-requested": read_back_keeps_requested,
}


def read_back_findings(
    schema: ResourceSchema | None,
    success: Step,
    read: Step,
    requested: dict[str, Any] | None = None,
) -> list[Finding]:
    """The read-back findings for ``success`` (a CREATE/UPDATE SUCCESS step), given the READ
    sent right after it and the request's desired state (None: not judged, see
    :func:`read_back_keeps_requested`)."""
    findings = []
    for rule_id, check in READ_BACK_CHECKS.items():
        entry = rule(rule_id)
        if success.action not in entry.actions:
            continue
        for pointer, message in check(schema, success, read, requested):
            findings.append(Finding(rule_id, Level(entry.level), message, pointer, success.index))
    return findings
