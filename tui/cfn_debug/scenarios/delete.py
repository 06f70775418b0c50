"""The scenarios around DELETE: read, update, delete, list and create after a delete."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cfn_debug.scenarios.outcome import (
    describe,
    failed_with,
    judge_listed,
    stand_in_repeat,
)
from cfn_debug.scenarios.update import refused_anyway

if TYPE_CHECKING:
    from cfn_debug.scenarios.play import Play


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
    refused = await refused_anyway(p, run)
    if refused is not None:
        p.block(f"update after delete ended {describe(run)}{refused}")
        return
    _not_found(p, run, "update after delete")


async def delete_delete(p: Play) -> None:
    created = await p.setup_create()
    if created is None:
        return
    first = await p.setup_delete(created)
    if first is None:
        return
    run = await p.delete(created.model, "delete again")
    echoed = stand_in_repeat(p, first, run)
    if echoed is not None:
        p.skip("scenario-not-found-after-delete", f"the delete again {echoed}")
        return
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
    judge_listed(p, "scenario-list-after-delete", created.identifier, listing, present=False)


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
