"""Handlers of CfnDebug::Fixture::QueueSetting: the visibility timeout of a queue the setup stack
made, the shape of the published JB::EMR::StepConcurrencyLevel (a setting of a resource that
exists before the type is used). The setting is the resource: SettingId (readOnly, the primary
identifier) is "queue:" and the queue's URL, and a tag on the queue says it is there.

QueueUrl is createOnly, so update trusts it to name the queue the setting was made on
(CloudFormation replaces the resource rather than change it); an AWS error there is the
library's InternalFailure. Everywhere else a queue or tag that is not there is NotFound.
"""

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

TYPE_NAME = "CfnDebug::Fixture::QueueSetting"
TAG = "cfn-debug-setting"

resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint
Context = MutableMapping[str, Any]


def _client(session: SessionProxy | None) -> Any:
    if session is None:
        raise exceptions.InvalidCredentials(TYPE_NAME)
    return session.client("sqs")


def _tag(client: Any, queue_url: str | None) -> str | None:
    """The setting's tag on the queue (None: no such tag); NotFound when there is no queue."""
    try:
        return client.list_queue_tags(QueueUrl=queue_url or "").get("Tags", {}).get(TAG)
    except ClientError:
        raise exceptions.NotFound(TYPE_NAME, str(queue_url)) from None


def _queue_of(setting_id: str | None) -> str:
    if not setting_id or not setting_id.startswith("queue:"):
        raise exceptions.NotFound(TYPE_NAME, str(setting_id))
    return setting_id.removeprefix("queue:")


def _model(client: Any, setting_id: str) -> ResourceModel:
    queue_url = _queue_of(setting_id)
    if _tag(client, queue_url) != setting_id:
        raise exceptions.NotFound(TYPE_NAME, setting_id)
    attributes = client.get_queue_attributes(
        QueueUrl=queue_url, AttributeNames=["VisibilityTimeout"]
    )["Attributes"]
    return ResourceModel(
        SettingId=setting_id,
        QueueUrl=queue_url,
        VisibilityTimeout=int(attributes["VisibilityTimeout"]),
    )


def _set(client: Any, queue_url: str, timeout: int | None) -> None:
    attributes = {"VisibilityTimeout": str(timeout if timeout is not None else 30)}
    client.set_queue_attributes(QueueUrl=queue_url, Attributes=attributes)


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    desired = request.desiredResourceState
    client = _client(session)
    setting_id = f"queue:{desired.QueueUrl}"
    if _tag(client, desired.QueueUrl) == setting_id:
        raise exceptions.AlreadyExists(TYPE_NAME, setting_id)
    _set(client, desired.QueueUrl, desired.VisibilityTimeout)
    client.tag_queue(QueueUrl=desired.QueueUrl, Tags={TAG: setting_id})
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_model(client, setting_id))


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = _model(_client(session), request.desiredResourceState.SettingId)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.UPDATE)
def update_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    desired = request.desiredResourceState
    client = _client(session)
    _queue_of(desired.SettingId)
    # QueueUrl is createOnly: it names the queue this setting was made on.
    tags = client.list_queue_tags(QueueUrl=desired.QueueUrl).get("Tags", {})
    if tags.get(TAG) != desired.SettingId:
        return ProgressEvent.failed(HandlerErrorCode.NotFound, f"no setting {desired.SettingId}")
    _set(client, desired.QueueUrl, desired.VisibilityTimeout)
    model = _model(client, desired.SettingId)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    client = _client(session)
    model = _model(client, request.desiredResourceState.SettingId)
    _set(client, model.QueueUrl or "", None)
    client.untag_queue(QueueUrl=model.QueueUrl, TagKeys=[TAG])
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=None)
