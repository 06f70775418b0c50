"""Handlers of CfnDebug::Fixture::Stamp: the handler numbers each stamp from the request's
token (StampId, readOnly); the label is encoded in the id, so read needs nothing else (Copies
and Inked are not kept: the create echoes them, as CloudFormation's stringified values become
typed ones through the library's recast)."""

from __future__ import annotations

import base64
from collections.abc import MutableMapping
from typing import Any

from cloudformation_cli_python_lib import (
    Action,
    OperationStatus,
    ProgressEvent,
    Resource,
    SessionProxy,
    exceptions,
)

from .models import ResourceHandlerRequest, ResourceModel

TYPE_NAME = "CfnDebug::Fixture::Stamp"

resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint
Context = MutableMapping[str, Any]


def _label(stamp_id: str | None) -> str:
    try:
        return base64.urlsafe_b64decode((stamp_id or "").split(".", 1)[1]).decode()
    except (IndexError, ValueError):
        raise exceptions.NotFound(TYPE_NAME, str(stamp_id)) from None


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    desired = request.desiredResourceState
    label = desired.Label or ""
    encoded = base64.urlsafe_b64encode(label.encode()).decode()
    stamp_id = f"{request.clientRequestToken[:8]}.{encoded}"
    model = ResourceModel(Label=label, Copies=desired.Copies, Inked=desired.Inked, StampId=stamp_id)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    stamp_id = request.desiredResourceState.StampId
    model = ResourceModel(Label=_label(stamp_id), Copies=None, Inked=None, StampId=stamp_id)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    _label(request.desiredResourceState.StampId)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=None)
