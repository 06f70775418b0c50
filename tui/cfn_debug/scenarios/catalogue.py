"""The scenarios: named sequences of actions and the sequence-level verdicts between them.

Each one is data (name, title, description, the rules it judges, the handlers it needs) plus an
async function that plays it on a :class:`~cfn_debug.scenarios.play.Play`. The order is the order
``all`` runs them in: list-empty first, while the store still holds only what was there before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cfn_debug.errors import CfnDebugError
from cfn_debug.records import Action
from cfn_debug.scenarios.create import (
    create_create,
    create_idempotent,
    create_list,
    create_read,
    list_empty,
    read_identifier_only,
)
from cfn_debug.scenarios.delete import (
    delete_create,
    delete_delete,
    delete_list,
    delete_read,
    delete_update,
)
from cfn_debug.scenarios.generated_inputs import generated_inputs
from cfn_debug.scenarios.update import (
    update_create_only,
    update_list,
    update_read,
    update_without_create,
)

if TYPE_CHECKING:
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
    #: it judges what a listing shows beyond its own resources (nothing at all; what appeared
    #: meanwhile): played while no other scenario runs
    alone: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "rules": list(self.rules),
            "needs": sorted(a.value for a in self.needs),
        }


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "list-empty",
        "list of nothing",
        "List every page; when nothing exists, the answer must be an empty array.",
        ("scenario-list-empty",),
        frozenset({L}),
        list_empty,
        alone=True,
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
        alone=True,
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
        alone=True,
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
        alone=True,
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
