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
    failed_with,
    message_of,
    model_of,
    read_back_problems,
    succeeded,
)
from cfn_debug.scenarios.results import Purpose

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
    listing = await p.list_all()
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
    created = await p.setup_create()
    if created is None:
        return
    label = "create the same input again (new clientRequestToken)"
    again = await p.create(p.create_input, label)
    ok = failed_with(again.run, "AlreadyExists")
    message = f"the second create ended {describe(again.run)}"
    if succeeded(again.run) and again.identifier and again.identifier != created.identifier:
        message += f": a second resource {identifier_text(again.identifier)} now exists"
    p.verdict("scenario-create-already-exists", ok, message, label, "/errorCode")


async def create_idempotent(p: Play) -> None:
    token = str(uuid.uuid4())
    created = await p.setup_create("create", token=token)
    if created is None:
        return
    label = "create again with the same clientRequestToken"
    again = await p.create(p.create_input, label, token=token)
    problems: list[str] = []
    if not succeeded(again.run):
        problems.append(f"the repeated request ended {describe(again.run)}, not SUCCESS")
    elif again.identifier != created.identifier:
        problems.append(
            f"the repeated request named {identifier_text(again.identifier)}, the first "
            f"{identifier_text(created.identifier)}"
        )
    listing = await p.list_all()
    if listing.runs and succeeded(listing.runs[-1]):
        mine = _same_request(p, listing.models)
        ids = {identifier_key(p.schema.identifier_of(m)) for m in mine}
        if len(ids) > 1:
            problems.append(f"list shows {len(ids)} resources made from this one request")
        elif identifier_key(created.identifier) not in listing.identifiers(p.schema):
            problems.append(f"list does not show {identifier_text(created.identifier)}")
    else:
        problems.append("list did not succeed, so the resources could not be counted")
    text = "; ".join(problems) or (
        f"both requests named {identifier_text(created.identifier)}, and list shows one resource"
    )
    p.verdict("scenario-create-idempotent", not problems, text, label)


def _same_request(p: Play, models: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Listed models carrying this run's unique values (when list returns them)."""
    if not p.unique_values:
        return []
    return [m for m in models if all(m.get(k) == v for k, v in p.unique_values.items())]


async def update_read(p: Play) -> None:
    created = await p.setup_create()
    if created is None:
        return
    desired = p.update_request(created)
    if await p.setup_update(created) is None:
        return
    run = await p.read(created.model, "read back")
    if not succeeded(run):
        p.verdict("scenario-read-back-equal", False, f"read ended {describe(run)}", "read back")
        return
    p.check_read_back(desired, run, "read back")


async def update_list(p: Play) -> None:
    created = await p.setup_create()
    if created is None:
        return
    if await p.setup_update(created) is None:
        return
    listing = await p.list_all()
    if not _listed(p, "scenario-list-after-update", created.identifier, listing, present=True):
        return
    mine = {identifier_key(p.schema.identifier_of(m)) for m in _same_request(p, listing.models)}
    if len(mine) > 1:
        p.verdict(
            "scenario-list-after-update",
            False,
            f"{len(mine)} listed resources carry this run's unique values: the update made one",
            "list",
        )


async def update_without_create(p: Play) -> None:
    from cfn_debug.scenarios.generate import fresh_identifier

    identifier = fresh_identifier(p.schema)
    base = p.runner.inputs.update or p.runner.default_update()
    desired = {**p.create_input, **base, **p.unique_values, **identifier_model(identifier)}
    for name in create_only_names(p.schema, p.create_input):
        desired[name] = p.create_input[name]
    label = f"update {identifier_text(identifier)}, which was never created"
    previous = {**p.create_input, **identifier_model(identifier)}
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


async def update_create_only(p: Play) -> None:
    names = [
        n for n in create_only_names(p.schema, p.create_input) if isinstance(p.create_input[n], str)
    ]
    if not names:
        p.skip(
            "scenario-create-only-not-updatable",
            "no settable createOnly string property in the create input",
        )
        return
    created = await p.setup_create()
    if created is None:
        return
    name = names[0]
    desired = p.update_request(created)
    original = p.runner.inputs.create
    changed = unique_value(p.schema, {**original}, name, unique_suffix())
    if changed == desired[name]:
        p.skip("scenario-create-only-not-updatable", f"no other valid value for {name} found")
        return
    desired[name] = changed
    label = f"update with createOnly {name} changed to {changed!r}"
    # The request breaks an input assumption on purpose: that finding is the premise here.
    run = await p.update(desired, created.model, label, waived=("input-create-only-unchanged",))
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
    listing = await p.list_all("list after delete")
    _listed(p, "scenario-list-after-delete", created.identifier, listing, present=False)


async def delete_create(p: Play) -> None:
    created = await p.setup_create()
    if created is None or await p.setup_delete(created) is None:
        return
    label = "create the same input again"
    again = await p.create(p.create_input, label)
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

    async def attempt(model: dict[str, Any]) -> Attempt:
        from cfn_debug.scenarios.inputs import apply_overrides

        sub = PlayClass(p.runner, p.name, p.result.title, p.emit, quiet=True)
        sent = apply_overrides(model, overrides) if overrides else model
        sent, sub.unique_values = make_unique(
            p.schema, sent, sub.suffix, p.runner.inputs.unique_exempt
        )
        sub.create_input = sent
        reasons = await _try_generated(sub, sent)
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
    if found.failure is None:
        p.verdict(
            "scenario-generated-inputs",
            True,
            f"{found.attempts} generated input(s) created, read back equal and deleted",
        )
        return
    failure = found.failure
    sub = failure.payload
    p.result.minimal_input = failure.model
    _replay(p, sub)
    stopped = " (shrinking stopped at the run budget)" if found.budget_exhausted else ""
    text = (
        f"minimal failing input{stopped}: {json.dumps(failure.model, ensure_ascii=False)}"
        + (
            f" (sent with {', '.join(f'{k}={v}' for k, v in sub.unique_values.items())})"
            if sub.unique_values
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
        "reads back equal (writeOnly excepted, insertionOrder-false arrays as multisets).",
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
        "Create twice with one clientRequestToken: one resource, the same identifier, checked "
        "through list.",
        ("scenario-create-idempotent",),
        frozenset({C, L, D}),
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
        "Create, update, then list: the identifier is still listed, and only once.",
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
        ("scenario-generated-inputs",),
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
