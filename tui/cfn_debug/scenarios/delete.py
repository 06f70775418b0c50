"""The scenarios around DELETE: read, update, delete, list and create after a delete."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from cfn_debug.records import RunRecord
from cfn_debug.scenarios.outcome import (
    describe,
    failed_with,
    judge_listed,
    succeeded,
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
    echoed = _stand_in_success(p, first, run)
    if echoed is not None:
        p.skip("scenario-not-found-after-delete", echoed)
        return
    _not_found(p, run, "delete again")


def _calls(run: RunRecord) -> list[tuple[str, str, str]]:
    return [
        (c.service, c.operation, json.dumps(c.params, sort_keys=True, default=str))
        for step in run.steps
        for c in step.aws_calls
    ]


def _stand_in_success(p: Play, first: RunRecord, again: RunRecord) -> str | None:
    """Why a second delete's SUCCESS may be the local AWS's answer, not the handler's, or None:
    against moto (or another stand-in at --aws-endpoint-url) it made the very calls the first
    delete made and all succeeded. Such a handler leaves it to the service to say the resource is
    gone; AWS answers most deletes of a missing resource with an error the handler passes on as
    NotFound, and moto does not always (IAM's DeleteSAMLProvider, say)."""
    target = p.runner.workspace.aws_target
    if target is None or target.kind not in ("local", "endpoint") or not succeeded(again):
        return None
    calls = _calls(again)
    if not calls or calls != _calls(first):
        return None
    if any(c.failed for step in again.steps for c in step.aws_calls):
        return None
    names = ", ".join(dict.fromkeys(f"{service} {operation}" for service, operation, _ in calls))
    return (
        f"the delete again ended SUCCESS after the same calls as the first delete ({names}), "
        "each answered with success by the local AWS, which does not always refuse a delete of "
        "something gone as AWS does: not judged here (against AWS, --profile, it is)"
    )


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
