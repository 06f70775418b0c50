"""Handlers of CfnDebug::Fixture::KeyPair: an imported EC2 key pair, the shape of the published
AWSSamples::EC2::ImportKeyPair. EC2 names it (KeyPairId, the primary identifier); its name and
public key are createOnly (CloudFormation replaces the resource when they change, so update
never looks at them and returns the key pair as EC2 has it); Owner is a tag update changes.

A correct handler: a key pair that is not there is NotFound (moto answers DescribeKeyPairs by
an unknown id with an empty list, AWS with InvalidKeyPair.NotFound: both are NotFound here).
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

TYPE_NAME = "CfnDebug::Fixture::KeyPair"

resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint
Context = MutableMapping[str, Any]
NOT_FOUND = ("InvalidKeyPair.NotFound", "InvalidKeyPairId.Malformed")


def _client(session: SessionProxy | None) -> Any:
    if session is None:
        raise exceptions.InvalidCredentials(TYPE_NAME)
    return session.client("ec2")


def _failed(error: ClientError) -> ProgressEvent:
    code = error.response["Error"]["Code"]
    if code == "InvalidKeyPair.Duplicate":
        return ProgressEvent.failed(HandlerErrorCode.AlreadyExists, f"{code}: {error}")
    return ProgressEvent.failed(HandlerErrorCode.GeneralServiceException, f"{code}: {error}")


def _described(client: Any, key_pair_id: str | None) -> ResourceModel:
    """The key pair as EC2 has it; NotFound when there is none."""
    found: list[dict[str, Any]] = []
    try:
        if key_pair_id:
            found = client.describe_key_pairs(KeyPairIds=[key_pair_id])["KeyPairs"]
    except ClientError as error:
        if error.response["Error"]["Code"] not in NOT_FOUND:
            raise
    if not found:
        raise exceptions.NotFound(TYPE_NAME, str(key_pair_id))
    tags = {t["Key"]: t["Value"] for t in found[0].get("Tags") or []}
    return ResourceModel(
        KeyPairId=found[0]["KeyPairId"],
        KeyName=found[0]["KeyName"],
        PublicKeyMaterial=None,
        Owner=tags.get("Owner"),
    )


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    client = _client(session)
    kwargs: dict[str, Any] = {
        "KeyName": model.KeyName,
        "PublicKeyMaterial": (model.PublicKeyMaterial or "").encode(),
    }
    if model.Owner:
        tags = [{"Key": "Owner", "Value": model.Owner}]
        kwargs["TagSpecifications"] = [{"ResourceType": "key-pair", "Tags": tags}]
    try:
        key_pair_id = client.import_key_pair(**kwargs)["KeyPairId"]
        created = _described(client, key_pair_id)
    except ClientError as error:
        return _failed(error)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=created)


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    try:
        model = _described(_client(session), request.desiredResourceState.KeyPairId)
    except ClientError as error:
        return _failed(error)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.UPDATE)
def update_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    desired = request.desiredResourceState
    client = _client(session)
    try:
        current = _described(client, desired.KeyPairId)
        if desired.Owner:
            tags = [{"Key": "Owner", "Value": desired.Owner}]
            client.create_tags(Resources=[current.KeyPairId], Tags=tags)
        elif current.Owner is not None:
            client.delete_tags(Resources=[current.KeyPairId], Tags=[{"Key": "Owner"}])
        updated = _described(client, current.KeyPairId)
    except ClientError as error:
        return _failed(error)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=updated)


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    client = _client(session)
    try:
        current = _described(client, request.desiredResourceState.KeyPairId)
        client.delete_key_pair(KeyName=current.KeyName)  # moto ignores KeyPairId here
    except ClientError as error:
        return _failed(error)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=None)
