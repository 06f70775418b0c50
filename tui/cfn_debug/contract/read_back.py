"""The read-back checks: a CREATE/UPDATE SUCCESS model held against the READ cfn-debug sends
right after it (:mod:`cfn_debug.readback`). Their findings go on the SUCCESS step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cfn_debug.contract.requested import short
from cfn_debug.contract.rules import rule
from cfn_debug.records import Action, Finding, Level, Step
from cfn_debug.schema import MISSING, ResourceSchema, expand_pattern, resolve_pointer

Problems = list[tuple[str | None, str]]


def _model(step: Step) -> dict[str, Any] | None:
    model = (step.result.progress or {}).get("resourceModel") if step.result.progress else None
    return model if isinstance(model, dict) else None


def read_back_succeeds(schema: ResourceSchema | None, success: Step, read: Step) -> Problems:
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


def read_back_complete(schema: ResourceSchema | None, success: Step, read: Step) -> Problems:
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


#: rule id -> check, for every read-back rule (scope "read-back").
READ_BACK_CHECKS: dict[str, Callable[[ResourceSchema | None, Step, Step], Problems]] = {
    "read-back-succeeds": read_back_succeeds,
    "read-back-complete": read_back_complete,
}


def read_back_findings(schema: ResourceSchema | None, success: Step, read: Step) -> list[Finding]:
    findings = []
    for rule_id, check in READ_BACK_CHECKS.items():
        entry = rule(rule_id)
        if success.action not in entry.actions:
            continue
        for pointer, message in check(schema, success, read):
            findings.append(Finding(rule_id, Level(entry.level), message, pointer, success.index))
    return findings
