"""Handlers of CfnDebug::Fixture::QueueTag: a tag on an existing SQS queue, named by its ARN.

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
    if not model.QueueArn or not model.TagKey:
        raise exceptions.InvalidRequest("QueueArn and TagKey are required")
    return model.QueueArn, model.TagKey


def _url(client: Any, arn: str) -> str | None:
    """The queue's URL from its ARN (arn:aws:sqs:region:account:name); None: no such queue."""
    parts = arn.split(":")
    try:
        answer = client.get_queue_url(QueueName=parts[5], QueueOwnerAWSAccountId=parts[4])
    except ClientError as error:
        if error.response["Error"]["Code"] in NO_QUEUE:
            return None
        raise
    return str(answer["QueueUrl"])


def _tags(client: Any, arn: str) -> tuple[str, dict[str, str]] | None:
    """The queue's URL and tags; None when there is no such queue."""
    url = _url(client, arn)
    if url is None:
        return None
    return url, client.list_queue_tags(QueueUrl=url).get("Tags", {})


def _success(model: ResourceModel | None) -> ProgressEvent:
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


def _existing(client: Any, model: ResourceModel) -> tuple[str, dict[str, str]]:
    arn, key = _where(model)
    found = _tags(client, arn)
    if found is None or key not in found[1]:
        raise exceptions.NotFound(TYPE_NAME, f"{arn}|{key}")
    return found


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    client = _client(session)
    arn, key = _where(model)
    found = _tags(client, arn)
    if found is None:
        raise exceptions.InvalidRequest(f"queue {arn} does not exist")
    url, tags = found
    if key in tags:
        if tags.get(TOKEN_PREFIX + key) != request.clientRequestToken:
            raise exceptions.AlreadyExists(TYPE_NAME, f"{arn}|{key}")
        LOG.info("the same request again: the tag it made is the answer")
        return _success(ResourceModel(QueueArn=arn, TagKey=key, TagValue=tags[key]))
    value = model.TagValue or ""
    client.tag_queue(
        QueueUrl=url, Tags={key: value, TOKEN_PREFIX + key: request.clientRequestToken}
    )
    client.send_message(QueueUrl=url, MessageBody=json.dumps({"created": key, "value": value}))
    LOG.info("tagged %s with %s and told the queue", arn, key)
    return _success(ResourceModel(QueueArn=arn, TagKey=key, TagValue=value))


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    arn, key = _where(model)
    _, tags = _existing(_client(session), model)
    return _success(ResourceModel(QueueArn=arn, TagKey=key, TagValue=tags[key]))


@resource.handler(Action.UPDATE)
def update_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    previous = request.previousResourceState
    if previous is not None and _where(previous) != _where(model):
        raise exceptions.NotUpdatable("QueueArn and TagKey cannot be changed")
    client = _client(session)
    arn, key = _where(model)
    url, _ = _existing(client, model)
    client.tag_queue(QueueUrl=url, Tags={key: model.TagValue or ""})
    return _success(ResourceModel(QueueArn=arn, TagKey=key, TagValue=model.TagValue or ""))


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    client = _client(session)
    _arn, key = _where(model)
    url, _ = _existing(client, model)
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
        tags = client.list_queue_tags(QueueUrl=url).get("Tags", {})
        mine = sorted((k, v) for k, v in tags.items() if k.startswith(KEY_PREFIX))
        if not mine:
            continue
        attributes = client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
        arn = attributes["Attributes"]["QueueArn"]
        models.extend(ResourceModel(QueueArn=arn, TagKey=k, TagValue=v) for k, v in mine)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModels=models)
