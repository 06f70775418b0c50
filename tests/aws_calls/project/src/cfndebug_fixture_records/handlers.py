"""Handlers of CfnDebug::Fixture::Record, a cfn-debug test fixture that calls AWS.

Create writes the record to a DynamoDB table, and, when the model names them, an S3 bucket, an
SQS queue and a Secrets Manager secret; read gets it back; delete removes it. Every AWS error
that is not handled below propagates: the library answers FAILED InternalFailure and the
traceback goes to the log, as it does for a real handler with that bug.
"""

from __future__ import annotations

import logging
from collections.abc import MutableMapping
from typing import Any

from cloudformation_cli_python_lib import (
    Action,
    HandlerErrorCode,
    OperationStatus,
    ProgressEvent,
    Resource,
    SessionProxy,
)

from .models import ResourceHandlerRequest, ResourceModel, TypeConfigurationModel

LOG = logging.getLogger(__name__)
LOG.setLevel(logging.INFO)
TYPE_NAME = "CfnDebug::Fixture::Record"

resource = Resource(TYPE_NAME, ResourceModel, TypeConfigurationModel)
test_entrypoint = resource.test_entrypoint


def _returned(model: ResourceModel) -> ResourceModel:
    return ResourceModel(model.Name, model.TableName, model.BucketName, model.QueueName, None)


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: MutableMapping[str, Any],
) -> ProgressEvent:
    model = request.desiredResourceState
    assert session is not None and model is not None
    LOG.info("creating record %s in table %s", model.Name, model.TableName)
    session.client("dynamodb").put_item(TableName=model.TableName, Item={"Name": {"S": model.Name}})
    if model.BucketName:
        session.client("s3").put_object(Bucket=model.BucketName, Key=model.Name, Body=b"record")
    if model.QueueName:
        sqs = session.client("sqs")
        url = sqs.get_queue_url(QueueName=model.QueueName)["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody=f"created {model.Name}")
    if model.Secret:
        session.client("secretsmanager").create_secret(
            Name=f"record/{model.Name}", SecretString=model.Secret
        )
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_returned(model))


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: MutableMapping[str, Any],
) -> ProgressEvent:
    model = request.desiredResourceState
    assert session is not None and model is not None
    found = session.client("dynamodb").get_item(
        TableName=model.TableName, Key={"Name": {"S": model.Name}}
    )
    if "Item" not in found:
        return ProgressEvent.failed(HandlerErrorCode.NotFound, f"no record {model.Name}")
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_returned(model))


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: MutableMapping[str, Any],
) -> ProgressEvent:
    model = request.desiredResourceState
    assert session is not None and model is not None
    session.client("dynamodb").delete_item(
        TableName=model.TableName, Key={"Name": {"S": model.Name}}
    )
    return ProgressEvent(status=OperationStatus.SUCCESS)
