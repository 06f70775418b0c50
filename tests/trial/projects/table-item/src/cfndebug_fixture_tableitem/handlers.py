"""Handlers of CfnDebug::Fixture::TableItem: an item of an existing DynamoDB table, named by the
handler (a fresh ItemId per create), so its primary identifier is TableName (given, a table
the setup stack made) and ItemId (readOnly).

A correct handler: an item that is not there is NotFound, a table that is not there is NotFound
too (its items cannot exist), and any other service error is GeneralServiceException.
"""

from __future__ import annotations

import logging
import uuid
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

LOG = logging.getLogger(__name__)
LOG.setLevel(logging.INFO)
TYPE_NAME = "CfnDebug::Fixture::TableItem"

resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint
Context = MutableMapping[str, Any]


def _client(session: SessionProxy | None) -> Any:
    if session is None:
        raise exceptions.InvalidCredentials(TYPE_NAME)
    return session.client("dynamodb")


def _failed(error: ClientError, what: str) -> ProgressEvent:
    code = error.response["Error"]["Code"]
    if code == "ResourceNotFoundException":
        return ProgressEvent.failed(HandlerErrorCode.NotFound, f"{what}: no such table")
    return ProgressEvent.failed(HandlerErrorCode.GeneralServiceException, f"{what}: {code}")


def _get(client: Any, model: ResourceModel) -> dict[str, Any] | None:
    if not model.ItemId:
        return None
    key = {"pk": {"S": model.ItemId}}
    return client.get_item(TableName=model.TableName, Key=key, ConsistentRead=True).get("Item")


def _model(table: str, item: dict[str, Any]) -> ResourceModel:
    return ResourceModel(TableName=table, ItemId=item["pk"]["S"], Body=item["body"]["S"])


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    item_id = f"item-{uuid.uuid4().hex[:12]}"
    item = {"pk": {"S": item_id}, "body": {"S": model.Body or ""}}
    try:
        _client(session).put_item(TableName=model.TableName, Item=item)
    except ClientError as error:
        return _failed(error, f"table {model.TableName}")
    return ProgressEvent(
        status=OperationStatus.SUCCESS, resourceModel=_model(model.TableName, item)
    )


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    try:
        item = _get(_client(session), model)
    except ClientError as error:
        return _failed(error, f"item {model.TableName}|{model.ItemId}")
    if item is None:
        raise exceptions.NotFound(TYPE_NAME, f"{model.TableName}|{model.ItemId}")
    return ProgressEvent(
        status=OperationStatus.SUCCESS, resourceModel=_model(model.TableName, item)
    )


@resource.handler(Action.UPDATE)
def update_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    client = _client(session)
    try:
        if _get(client, model) is None:
            raise exceptions.NotFound(TYPE_NAME, f"{model.TableName}|{model.ItemId}")
        item = {"pk": {"S": model.ItemId}, "body": {"S": model.Body or ""}}
        client.put_item(TableName=model.TableName, Item=item)
    except ClientError as error:
        return _failed(error, f"item {model.TableName}|{model.ItemId}")
    return ProgressEvent(
        status=OperationStatus.SUCCESS, resourceModel=_model(model.TableName, item)
    )


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    client = _client(session)
    try:
        if _get(client, model) is None:
            raise exceptions.NotFound(TYPE_NAME, f"{model.TableName}|{model.ItemId}")
        client.delete_item(TableName=model.TableName, Key={"pk": {"S": model.ItemId}})
    except ClientError as error:
        return _failed(error, f"item {model.TableName}|{model.ItemId}")
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=None)
