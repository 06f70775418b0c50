"""The scenarios: named sequences of actions and the sequence-level verdicts between them.

Each one is data (name, title, description, the rules it judges, the handlers it needs) plus an
async function that plays it on a :class:`~cfn_debug.scenarios.play.Play`. The order is the order
``all`` runs them in: list-empty first, while the store still holds only what was there before.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cfn_debug.errors import CfnDebugError
from cfn_debug.records import Action
from cfn_debug.scenarios.inputs import (
    create_only_names,
    identifier_key,
    identifier_model,
    identifier_text,
    make_unique,
    unique_suffix,
    unique_value,
)
from cfn_debug.scenarios.play import (
    describe,
    error_code_of,
    failed_with,
    message_of,
    model_of,
    read_back_problems,
    status_of,
    succeeded,
)
from cfn_debug.scenarios.results import Purpose
from cfn_debug.schema import MISSING, resolve_pointer

if TYPE_CHECKING:
    from cfn_debug.scenarios.generate import Attempt
    from cfn_debug.scenarios.play import Play

C, R, U, D, L = Action.CREATE, Action.READ, Action.UPDATE, Action.DELETE, Action.LIST


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    description: str
    rules: tuple[str, ...]
    needs: frozenset[Action]
    play: Callable[[Play], Awaitable[None]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "rules": list(self.rules),
            "needs": sorted(a.value for a in self.needs),
        }


# --- the scenarios ------------------------------------------------------------------------------


async def list_empty(p: Play) -> None:
    listing = await p.list_all("list everything")
    if not succeeded(listing.runs[-1]):
        p.verdict(
            "scenario-list-empty",
            False,
            f"list ended {describe(listing.runs[-1])}",
            listing.runs[-1].event_name,
        )
        return
    if listing.models:
        p.skip(
            "scenario-list-empty",
            f"{len(listing.models)} resource(s) already exist: an empty list can only be "
            "checked against an empty store (for the demo: a fresh CFN_DEBUG_DEMO_STATE "
            "directory without its seed widgets)",
        )
        return
    first = listing.first_page
    models = first.get("resourceModels")
    ok = models == [] and not first.get("nextToken")
    if ok:
        text = "nothing to list: resourceModels is [] and nextToken is null"
    elif models is None:
        text = "nothing to list, but resourceModels is missing or null instead of []"
    else:
        text = f"nothing to list, but the first page has nextToken {first.get('nextToken')!r}"
    p.verdict("scenario-list-empty", ok, text, "list everything", "/resourceModels")


async def create_read(p: Play) -> None:
    created = await p.setup_create()
    if created is None:
        return
    run = await p.read(created.model, "read back")
    ok = succeeded(run)
    p.verdict(
        "scenario-read-after-create",
        ok,
        f"read of {identifier_text(created.identifier)} ended {describe(run)}",
        "read back",
    )
    if ok:
        p.check_read_back(p.create_input, run, "read back")


async def read_identifier_only(p: Play) -> None:
    created = await p.setup_create()
    if created is None:
        return
    label = "read with only the primary identifier"
    run = await p.read(identifier_model(created.identifier or {}), label)
    ok = succeeded(run)
    p.verdict("scenario-read-identifier-only", ok, f"the read ended {describe(run)}", label)
    if ok:
        p.check_read_back(p.create_input, run, label)


async def create_list(p: Play) -> None:
    created = await p.setup_create()
    if created is None:
        return
    listing = await p.list_all(model=created.model)
    _listed(p, "scenario-list-after-create", created.identifier, listing, present=True)


def _listed(p: Play, rule_id: str, identifier: Any, listing: Any, *, present: bool) -> bool:
    label = listing.runs[-1].event_name.split(": ", 1)[-1] if listing.runs else "list"
    if not listing.runs or not succeeded(listing.runs[-1]):
        p.verdict(rule_id, False, f"list ended {describe(listing.runs[-1])}", label)
        return False
    found = identifier_key(identifier) in listing.identifiers(p.schema)
    where = f"{len(listing.models)} model(s) over {len(listing.runs)} page(s)"
    if not listing.complete:
        where += ", pagination incomplete"
    text = identifier_text(identifier)
    if present:
        message = f"{text} {'is' if found else 'is not'} among the {where}"
    else:
        message = f"{text} {'is still' if found else 'is no longer'} among the {where}"
    ok = found if present else not found
    p.verdict(rule_id, ok, message, label, "/resourceModels")
    return ok


async def create_create(p: Play) -> None:
    named_by_service = sorted(set(p.schema.primary_identifier) - p.schema.create_only)
    created = await p.setup_create()
    if created is None:
        return
    label = "create the same input again (new clientRequestToken)"
    again = await p.create(p.create_input, label)
    ok = failed_with(again.run, "AlreadyExists")
    message = f"the second create ended {describe(again.run)}"
    second = succeeded(again.run) and again.identifier and again.identifier != created.identifier
    if second:
        message += f": a second resource {identifier_text(again.identifier)} now exists"
        if named_by_service:
            # `cfn test` runs this only for writable identifiers: when the service names each
            # resource (an id, an ARN), the same input twice may rightly be two resources
            ok = True
            message += (
                f" (the primary identifier part {', '.join(named_by_service)} is not "
                "createOnly: the service names each resource, so that is no duplicate)"
            )
    p.verdict("scenario-create-already-exists", ok, message, label, "/errorCode")


async def create_idempotent(p: Play) -> None:
    # without a LIST handler the two answers' identifiers and their READs tell it
    listed = p.schema.has_handler(L)
    before = await p.list_all("list before creating") if listed else None
    known = before.identifiers(p.schema) if before is not None and before.complete else None
    token = str(uuid.uuid4())
    created = await p.setup_create("create", token=token)
    if created is None:
        return
    label = "create again with the same clientRequestToken"
    again = await p.create(p.create_input, label, token=token)
    first = identifier_text(created.identifier)
    # SHOULD: answering the repeated request as the first was answered
    if succeeded(again.run) and again.identifier == created.identifier:
        p.verdict(
            "scenario-create-same-token",
            True,
            f"the repeated request ended SUCCESS naming {first}, as the first did",
            label,
        )
    elif not (succeeded(again.run) and again.identifier):
        p.verdict(
            "scenario-create-same-token",
            False,
            f"the repeated request ended {describe(again.run)}: a retry of the same request "
            "should get the first request's answer",
            label,
            "/errorCode" if failed_with(again.run, "AlreadyExists") else None,
        )
    # MUST: one resource, checked through the answer, read and list
    problems: list[str] = []
    if succeeded(again.run) and again.identifier and again.identifier != created.identifier:
        problems.append(
            f"the repeated request named {identifier_text(again.identifier)}, the first {first}"
        )
    read = await p.read(identifier_model(created.identifier or {}), f"read {first}")
    if not succeeded(read):
        problems.append(f"read of {first} ended {describe(read)}")
    second = again.identifier if succeeded(again.run) else None
    if second and second != created.identifier:
        other = identifier_text(second)
        read_again = await p.read(identifier_model(second), f"read {other}")
        if succeeded(read_again):
            problems.append(f"both exist: read of {other} succeeds too")
    counted = ""
    if not listed:
        counted = " (no LIST handler: checked through the answers and reads)"
        text = "; ".join(problems) or f"one resource, {first}: read succeeds{counted}"
        p.verdict("scenario-create-idempotent", not problems, text, label)
        return
    listing = await p.list_all("list after both requests", created.model)
    if listing.complete:
        listed = listing.identifiers(p.schema)
        if identifier_key(created.identifier) not in listed:
            problems.append(f"list does not show {first}")
        if known is not None:
            new = listed - known
            counted = f"; list shows {len(new)} new resource(s)"
            if len(new) > 1:
                problems.append(f"list shows {len(new)} new resources after the two requests")
    else:
        problems.append("list did not complete, so the resources could not be counted")
    text = "; ".join(problems) or f"one resource, {first}: read succeeds{counted}"
    p.verdict("scenario-create-idempotent", not problems, text, label)


async def update_read(p: Play) -> None:
    created = await p.setup_create()
    if created is None:
        return
    desired = p.update_request(created)
    updated = await p.setup_update(created)
    if updated is None:
        return
    # read with the model the update returned, as `cfn test` does (the create's may be stale)
    returned = model_of(updated) or created.model
    run = await p.read({**returned, **identifier_model(created.identifier or {})}, "read back")
    if not succeeded(run):
        p.verdict("scenario-read-back-equal", False, f"read ended {describe(run)}", "read back")
        return
    p.check_read_back(desired, run, "read back")


async def update_list(p: Play) -> None:
    created = await p.setup_create()
    if created is None:
        return
    before = await p.list_all("list before the update", created.model)
    updated = await p.setup_update(created)
    if updated is None:
        return
    current = {**(model_of(updated) or created.model), **identifier_model(created.identifier or {})}
    listing = await p.list_all(model=current)
    if not _listed(p, "scenario-list-after-update", created.identifier, listing, present=True):
        return
    if before.complete and listing.complete:  # what the update added, whatever its names
        new = listing.identifiers(p.schema) - before.identifiers(p.schema)
        if new:
            p.verdict(
                "scenario-list-after-update",
                False,
                f"{len(new)} resource(s) listed after the update that were not before it: "
                "the update made a new one",
                "list",
            )


async def update_without_create(p: Play) -> None:
    identifier = _never_created_identifier(p)
    base = p.runner.inputs.update or p.runner.default_update()
    previous = {**p.create_input, **identifier_model(identifier)}
    desired = {**p.create_input, **base, **p.unique_values}
    for name in create_only_names(p.schema, previous):
        desired[name] = previous[name]  # createOnly (and identifier) values as in previous
    desired.update(identifier_model(identifier))
    label = f"update {identifier_text(identifier)}, which was never created"
    run = await p.update(desired, previous, label)
    ok = failed_with(run, "NotFound") and bool(message_of(run).strip())
    text = f"the update ended {describe(run)}"
    if failed_with(run, "NotFound") and not ok:
        text += ", without a message"
    if succeeded(run):
        returned = p.schema.identifier_of(model_of(run) or {})
        if returned and returned != identifier:
            text += f": it created {identifier_text(returned)} instead"
    p.verdict("scenario-update-not-found", ok, text, label, "/errorCode")


def _never_created_identifier(p: Play) -> dict[str, Any]:
    """A primary identifier no resource has: settable parts from the create input, with a fresh
    suffix where a suffix is allowed (a reference keeps its value: the group exists, the member
    does not); readOnly parts generated from the schema."""
    from cfn_debug.scenarios.generate import fresh_identifier

    generated = fresh_identifier(p.schema)
    exempt = p.runner.inputs.unique_exempt | p.runner.options.unique_exempt
    fresh, changed = make_unique(p.schema, p.runner.inputs.create, unique_suffix(), exempt)
    suffixed = {"/" + name.replace("~", "~0").replace("/", "~1") for name in changed}
    identifier: dict[str, Any] = {}
    new_part = False
    for pointer in p.schema.primary_identifier:
        value = resolve_pointer(fresh, pointer)
        if pointer in p.schema.read_only or value is MISSING:
            # the service names it: a generated value names no resource, and the settable
            # parts (a table the setup stack made, say) keep what the create input gives
            identifier[pointer] = generated[pointer]
            new_part = True
        else:
            identifier[pointer] = value
            new_part = new_part or pointer in suffixed
    if new_part:
        return identifier
    # no part could be made new: generate the others, but keep what names a resource that
    # exists before the tests (the account a contact belongs to, say)
    return {
        pointer: identifier[pointer] if pointer in exempt else generated[pointer]
        for pointer in p.schema.primary_identifier
    }


def _other_value(p: Play, name: str) -> Any:
    """Another value for createOnly ``name`` the schema accepts, or the same one when none is
    found: another ``enum`` member, else the string with a fresh suffix."""
    value = p.create_input[name]
    for sub in p.schema.subschemas("/" + name.replace("~", "~0").replace("/", "~1")):
        choices = sub.get("enum")
        if isinstance(choices, list):
            return next((c for c in choices if c != value), value)
    if isinstance(value, str):
        return unique_value(p.schema, {**p.create_input}, name, unique_suffix())
    return value


async def update_create_only(p: Play) -> None:
    identifier = set(p.schema.primary_identifier)
    # not an identifier part (changing one addresses another resource), not writeOnly (the
    # previous state never shows it), not a reference (another value names nothing)
    names = [
        n
        for n in create_only_names(p.schema, p.create_input)
        if "/" + n.replace("~", "~0").replace("/", "~1") not in identifier | p.schema.write_only
        and not any("relationshipRef" in sub for sub in p.schema.subschemas("/" + n))
        and _other_value(p, n) != p.create_input[n]
    ]
    if not names:
        p.skip(
            "scenario-create-only-not-updatable",
            "no createOnly property outside the identifier with another valid value",
        )
        return
    created = await p.setup_create()
    if created is None:
        return
    name = names[0]
    desired = p.update_request(created)
    changed = _other_value(p, name)
    desired[name] = changed
    label = f"update with createOnly {name} changed to {changed!r}"
    # The request breaks an input assumption on purpose: that finding is the premise here. A
    # handler may assume a createOnly property never changes (CloudFormation replaces the
    # resource instead): it may answer with the value the resource has (not the one this
    # request asks for), or address the resource by the changed value and fail on an AWS error
    # it never expected. Both are that assumption, judged by the SHOULD below, not MUSTs of
    # their own (found trying AWSSamples::EC2::ImportKeyPair, whose update only changes tags,
    # and JB::EMR::StepConcurrencyLevel, whose update describes the cluster the request names).
    waived = ("input-create-only-unchanged", "requested-properties-returned", "handler-exception")
    run = await p.update(desired, created.model, label, waived=waived)
    ok = failed_with(run, "NotUpdatable")
    p.verdict(
        "scenario-create-only-not-updatable",
        ok,
        f"the update ended {describe(run)}" + ("" if ok else "; expected FAILED NotUpdatable"),
        label,
        "/" + name,
    )


async def delete_read(p: Play) -> None:
    created = await p.setup_create()
    if created is None or await p.setup_delete(created) is None:
        return
    run = await p.read(created.model, "read after delete")
    _not_found(p, run, "read after delete")


async def delete_update(p: Play) -> None:
    created = await p.setup_create()
    if created is None:
        return
    desired = p.update_request(created)
    if await p.setup_delete(created) is None:
        return
    run = await p.update(desired, created.model, "update after delete")
    _not_found(p, run, "update after delete")


async def delete_delete(p: Play) -> None:
    created = await p.setup_create()
    if created is None or await p.setup_delete(created) is None:
        return
    run = await p.delete(created.model, "delete again")
    _not_found(p, run, "delete again")


def _not_found(p: Play, run: Any, label: str) -> None:
    p.verdict(
        "scenario-not-found-after-delete",
        failed_with(run, "NotFound"),
        f"{run.action.value.lower()} of the deleted resource ended {describe(run)}",
        label,
        "/errorCode",
    )


async def delete_list(p: Play) -> None:
    created = await p.setup_create()
    if created is None or await p.setup_delete(created) is None:
        return
    listing = await p.list_all("list after delete", created.model)
    _listed(p, "scenario-list-after-delete", created.identifier, listing, present=False)


async def delete_create(p: Play) -> None:
    created = await p.setup_create()
    if created is None or await p.setup_delete(created) is None:
        return
    label = "create the same input again"
    again = await p.create(p.create_input, label)
    if failed_with(again.run, "AlreadyExists") and p.runner.leaked:
        p.leak_skip(f"the create after delete ended {describe(again.run)}")
        return
    ok = not failed_with(again.run, "AlreadyExists")
    p.verdict(
        "scenario-create-after-delete",
        ok,
        f"the create after delete ended {describe(again.run)}",
        label,
        "/errorCode",
    )


async def generated_inputs(p: Play) -> None:
    from cfn_debug.scenarios.generate import Attempt, search
    from cfn_debug.scenarios.play import Play as PlayClass

    options = p.runner.options
    if options.examples <= 0:
        p.skip("scenario-generated-inputs", "no generated inputs asked for (--examples 0)")
        return
    loop = asyncio.get_running_loop()
    overrides = p.runner.inputs.overrides.get("CREATE", {})
    rejected: list[dict[str, Any]] = []
    refused: list[tuple[dict[str, Any], str]] = []  # created nothing, cleanly FAILED

    async def attempt(model: dict[str, Any]) -> Attempt:
        from cfn_debug.scenarios.inputs import apply_overrides

        sub = PlayClass(p.runner, p.name, p.result.title, p.emit, quiet=True)
        sent = apply_overrides(model, overrides) if overrides else model
        sent, sub.unique_values = sub.make_unique(sent)
        sub.create_input = sent
        reasons = await _try_generated(sub, sent)
        if sub.refused and not reasons:
            refused.append((model, sub.refused))
        elif sub.result.notes and not reasons:
            rejected.append(model)
        try:
            await sub.cleanup()
        except Exception as error:  # reported with the attempt; the search goes on
            reasons.append(f"cleanup failed: {error}")
        return Attempt(model, bool(reasons), reasons, payload=sub)

    def try_input(model: dict[str, Any]) -> Attempt:
        return asyncio.run_coroutine_threadsafe(attempt(model), loop).result()

    found = await asyncio.to_thread(
        search,
        p.schema,
        try_input,
        examples=options.examples,
        budget=options.examples + options.shrink_budget,
        seed=options.seed,
    )
    p.result.examples_run = found.attempts
    if rejected:
        p.note(
            f"{len(rejected)} generated input(s) rejected with FAILED InvalidRequest: not judged "
            "(the schema cannot express every rule of the service)"
        )
    if refused:
        model, why = refused[0]
        p.verdict(
            "scenario-generated-inputs-created",
            False,
            f"{len(refused)} of {found.attempts} generated input(s) not created; the first, "
            f"{json.dumps(model, ensure_ascii=False)}: {why} (a value naming a resource that "
            "must exist? give it in inputs/ or overrides.json)",
            "create (generated input)",
        )
    if found.failure is None:
        judged = found.attempts - len(rejected) - len(refused)
        if judged <= 0 and refused:
            p.skip(
                "scenario-generated-inputs",
                "no generated input was created, so none could be read back and deleted",
            )
            return
        p.verdict(
            "scenario-generated-inputs",
            True,
            f"{judged} generated input(s) created, read back equal and deleted"
            + (f"; {len(rejected)} rejected with InvalidRequest" if rejected else ""),
        )
        return
    failure = found.failure
    sub = failure.payload
    # what the create sent (overrides applied, unique values suffixed), not the generated model
    sent = sub.create_input if isinstance(sub.create_input, dict) else failure.model
    p.result.minimal_input = sent
    _replay(p, sub)
    stopped = " (shrinking stopped at the run budget)" if found.budget_exhausted else ""
    text = (
        f"minimal failing input{stopped}, as sent: {json.dumps(sent, ensure_ascii=False)}"
        + (
            f" (generated as {json.dumps(failure.model, ensure_ascii=False)})"
            if sent != failure.model
            else ""
        )
        + f"; after {found.attempts} input(s): "
        + "; ".join(failure.reasons[:5])
    )
    p.verdict("scenario-generated-inputs", False, text, "create (generated input)")


async def _try_generated(sub: Play, model: dict[str, Any]) -> list[str]:
    reasons: list[str] = []

    def findings(run: Any, label: str) -> None:
        for f in run.must_failures:
            reasons.append(f"{label}: {f.rule_id}: {f.message.splitlines()[0]}")

    created = await sub.create(model, "create (generated input)")
    findings(created.run, "create")
    if failed_with(created.run, "InvalidRequest") and not created.run.must_failures:
        # the schema cannot say everything the service refuses: rejecting an input it allows
        # is the handler's right, and FAILED InvalidRequest is the way to say so
        sub.result.notes.append("rejected with InvalidRequest (not judged)")
        return reasons
    if status_of(created.run) == "FAILED" and error_code_of(created.run) and not reasons:
        # nor can it say that a name must belong to a resource that exists (a bucket, a table):
        # a correct handler answers FAILED NotFound (or what the service said) for a generated
        # one, so a clean FAILED is the SHOULD scenario-generated-inputs-created, not a MUST
        sub.refused = f"create ended {describe(created.run)}"
        return reasons
    if not succeeded(created.run):
        reasons.append(f"create ended {describe(created.run)}")
        return reasons
    read = await sub.read(created.model, "read back")
    findings(read, "read")
    if not succeeded(read):
        reasons.append(f"read ended {describe(read)}")
    else:
        problems = read_back_problems(sub.schema, model, model_of(read) or {})
        reasons.extend(f"read back: {text}" for _, text in problems[:3])
    deleted = await sub.delete(created.model, "delete")
    findings(deleted, "delete")
    if not succeeded(deleted):
        reasons.append(f"delete ended {describe(deleted)}")
    return reasons


def _replay(p: Play, sub: Play) -> None:
    """Show the minimal failing input's chains in the scenario, as if they ran there."""
    from cfn_debug.records import RunEnded, RunStarted, StepCompleted
    from cfn_debug.scenarios.results import ActionStarted

    for action in sub.result.actions:
        p.result.actions.append(action)
        p.emit(ActionStarted(p.name, action.label, action.purpose, action.waived))
        run = action.run
        p.emit(RunStarted(run=type(run)(**{**run.__dict__, "steps": []})))
        for step in run.steps:
            p.emit(StepCompleted(run.run_id, step))
        p.emit(RunEnded(run=run))
    for line in sub.result.cleanup:
        p.result.cleanup.append(f"minimal input: {line}")
    p.result.leaked.extend(sub.result.leaked)
    if any(a.purpose is Purpose.CLEANUP for a in sub.result.actions):
        p.note("the minimal input's cleanup is shown with its chains")


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "list-empty",
        "list of nothing",
        "List every page; when nothing exists, the answer must be an empty array.",
        ("scenario-list-empty",),
        frozenset({L}),
        list_empty,
    ),
    Scenario(
        "create-read",
        "create, then read",
        "Create, then read with the model create returned: it succeeds and what was requested "
        "reads back equal (writeOnly and readOnly excepted, insertionOrder-false arrays as "
        "multisets).",
        ("scenario-read-after-create", "scenario-read-back-equal"),
        frozenset({C, R, D}),
        create_read,
    ),
    Scenario(
        "read-identifier-only",
        "read with only the primary identifier",
        "Create, then read with nothing but the primary identifier: the handler must not rely "
        "on anything else in the request.",
        ("scenario-read-identifier-only", "scenario-read-back-equal"),
        frozenset({C, R, D}),
        read_identifier_only,
    ),
    Scenario(
        "create-list",
        "create, then list",
        "Create, then list every page (following nextToken): the identifier is listed.",
        ("scenario-list-after-create", "scenario-list-pagination"),
        frozenset({C, L, D}),
        create_list,
    ),
    Scenario(
        "create-create",
        "create, then create again",
        "Create, then create the same input under a new clientRequestToken: AlreadyExists.",
        ("scenario-create-already-exists",),
        frozenset({C, D}),
        create_create,
    ),
    Scenario(
        "create-idempotent",
        "the same clientRequestToken twice",
        "Create twice with one clientRequestToken: one resource (checked through the answers' "
        "identifiers, read, and list where the type has one); the repeated request should get "
        "the first answer.",
        ("scenario-create-idempotent", "scenario-create-same-token"),
        frozenset({C, R, D}),
        create_idempotent,
    ),
    Scenario(
        "update-read",
        "update, then read",
        "Create, update, then read: what the update asked for reads back equal.",
        ("scenario-read-back-equal",),
        frozenset({C, U, R, D}),
        update_read,
    ),
    Scenario(
        "update-list",
        "update, then list",
        "Create, update, then list: the identifier is still listed, and the update made no "
        "new resource (list before and after).",
        ("scenario-list-after-update",),
        frozenset({C, U, L, D}),
        update_list,
    ),
    Scenario(
        "update-without-create",
        "update without create",
        "Update an identifier that was never created: FAILED NotFound with a message.",
        ("scenario-update-not-found",),
        frozenset({U}),
        update_without_create,
    ),
    Scenario(
        "update-create-only",
        "update of a createOnly property",
        "Create, then update with a createOnly property changed: FAILED NotUpdatable.",
        ("scenario-create-only-not-updatable",),
        frozenset({C, U, D}),
        update_create_only,
    ),
    Scenario(
        "delete-read",
        "delete, then read",
        "Create, delete, then read: FAILED NotFound.",
        ("scenario-not-found-after-delete",),
        frozenset({C, D, R}),
        delete_read,
    ),
    Scenario(
        "delete-update",
        "delete, then update",
        "Create, delete, then update: FAILED NotFound (and nothing created).",
        ("scenario-not-found-after-delete",),
        frozenset({C, D, U}),
        delete_update,
    ),
    Scenario(
        "delete-delete",
        "delete, then delete again",
        "Create, delete, then delete again: FAILED NotFound.",
        ("scenario-not-found-after-delete",),
        frozenset({C, D}),
        delete_delete,
    ),
    Scenario(
        "delete-list",
        "delete, then list",
        "Create, delete, then list every page: the identifier is gone.",
        ("scenario-list-after-delete",),
        frozenset({C, D, L}),
        delete_list,
    ),
    Scenario(
        "delete-create",
        "delete, then create again",
        "Create, delete, then create the same input again: not AlreadyExists.",
        ("scenario-create-after-delete",),
        frozenset({C, D}),
        delete_create,
    ),
    Scenario(
        "generated-inputs",
        "inputs generated from the schema",
        "Inputs generated from the schema (hypothesis-jsonschema): each is created, read back "
        "equal and deleted; the first failure is shrunk to a minimal input.",
        ("scenario-generated-inputs", "scenario-generated-inputs-created"),
        frozenset({C, R, D}),
        generated_inputs,
    ),
)

_BY_NAME = {s.name: s for s in SCENARIOS}


def scenario(name: str) -> Scenario:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise CfnDebugError(
            f"no scenario {name!r}; expected 'all' or one of: {', '.join(_BY_NAME)}",
            field="NAME",
        ) from None


def select(names: Sequence[str]) -> list[Scenario]:
    """The scenarios named (``all``: every one), in catalogue order, each once."""
    if not names or "all" in names:
        return list(SCENARIOS)
    wanted = {scenario(n).name for n in names}
    return [s for s in SCENARIOS if s.name in wanted]
