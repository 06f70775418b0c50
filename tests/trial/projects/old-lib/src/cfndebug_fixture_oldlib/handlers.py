"""Handlers of CfnDebug::Fixture::OldLib: a setting kept as an SSM parameter, written against
cloudformation-cli-python-lib 2.0.0 (its requirements pin it)."""

import logging
from collections.abc import MutableMapping
from typing import Any

from botocore.exceptions import ClientError
from cloudformation_cli_python_lib import (
    Action,
    OperationStatus,
    ProgressEvent,
    Resource,
    SessionProxy,
    exceptions,
)

from .models import ResourceHandlerRequest, ResourceModel

LOG = logging.getLogger(__name__)
TYPE_NAME = "CfnDebug::Fixture::OldLib"

resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint
Context = MutableMapping[str, Any]


def _ssm(session: SessionProxy | None) -> Any:
    if session is None:
        raise exceptions.InvalidCredentials(TYPE_NAME)
    return session.client("ssm")


def _read(client: Any, name: str) -> str | None:
    try:
        return client.get_parameter(Name=name)["Parameter"]["Value"]
    except ClientError as error:
        if error.response["Error"]["Code"] == "ParameterNotFound":
            return None
        raise


def _done(model: ResourceModel | None) -> ProgressEvent:
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    client = _ssm(session)
    try:
        client.put_parameter(Name=model.Name, Value=model.Value, Type="String", Overwrite=False)
    except ClientError as error:
        if error.response["Error"]["Code"] == "ParameterAlreadyExists":
            raise exceptions.AlreadyExists(TYPE_NAME, model.Name) from None
        raise
    return _done(ResourceModel(Name=model.Name, Value=model.Value))


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    value = _read(_ssm(session), model.Name)
    if value is None:
        raise exceptions.NotFound(TYPE_NAME, model.Name)
    return _done(ResourceModel(Name=model.Name, Value=value))


@resource.handler(Action.UPDATE)
def update_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    previous = request.previousResourceState
    if previous is not None and previous.Name != model.Name:
        raise exceptions.NotUpdatable("Name cannot be changed")
    client = _ssm(session)
    if _read(client, model.Name) is None:
        raise exceptions.NotFound(TYPE_NAME, model.Name)
    client.put_parameter(Name=model.Name, Value=model.Value, Type="String", Overwrite=True)
    return _done(ResourceModel(Name=model.Name, Value=model.Value))


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    try:
        _ssm(session).delete_parameter(Name=model.Name)
    except ClientError as error:
        if error.response["Error"]["Code"] == "ParameterNotFound":
            raise exceptions.NotFound(TYPE_NAME, model.Name) from None
        raise
    return _done(None)
