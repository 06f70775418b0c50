"""Handlers of CfnDebug::Fixture::QueueTag: a tag on an existing SQS queue.

Beside each tag a second one (TOKEN_PREFIX + key) keeps the clientRequestToken that made it, so a
repeated create request finds its own tag. Creating a tag also sends the queue a message.
"""

from __future__ import annotations

import json
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
TYPE_NAME = "CfnDebug::Fixture::QueueTag"
KEY_PREFIX = "fixture-"
TOKEN_PREFIX = "token-"
NO_QUEUE = ("AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist", "InvalidAddress")

resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint
Context = MutableMapping[str, Any]


def _client(session: SessionProxy | None) -> Any:
    if session is None:
        raise exceptions.InvalidCredentials(TYPE_NAME)
    return session.client("sqs")


def _where(model: ResourceModel) -> tuple[str, str]:
    if not model.QueueUrl or not model.TagKey:
        raise exceptions.InvalidRequest("QueueUrl and TagKey are required")
    return model.QueueUrl, model.TagKey


def _tags(client: Any, url: str) -> dict[str, str] | None:
    """The queue's tags; None when there is no such queue."""
    try:
        return client.list_queue_tags(QueueUrl=url).get("Tags", {})  # type: ignore[no-any-return]
    except ClientError as error:
        if error.response["Error"]["Code"] in NO_QUEUE:
            return None
        raise


def _existing(client: Any, model: ResourceModel) -> dict[str, str] | None:
    url, key = _where(model)
    tags = _tags(client, url)
    return tags if tags is not None and key in tags else None


def _success(model: ResourceModel | None) -> ProgressEvent:
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    client = _client(session)
    url, key = _where(model)
    tags = _tags(client, url)
    if tags is None:
        raise exceptions.InvalidRequest(f"queue {url} does not exist")
    if key in tags:
        if tags.get(TOKEN_PREFIX + key) != request.clientRequestToken:
            raise exceptions.AlreadyExists(TYPE_NAME, f"{url}|{key}")
        LOG.info("the same request again: the tag it made is the answer")
        return _success(ResourceModel(QueueUrl=url, TagKey=key, TagValue=tags[key]))
    value = model.TagValue or ""
    client.tag_queue(
        QueueUrl=url, Tags={key: value, TOKEN_PREFIX + key: request.clientRequestToken}
    )
    client.send_message(QueueUrl=url, MessageBody=json.dumps({"created": key, "value": value}))
    LOG.info("tagged %s with %s and told the queue", url, key)
    return _success(ResourceModel(QueueUrl=url, TagKey=key, TagValue=value))


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    url, key = _where(model)
    tags = _existing(_client(session), model)
    if tags is None:
        raise exceptions.NotFound(TYPE_NAME, f"{url}|{key}")
    return _success(ResourceModel(QueueUrl=url, TagKey=key, TagValue=tags[key]))


@resource.handler(Action.UPDATE)
def update_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    previous = request.previousResourceState
    if previous is not None and _where(previous) != _where(model):
        raise exceptions.NotUpdatable("QueueUrl and TagKey cannot be changed")
    client = _client(session)
    url, key = _where(model)
    if _existing(client, model) is None:
        raise exceptions.NotFound(TYPE_NAME, f"{url}|{key}")
    client.tag_queue(QueueUrl=url, Tags={key: model.TagValue or ""})
    return _success(ResourceModel(QueueUrl=url, TagKey=key, TagValue=model.TagValue or ""))


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    client = _client(session)
    url, key = _where(model)
    if _existing(client, model) is None:
        raise exceptions.NotFound(TYPE_NAME, f"{url}|{key}")
    client.untag_queue(QueueUrl=url, TagKeys=[key, TOKEN_PREFIX + key])
    return _success(None)


@resource.handler(Action.LIST)
def list_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    """Every tag of this type on every queue of the region."""
    client = _client(session)
    models = []
    for url in client.list_queues().get("QueueUrls", []):
        for key, value in sorted((_tags(client, url) or {}).items()):
            if key.startswith(KEY_PREFIX):
                models.append(ResourceModel(QueueUrl=url, TagKey=key, TagValue=value))
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModels=models)
