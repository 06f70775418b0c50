"""Handlers of Corpus::Test::Ticket (cloudformation-cli-python-lib): the handler generates the
identifier, and a create repeated with the same clientRequestToken answers the ticket the first
one made. ``typeConfiguration.Fault`` NotIdempotent makes every create a new ticket: the one
way to break "MUST NOT create multiple resources given the same idempotency token"."""

from __future__ import annotations

import json
import os
import secrets
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cloudformation_cli_python_lib import (
    Action,
    OperationStatus,
    ProgressEvent,
    Resource,
    exceptions,
)
from cloudformation_cli_python_lib.interface import BaseModel

TYPE_NAME = "Corpus::Test::Ticket"


@dataclass
class ResourceModel(BaseModel):
    TicketId: str | None = None
    Title: str | None = None
    Body: str | None = None

    @classmethod
    def _deserialize(cls, json_data: Mapping[str, Any] | None) -> ResourceModel | None:
        if not json_data:
            return None
        return cls(**{name: json_data.get(name) for name in cls.__dataclass_fields__})


@dataclass
class TypeConfigurationModel(BaseModel):
    Fault: str | None = None

    @classmethod
    def _deserialize(cls, json_data: Mapping[str, Any] | None) -> TypeConfigurationModel | None:
        return cls(Fault=json_data.get("Fault")) if json_data else None


resource = Resource(TYPE_NAME, ResourceModel, TypeConfigurationModel)
test_entrypoint = resource.test_entrypoint


def _dir() -> Path:
    root = Path(os.environ.get("CORPUS_STATE") or Path(tempfile.gettempdir()) / "corpus-ticket")
    (root / "tickets").mkdir(parents=True, exist_ok=True)
    return root / "tickets"


def _model(data: dict[str, Any]) -> ResourceModel:
    return ResourceModel(
        **{k: v for k, v in data.items() if k in ResourceModel.__dataclass_fields__}
    )


def _read(path: Path) -> dict[str, Any] | None:
    """A ticket's data, or None when another invocation deleted it between listing and reading
    (scenarios run at once share the store)."""
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return None


def _write(data: dict[str, Any]) -> None:
    """Write a ticket whole: a temporary file renamed over the ticket, so a concurrent reader
    never sees half of one."""
    path = _dir() / f"{data['TicketId']}.json"
    partial = path.parent / f"{path.name}.{secrets.token_hex(4)}.partial"
    partial.write_text(json.dumps(data))
    os.replace(partial, path)


def _all() -> list[dict[str, Any]]:
    return [d for p in sorted(_dir().glob("*.json")) if (d := _read(p)) is not None]


def _load(ticket_id: str | None) -> dict[str, Any] | None:
    return _read(_dir() / f"{ticket_id}.json") if ticket_id else None


@resource.handler(Action.CREATE)
def create_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    fault = request.typeConfiguration.Fault if request.typeConfiguration else None
    if fault != "NotIdempotent":
        for data in _all():
            if data.get("Token") == request.clientRequestToken:
                return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_model(data))
    data = {
        **{k: v for k, v in model.__dict__.items() if v is not None},
        "TicketId": "t-" + secrets.token_hex(6),
        "Token": request.clientRequestToken,
    }
    _write(data)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_model(data))


@resource.handler(Action.READ)
def read_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    ticket_id = request.desiredResourceState.TicketId
    data = _load(ticket_id)
    if data is None:
        raise exceptions.NotFound(TYPE_NAME, str(ticket_id))
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_model(data))


@resource.handler(Action.UPDATE)
def update_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    data = _load(model.TicketId)
    if data is None:
        raise exceptions.NotFound(TYPE_NAME, str(model.TicketId))
    data.update({"Title": model.Title, "Body": model.Body})
    data = {k: v for k, v in data.items() if v is not None}
    _write(data)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_model(data))


@resource.handler(Action.DELETE)
def delete_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    ticket_id = request.desiredResourceState.TicketId
    if _load(ticket_id) is None:
        raise exceptions.NotFound(TYPE_NAME, str(ticket_id))
    (_dir() / f"{ticket_id}.json").unlink(missing_ok=True)
    return ProgressEvent(status=OperationStatus.SUCCESS)


@resource.handler(Action.LIST)
def list_handler(_session: Any, _request: Any, _context: Any) -> ProgressEvent:
    models = [_model(data) for data in _all()]
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModels=models)
