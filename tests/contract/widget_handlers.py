"""Handlers for the fixture Widget type, written with cloudformation-cli-python-lib as `cfn init`
generates them (a model dataclass, one function per action), then finished correctly, plus a
faulty resource whose handlers break the contract the ways the library hides best."""

from __future__ import annotations

import logging
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from cloudformation_cli_python_lib import (
    Action,
    OperationStatus,
    ProgressEvent,
    Resource,
    exceptions,
)
from cloudformation_cli_python_lib.interface import BaseModel

TYPE_NAME = "Example::Test::Widget"
LOG = logging.getLogger(__name__)


@dataclass
class ResourceModel(BaseModel):
    WidgetId: str | None = None
    Arn: str | None = None
    Name: str | None = None
    Size: int | None = None
    Password: str | None = None
    Tags: list[dict[str, str]] | None = None

    @classmethod
    def _deserialize(cls, json_data: Any) -> ResourceModel | None:
        if not json_data:
            return None
        return cls(**{name: json_data.get(name) for name in cls.__dataclass_fields__})


STORE: dict[str, dict[str, Any]] = {}
resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint


def _public(model: ResourceModel) -> ResourceModel:
    return ResourceModel(**{**model.__dict__, "Password": None})


@resource.handler(Action.CREATE)
def create_handler(_session: Any, request: Any, context: MutableMapping[str, Any]) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    if not context.get("created"):
        model.WidgetId = f"w-{len(STORE):08x}"
        model.Arn = f"arn:aws:widget:::{model.WidgetId}"
        STORE[model.WidgetId] = dict(model.__dict__)
        LOG.info("created %s, stabilising", model.WidgetId)
        return ProgressEvent(
            status=OperationStatus.IN_PROGRESS,
            resourceModel=model,
            callbackContext={"created": True},
            callbackDelaySeconds=0,
        )
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_public(model))


@resource.handler(Action.READ)
def read_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    wid = request.desiredResourceState.WidgetId
    if wid not in STORE:
        raise exceptions.NotFound(TYPE_NAME, str(wid))
    return ProgressEvent(
        status=OperationStatus.SUCCESS, resourceModel=_public(ResourceModel(**STORE[wid]))
    )


@resource.handler(Action.UPDATE)
def update_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    if model.WidgetId not in STORE:
        raise exceptions.NotFound(TYPE_NAME, str(model.WidgetId))
    model.Arn = STORE[model.WidgetId]["Arn"]
    STORE[model.WidgetId] = dict(model.__dict__)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_public(model))


@resource.handler(Action.DELETE)
def delete_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    wid = request.desiredResourceState.WidgetId
    if STORE.pop(wid, None) is None:
        raise exceptions.NotFound(TYPE_NAME, str(wid))
    return ProgressEvent(status=OperationStatus.SUCCESS)


@resource.handler(Action.LIST)
def list_handler(_session: Any, _request: Any, _context: Any) -> ProgressEvent:
    return ProgressEvent(
        status=OperationStatus.SUCCESS,
        resourceModels=[ResourceModel(WidgetId=w) for w in sorted(STORE)],
    )


faulty = Resource(TYPE_NAME, ResourceModel)
faulty_entrypoint = faulty.test_entrypoint


@faulty.handler(Action.CREATE)
def crashing_create(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    sizes = {"small": 1}
    return ProgressEvent(
        status=OperationStatus.SUCCESS,
        resourceModel=ResourceModel(Size=sizes[request.desiredResourceState.Name]),
    )


@faulty.handler(Action.READ)
def async_read(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    return ProgressEvent(
        status=OperationStatus.IN_PROGRESS, resourceModel=request.desiredResourceState
    )
