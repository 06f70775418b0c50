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


def _load(ticket_id: str | None) -> dict[str, Any] | None:
    path = _dir() / f"{ticket_id}.json"
    return json.loads(path.read_text()) if ticket_id and path.is_file() else None


@resource.handler(Action.CREATE)
def create_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    fault = request.typeConfiguration.Fault if request.typeConfiguration else None
    if fault != "NotIdempotent":
        for path in _dir().glob("*.json"):
            data = json.loads(path.read_text())
            if data.get("Token") == request.clientRequestToken:
                return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_model(data))
    data = {
        **{k: v for k, v in model.__dict__.items() if v is not None},
        "TicketId": "t-" + secrets.token_hex(6),
        "Token": request.clientRequestToken,
    }
    (_dir() / f"{data['TicketId']}.json").write_text(json.dumps(data))
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
    (_dir() / f"{model.TicketId}.json").write_text(json.dumps(data))
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_model(data))


@resource.handler(Action.DELETE)
def delete_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    ticket_id = request.desiredResourceState.TicketId
    if _load(ticket_id) is None:
        raise exceptions.NotFound(TYPE_NAME, str(ticket_id))
    (_dir() / f"{ticket_id}.json").unlink()
    return ProgressEvent(status=OperationStatus.SUCCESS)


@resource.handler(Action.LIST)
def list_handler(_session: Any, _request: Any, _context: Any) -> ProgressEvent:
    models = [_model(json.loads(p.read_text())) for p in sorted(_dir().glob("*.json"))]
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModels=models)
