"""Handlers of CfnDebug::Fixture::BucketObject: a text object in an existing S3 bucket.

The object lives under PREFIX, and its metadata keeps the clientRequestToken that created it, so a
repeated create request finds its own object. Calls go through the library's session.
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
TYPE_NAME = "CfnDebug::Fixture::BucketObject"
PREFIX = "cfn-debug-fixture/"

resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint
Context = MutableMapping[str, Any]


def _client(session: SessionProxy | None) -> Any:
    if session is None:
        raise exceptions.InvalidCredentials(TYPE_NAME)
    return session.client("s3")


def _where(model: ResourceModel) -> tuple[str, str]:
    if not model.BucketName or not model.Key:
        raise exceptions.InvalidRequest("BucketName and Key are required")
    return model.BucketName, PREFIX + model.Key


def _head(client: Any, model: ResourceModel) -> dict[str, Any] | None:
    bucket, key = _where(model)
    try:
        return client.head_object(Bucket=bucket, Key=key)  # type: ignore[no-any-return]
    except ClientError as error:
        if error.response["Error"]["Code"] in ("404", "NoSuchKey", "NoSuchBucket"):
            return None
        raise


def _model(bucket: str, key: str, body: str) -> ResourceModel:
    return ResourceModel(
        BucketName=bucket, Key=key[len(PREFIX) :], Body=body, Url=f"s3://{bucket}/{key}"
    )


def _put(client: Any, model: ResourceModel, token: str) -> ResourceModel:
    bucket, key = _where(model)
    body = model.Body or ""
    LOG.info("writing %s into %s", key, bucket)
    client.put_object(Bucket=bucket, Key=key, Body=body.encode(), Metadata={"token": token})
    return _model(bucket, key, body)


def _success(model: ResourceModel | None) -> ProgressEvent:
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    client = _client(session)
    existing = _head(client, model)
    if existing is not None:
        if existing.get("Metadata", {}).get("token") != request.clientRequestToken:
            raise exceptions.AlreadyExists(TYPE_NAME, "|".join(_where(model)))
        LOG.info("the same request again: the object it wrote is the answer")
        return read_handler(session, request, callback_context)
    return _success(_put(client, model, request.clientRequestToken))


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    bucket, key = _where(model)
    try:
        answer = _client(session).get_object(Bucket=bucket, Key=key)
    except ClientError as error:
        if error.response["Error"]["Code"] in ("NoSuchKey", "NoSuchBucket", "404"):
            raise exceptions.NotFound(TYPE_NAME, f"{bucket}|{key}") from None
        raise
    return _success(_model(bucket, key, answer["Body"].read().decode()))


@resource.handler(Action.UPDATE)
def update_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    previous = request.previousResourceState
    if previous is not None and _where(previous) != _where(model):
        raise exceptions.NotUpdatable("BucketName and Key cannot be changed")
    client = _client(session)
    existing = _head(client, model)
    if existing is None:
        raise exceptions.NotFound(TYPE_NAME, "|".join(_where(model)))
    return _success(_put(client, model, existing.get("Metadata", {}).get("token", "")))


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    client = _client(session)
    if _head(client, model) is None:
        raise exceptions.NotFound(TYPE_NAME, "|".join(_where(model)))
    bucket, key = _where(model)
    client.delete_object(Bucket=bucket, Key=key)
    return _success(None)


@resource.handler(Action.LIST)
def list_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    """Every object of this type in every bucket (they all live under PREFIX)."""
    client = _client(session)
    models = []
    for bucket in client.list_buckets().get("Buckets", []):
        pages = client.get_paginator("list_objects_v2").paginate(
            Bucket=bucket["Name"], Prefix=PREFIX
        )
        for page in pages:
            for entry in page.get("Contents", []):
                body = client.get_object(Bucket=bucket["Name"], Key=entry["Key"])["Body"]
                models.append(_model(bucket["Name"], entry["Key"], body.read().decode()))
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModels=models)
