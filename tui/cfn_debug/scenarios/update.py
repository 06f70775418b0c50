"""The scenarios around UPDATE: update then read or list, update without a create, a changed
createOnly property."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cfn_debug.records import RunRecord
from cfn_debug.scenarios.generate import fresh_identifier
from cfn_debug.scenarios.inputs import (
    create_only_names,
    identifier_text,
    make_unique,
    unique_suffix,
    unique_value,
)
from cfn_debug.scenarios.outcome import (
    describe,
    error_code_of,
    failed_with,
    judge_listed,
    message_of,
    model_of,
    status_of,
    succeeded,
)
from cfn_debug.schema import MISSING, identifier_model, resolve_pointer

if TYPE_CHECKING:
    from cfn_debug.scenarios.play import Play


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
    if not judge_listed(p, "scenario-list-after-update", created.identifier, listing, present=True):
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
    failed_create = p.runner.create_failed
    if (
        failed_create is not None
        and not p.runner.create_succeeded
        and not failed_with(run, "NotFound")
        and not succeeded(run)
    ):
        # every create so far failed: whatever stops the handler here (no type configuration,
        # a service it cannot reach) stops a correct handler too
        p.block(
            f"{label} ended {describe(run)}, and no create has succeeded in this run (the "
            f"first ended {failed_create}): not judged, the handler may not work here at all"
        )
        return
    refused = await refused_anyway(p, run)
    if refused is not None:
        p.block(f"{label} ended {describe(run)}{refused}")
        return
    text = f"the update ended {describe(run)}"
    if failed_with(run, "NotFound") and not ok:
        text += ", without a message"
    if succeeded(run):
        returned = p.schema.identifier_of(model_of(run) or {})
        if returned and returned != identifier:
            text += f": it created {identifier_text(returned)} instead"
    p.verdict("scenario-update-not-found", ok, text, label, "/errorCode")


async def refused_anyway(p: Play, run: RunRecord) -> str | None:
    """When ``run``, an update of a resource that does not exist, ended FAILED with an error
    code other than NotFound, and the same update input of a resource that exists ends FAILED
    with that code too: why NotFound is not judged (the text to put after the run's outcome).
    The handler refuses the input itself (a property it cannot change, say), and a correct
    handler may look at its input before it looks for the resource. Else None.

    Known from the first update of a created resource a scenario sent (update-read runs before
    the scenarios that ask), else found out once: a create and that update, deleted by the
    cleanup."""
    code = error_code_of(run)
    if status_of(run) != "FAILED" or code in (None, "NotFound"):
        return None
    if p.runner.update_outcome is None:
        label = "create, to see whether the handler takes this update of a resource that exists"
        created = await p.create(p.create_input, label)
        if not (succeeded(created.run) and created.identifier):
            return None
        probe = await p.update(
            p.update_request(created), created.model, "the same update of that resource"
        )
        if status_of(probe) in ("SUCCESS", "FAILED"):
            p.runner.update_outcome = probe
    known = p.runner.update_outcome
    if known is None or not failed_with(known, code):
        return None
    return (
        f", as the same update of a resource that exists did ({describe(known)}): the handler "
        "refuses this update input whatever the resource, so whether it answers NotFound is "
        "not judged; give an update input it takes"
    )


def _never_created_identifier(p: Play) -> dict[str, Any]:
    """A primary identifier no resource has: settable parts from the create input, with a fresh
    suffix where a suffix is allowed (a reference keeps its value: the group exists, the member
    does not); readOnly parts generated from the schema."""
    generated: dict[str, Any] = {}

    def generate(pointer: str) -> Any:  # a part at a time: most identifiers need none
        if pointer not in generated:
            generated.update(fresh_identifier(p.schema, (pointer,)))
        return generated[pointer]

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
            identifier[pointer] = generate(pointer)
            new_part = True
        else:
            identifier[pointer] = value
            new_part = new_part or pointer in suffixed
    if new_part:
        return identifier
    # no part could be made new: generate the others, but keep what names a resource that
    # exists before the tests (the account a contact belongs to, say)
    return {
        pointer: identifier[pointer] if pointer in exempt else generate(pointer)
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
