"""The scenarios around CREATE: list-empty, create then read, read by identifier, create then
list, a second create of the same input, an idempotent create."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from cfn_debug.records import Action
from cfn_debug.scenarios.inputs import (
    identifier_key,
    identifier_text,
)
from cfn_debug.scenarios.outcome import (
    describe,
    failed_with,
    judge_listed,
    stand_in_repeat,
    succeeded,
)
from cfn_debug.schema import identifier_model

if TYPE_CHECKING:
    from cfn_debug.scenarios.play import Play

C, R, U, D, L = Action.CREATE, Action.READ, Action.UPDATE, Action.DELETE, Action.LIST


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
    judge_listed(p, "scenario-list-after-create", created.identifier, listing, present=True)


async def create_create(p: Play) -> None:
    named_by_service = sorted(set(p.schema.primary_identifier) - p.schema.create_only)
    created = await p.setup_create()
    if created is None:
        return
    label = "create the same input again (new clientRequestToken)"
    again = await p.create(p.create_input, label)
    ok = failed_with(again.run, "AlreadyExists")
    echoed = None if ok else stand_in_repeat(p, created.run, again.run)
    if echoed is not None:
        p.skip("scenario-create-already-exists", f"the second create {echoed}")
        return
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
    # a READ that fails with the identifier alone is scenario-read-identifier-only's to judge:
    # it says nothing about how many resources the two requests made
    unread = None if succeeded(read) else f"a read of {first} ended {describe(read)}"
    second = again.identifier if succeeded(again.run) else None
    if second and second != created.identifier:
        other = identifier_text(second)
        read_again = await p.read(identifier_model(second), f"read {other}")
        if succeeded(read_again):
            problems.append(f"both exist: read of {other} succeeds too")
    counted = ""
    if not listed:
        counted = " (no LIST handler: checked through the answers and reads)"
        if unread is not None and not problems:
            p.skip(
                "scenario-create-idempotent",
                f"both requests named {first}, but {unread} (see scenario-read-identifier-"
                "only), so the resources could not be counted without a LIST handler",
            )
            return
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
    read_note = ": read succeeds" if unread is None else f" ({unread})"
    text = "; ".join(problems) or f"one resource, {first}{read_note}{counted}"
    p.verdict("scenario-create-idempotent", not problems, text, label)
