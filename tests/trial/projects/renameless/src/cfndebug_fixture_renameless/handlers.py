"""Handlers of CfnDebug::Fixture::Renameless, written with cloudformation-cli-python-lib.

A provider is a JSON file ``$TRIAL_STATE/<id>.json``; its Arn is made from a fresh id. The
handler cannot rename a provider: an update whose Name differs from the previous state's is
FAILED InvalidRequest, checked before the provider is looked up; nor create one whose Document
does not start with "doc:" (InvalidRequest), which the schema does not say either. Otherwise a
correct handler: read, update and delete of a provider that does not exist are FAILED NotFound,
a create of a Name already taken is AlreadyExists.
"""

from __future__ import annotations

import json
import os
import tempfile
import uuid
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cloudformation_cli_python_lib import (
    Action,
    HandlerErrorCode,
    OperationStatus,
    ProgressEvent,
    Resource,
    exceptions,
)
from cloudformation_cli_python_lib.interface import BaseModel

TYPE_NAME = "CfnDebug::Fixture::Renameless"
ARN = "arn:aws:iam::123456789012:provider/"


@dataclass
class ResourceModel(BaseModel):
    Name: str | None = None
    Document: str | None = None
    Arn: str | None = None

    @classmethod
    def _deserialize(cls, json_data: Mapping[str, Any] | None) -> ResourceModel | None:
        if not json_data:
            return None
        return cls(**{name: json_data.get(name) for name in cls.__dataclass_fields__})


resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint


def _state() -> Path:
    default = Path(tempfile.gettempdir()) / "cfndebug-renameless"
    root = Path(os.environ.get("TRIAL_STATE") or default)
    root.mkdir(parents=True, exist_ok=True)
    return root


def _file(model: ResourceModel | None) -> Path:
    arn = (model.Arn if model is not None else None) or ""
    if not arn.startswith(ARN) or not arn[len(ARN) :].isalnum():
        raise exceptions.NotFound(TYPE_NAME, arn or "?")
    path = _state() / f"{arn[len(ARN) :]}.json"
    if not path.is_file():
        raise exceptions.NotFound(TYPE_NAME, arn)
    return path


def _answer(data: dict[str, Any]) -> ProgressEvent:
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=ResourceModel(**data))


@resource.handler(Action.CREATE)
def create_handler(_session: Any, request: Any, _context: MutableMapping[str, Any]) -> Any:
    model: ResourceModel = request.desiredResourceState
    if not (model.Document or "").startswith("doc:"):  # a rule the schema does not say
        return ProgressEvent.failed(HandlerErrorCode.InvalidRequest, "a Document starts with doc:")
    for path in _state().glob("*.json"):
        if json.loads(path.read_text())["Name"] == model.Name:
            raise exceptions.AlreadyExists(TYPE_NAME, str(model.Name))
    key = uuid.uuid4().hex
    data = {"Name": model.Name, "Document": model.Document, "Arn": ARN + key}
    (_state() / f"{key}.json").write_text(json.dumps(data))
    return _answer(data)


@resource.handler(Action.READ)
def read_handler(_session: Any, request: Any, _context: Any) -> Any:
    return _answer(json.loads(_file(request.desiredResourceState).read_text()))


@resource.handler(Action.UPDATE)
def update_handler(_session: Any, request: Any, _context: Any) -> Any:
    model: ResourceModel = request.desiredResourceState
    previous: ResourceModel | None = request.previousResourceState
    if previous is not None and previous.Name != model.Name:
        return ProgressEvent.failed(
            HandlerErrorCode.InvalidRequest, "the Name of a provider cannot be changed"
        )
    path = _file(model)
    data = {**json.loads(path.read_text()), "Document": model.Document}
    path.write_text(json.dumps(data))
    return _answer(data)


@resource.handler(Action.DELETE)
def delete_handler(_session: Any, request: Any, _context: Any) -> Any:
    _file(request.desiredResourceState).unlink()
    return ProgressEvent(status=OperationStatus.SUCCESS)
