"""Handlers of CfnDebug::Fixture::RandomId: a setting kept as an SSM parameter whose name the
create makes up. Planted bug: the create is not idempotent (a retry of the same
clientRequestToken makes a second parameter). There is no LIST handler."""

from __future__ import annotations

import uuid
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

TYPE_NAME = "CfnDebug::Fixture::RandomId"
PREFIX = "/cfndebug/random/"

resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint
Context = MutableMapping[str, Any]


def _ssm(session: SessionProxy | None) -> Any:
    if session is None:
        raise exceptions.InvalidCredentials(TYPE_NAME)
    return session.client("ssm")


def _read(client: Any, name: str | None) -> str | None:
    if not name or not name.startswith(PREFIX):
        return None
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
    if model.TopicArn:
        try:
            session.client("sns").get_topic_attributes(TopicArn=model.TopicArn)
        except ClientError as error:
            raise exceptions.NotFound("AWS::SNS::Topic", model.TopicArn) from error
    name = PREFIX + uuid.uuid4().hex  # a new one on every call, retries included
    client.put_parameter(Name=name, Value=model.Value, Type="String")
    return _done(ResourceModel(Id=name, Value=model.Value, TopicArn=model.TopicArn))


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    value = _read(_ssm(session), model.Id)
    if value is None:
        raise exceptions.NotFound(TYPE_NAME, str(model.Id))
    return _done(ResourceModel(Id=model.Id, Value=value, TopicArn=model.TopicArn))


@resource.handler(Action.UPDATE)
def update_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    client = _ssm(session)
    if _read(client, model.Id) is None:
        raise exceptions.NotFound(TYPE_NAME, str(model.Id))
    client.put_parameter(Name=model.Id, Value=model.Value, Type="String", Overwrite=True)
    return _done(ResourceModel(Id=model.Id, Value=model.Value, TopicArn=model.TopicArn))


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    client = _ssm(session)
    if _read(client, model.Id) is None:
        raise exceptions.NotFound(TYPE_NAME, str(model.Id))
    client.delete_parameter(Name=model.Id)
    return _done(None)
