"""Handlers of CfnDebug::Fixture::Unserved: a watch on a log group, which every handler looks up
through Cloud Control; an identifier Cloud Control does not know is NotFound, any other service
error GeneralServiceException (a correct mapping, whatever the service)."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from botocore.exceptions import ClientError
from cloudformation_cli_python_lib import (
    Action,
    HandlerErrorCode,
    OperationStatus,
    ProgressEvent,
    Resource,
    SessionProxy,
    exceptions,
)

from .models import ResourceHandlerRequest, ResourceModel

TYPE_NAME = "CfnDebug::Fixture::Unserved"

resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint
Context = MutableMapping[str, Any]


def _look_up(session: SessionProxy | None, model: ResourceModel) -> ProgressEvent:
    if session is None:
        raise exceptions.InvalidCredentials(TYPE_NAME)
    client = session.client("cloudcontrol")
    try:
        client.get_resource(TypeName="AWS::Logs::LogGroup", Identifier=model.LogGroupName)
    except ClientError as error:
        code = error.response["Error"]["Code"]
        if code == "ResourceNotFoundException":
            return ProgressEvent.failed(HandlerErrorCode.NotFound, f"{model.LogGroupName}")
        return ProgressEvent.failed(HandlerErrorCode.GeneralServiceException, f"{code}")
    return ProgressEvent(
        status=OperationStatus.SUCCESS,
        resourceModel=ResourceModel(LogGroupName=model.LogGroupName),
    )


@resource.handler(Action.CREATE)
@resource.handler(Action.READ)
@resource.handler(Action.UPDATE)
def look_up(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    return _look_up(session, request.desiredResourceState)


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    found = _look_up(session, request.desiredResourceState)
    if found.status is OperationStatus.SUCCESS:
        found.resourceModel = None
    return found
