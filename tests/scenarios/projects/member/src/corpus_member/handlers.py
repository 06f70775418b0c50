"""Handlers of Corpus::Test::Member, written with cloudformation-cli-python-lib.

A member belongs to a group that exists before any stack (``groups.json`` in the state
directory; "engineering" when the file is absent). Its primary identifier is GroupName and
MemberName, both createOnly. Members live as JSON files under ``$CORPUS_STATE/members``.

Correct by default; ``typeConfiguration.Fault`` switches on one bug:
DropReadOnlyOnUpdate (update's SUCCESS model lacks Revision and Arn, which READ returns).
AwsUnreachable (create calls an AWS endpoint nothing listens on and lets botocore's
EndpointConnectionError through, as most handlers do: not the handler's fault);
ReadNotFound (read answers NotFound, even for a member that exists);
ReadDropsDescription (read leaves out the Description the member was given);
DeleteRefuses (delete always ends FAILED ResourceConflict: what a cleanup cannot delete).
IdempotentByToken makes a repeated create with the same clientRequestToken answer the
first result instead of AlreadyExists (both are correct handlers).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cloudformation_cli_python_lib import (
    Action,
    OperationStatus,
    ProgressEvent,
    Resource,
    exceptions,
)
from cloudformation_cli_python_lib.interface import BaseModel

TYPE_NAME = "Corpus::Test::Member"


@dataclass
class ResourceModel(BaseModel):
    GroupName: str | None = None
    MemberName: str | None = None
    Zone: str | None = None
    Description: str | None = None
    InitialPassword: str | None = None
    Revision: int | None = None
    Arn: str | None = None

    @classmethod
    def _deserialize(cls, json_data: Mapping[str, Any] | None) -> ResourceModel | None:
        if not json_data:
            return None
        return cls(**{name: json_data.get(name) for name in cls.__dataclass_fields__})


@dataclass
class TypeConfigurationModel(BaseModel):
    Fault: str | None = None

    @classmethod
    def _deserialize(cls, json_data: Mapping[str, Any] | None) -> TypeConfigurationModel | None:
        if not json_data:
            return None
        return cls(Fault=json_data.get("Fault"))


resource = Resource(TYPE_NAME, ResourceModel, TypeConfigurationModel)
test_entrypoint = resource.test_entrypoint


def _state() -> Path:
    root = Path(os.environ.get("CORPUS_STATE") or Path(tempfile.gettempdir()) / "corpus-member")
    (root / "members").mkdir(parents=True, exist_ok=True)
    return root


def _groups() -> list[str]:
    path = _state() / "groups.json"
    return json.loads(path.read_text()) if path.is_file() else ["engineering"]


def _path(group: str | None, member: str | None) -> Path:
    return _state() / "members" / f"{group}__{member}.json"


def _load(model: ResourceModel | None) -> dict[str, Any] | None:
    if model is None or not model.GroupName or not model.MemberName:
        return None
    path = _path(model.GroupName, model.MemberName)
    return json.loads(path.read_text()) if path.is_file() else None


def _save(data: dict[str, Any]) -> None:
    _path(data["GroupName"], data["MemberName"]).write_text(json.dumps(data))


def _public(data: dict[str, Any]) -> ResourceModel:
    fields = ResourceModel.__dataclass_fields__
    return ResourceModel(
        **{k: v for k, v in data.items() if k in fields and k != "InitialPassword"}
    )


def _call_aws() -> None:
    import boto3
    from botocore.config import Config

    client = boto3.client(
        "s3",
        endpoint_url="http://127.0.0.1:9",  # the discard port: nothing listens
        region_name="us-east-1",
        aws_access_key_id="corpus",
        aws_secret_access_key="corpus-secret",
        config=Config(retries={"max_attempts": 0}, connect_timeout=2),
    )
    client.list_buckets()


def _fault(request: Any) -> str | None:
    config = request.typeConfiguration
    return config.Fault if config is not None else None


@resource.handler(Action.CREATE)
def create_handler(
    _session: Any, request: Any, _context: MutableMapping[str, Any]
) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    if _fault(request) == "AwsUnreachable":
        _call_aws()
    if model.Zone not in ("zone-a", "zone-b") or not model.MemberName:
        return ProgressEvent.failed(
            exceptions.HandlerErrorCode.InvalidRequest, "MemberName and a known Zone are needed"
        )
    if model.GroupName not in _groups():
        return ProgressEvent.failed(
            exceptions.HandlerErrorCode.InvalidRequest, f"group {model.GroupName!r} does not exist"
        )
    existing = _load(model)
    if existing is not None:
        if (
            _fault(request) == "IdempotentByToken"
            and existing.get("Token") == request.clientRequestToken
        ):
            return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_public(existing))
        raise exceptions.AlreadyExists(TYPE_NAME, f"{model.GroupName}|{model.MemberName}")
    data = {
        **{k: v for k, v in model.__dict__.items() if v is not None},
        "Revision": 1,
        "Arn": f"arn:aws:corpus:::member/{model.GroupName}/{model.MemberName}",
        "Token": request.clientRequestToken,
    }
    _save(data)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_public(data))


@resource.handler(Action.READ)
def read_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    data = _load(model)
    if data is None or _fault(request) == "ReadNotFound":
        raise exceptions.NotFound(TYPE_NAME, f"{model.GroupName}|{model.MemberName}")
    returned = _public(data)
    if _fault(request) == "ReadDropsDescription":
        returned.Description = None
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=returned)


@resource.handler(Action.UPDATE)
def update_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    data = _load(model)
    if data is None:
        raise exceptions.NotFound(TYPE_NAME, f"{model.GroupName}|{model.MemberName}")
    if model.Zone is not None and model.Zone != data.get("Zone"):
        raise exceptions.NotUpdatable("Zone cannot be changed")
    data["Description"] = model.Description
    data["Revision"] = int(data.get("Revision", 0)) + 1
    data = {k: v for k, v in data.items() if v is not None}
    _save(data)
    returned = _public(data)
    if _fault(request) == "DropReadOnlyOnUpdate":
        returned.Revision = None
        returned.Arn = None
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=returned)


@resource.handler(Action.DELETE)
def delete_handler(_session: Any, request: Any, _context: Any) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    if _fault(request) == "DeleteRefuses":
        return ProgressEvent.failed(
            exceptions.HandlerErrorCode.ResourceConflict, "the member still owns things"
        )
    if not model.Zone:
        # CloudFormation sends the whole model it holds: this handler finds the shard by Zone.
        return ProgressEvent.failed(
            exceptions.HandlerErrorCode.InvalidRequest, "Zone is needed to find the member"
        )
    data = _load(model)
    if data is None:
        raise exceptions.NotFound(TYPE_NAME, f"{model.GroupName}|{model.MemberName}")
    _path(model.GroupName, model.MemberName).unlink()
    return ProgressEvent(status=OperationStatus.SUCCESS)


@resource.handler(Action.LIST)
def list_handler(_session: Any, _request: Any, _context: Any) -> ProgressEvent:
    models = [
        _public(json.loads(p.read_text())) for p in sorted((_state() / "members").glob("*.json"))
    ]
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModels=models)
