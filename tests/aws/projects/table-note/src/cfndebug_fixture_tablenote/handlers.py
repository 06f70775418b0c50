"""Handlers of CfnDebug::Fixture::TableNote: a note kept as an item of an existing DynamoDB table.

Every call goes through the session the library builds from the request's credentials, so the
handlers talk to whichever AWS the environment points boto3 at (AWS_ENDPOINT_URL).
"""

from __future__ import annotations

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
LOG.setLevel(logging.INFO)
TYPE_NAME = "CfnDebug::Fixture::TableNote"
MARK = "cfndebug-fixture-tablenote"  # every item this type writes carries it

resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint
Context = MutableMapping[str, Any]


def _client(session: SessionProxy | None) -> Any:
    if session is None:
        raise exceptions.InvalidCredentials(TYPE_NAME)
    return session.client("dynamodb")


def _key(model: ResourceModel) -> tuple[str, dict[str, Any]]:
    if not model.TableName or not model.Title:
        raise exceptions.InvalidRequest("TableName and Title are required")
    return model.TableName, {"pk": {"S": f"note#{model.Title}"}}


def _model(table: str, item: dict[str, Any]) -> ResourceModel:
    return ResourceModel(
        TableName=table, Title=item["pk"]["S"].split("#", 1)[1], Text=item["text"]["S"]
    )


def _missing(error: ClientError) -> bool:
    return error.response["Error"]["Code"] == "ResourceNotFoundException"


def _get(client: Any, model: ResourceModel) -> dict[str, Any] | None:
    table, key = _key(model)
    try:
        return client.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")
    except ClientError as error:
        if _missing(error):
            return None  # no table: no note either
        raise


def _item(model: ResourceModel, token: str) -> dict[str, Any]:
    _, key = _key(model)
    return {**key, "text": {"S": model.Text or ""}, "mark": {"S": MARK}, "token": {"S": token}}


def _success(model: ResourceModel | None) -> ProgressEvent:
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    client = _client(session)
    table, _ = _key(model)
    LOG.info("putting note %s into %s", model.Title, table)
    try:
        client.put_item(
            TableName=table,
            Item=_item(model, request.clientRequestToken),
            ConditionExpression="attribute_not_exists(pk)",
        )
    except ClientError as error:
        if _missing(error):
            raise exceptions.InvalidRequest(f"table {table} does not exist") from None
        if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        existing = _get(client, model)
        if existing is None or existing["token"]["S"] != request.clientRequestToken:
            raise exceptions.AlreadyExists(TYPE_NAME, f"{table}|{model.Title}") from None
        LOG.info("the same request again: the note it made is the answer")
    return _success(ResourceModel(TableName=table, Title=model.Title, Text=model.Text or ""))


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    item = _get(_client(session), model)
    if item is None:
        raise exceptions.NotFound(TYPE_NAME, f"{model.TableName}|{model.Title}")
    return _success(_model(model.TableName, item))


@resource.handler(Action.UPDATE)
def update_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    previous = request.previousResourceState
    if previous is not None and (previous.TableName, previous.Title) != (
        model.TableName,
        model.Title,
    ):
        raise exceptions.NotUpdatable("TableName and Title cannot be changed")
    client = _client(session)
    existing = _get(client, model)
    if existing is None:
        raise exceptions.NotFound(TYPE_NAME, f"{model.TableName}|{model.Title}")
    client.put_item(TableName=model.TableName, Item=_item(model, existing["token"]["S"]))
    return _success(ResourceModel(TableName=model.TableName, Title=model.Title, Text=model.Text))


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    table, key = _key(model)
    try:
        _client(session).delete_item(
            TableName=table, Key=key, ConditionExpression="attribute_exists(pk)"
        )
    except ClientError as error:
        code = error.response["Error"]["Code"]
        if _missing(error) or code == "ConditionalCheckFailedException":
            raise exceptions.NotFound(TYPE_NAME, f"{table}|{model.Title}") from None
        raise
    return _success(None)


@resource.handler(Action.LIST)
def list_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    """Every note of this type in every table of the region (the notes carry a mark)."""
    client = _client(session)
    models = []
    for table in client.list_tables().get("TableNames", []):
        pages = client.get_paginator("scan").paginate(
            TableName=table,
            FilterExpression="mark = :mark",
            ExpressionAttributeValues={":mark": {"S": MARK}},
        )
        for page in pages:
            models.extend(_model(table, item) for item in page.get("Items", []))
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModels=models)
