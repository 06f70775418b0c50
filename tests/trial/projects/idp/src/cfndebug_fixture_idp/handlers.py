"""Handlers of CfnDebug::Fixture::Idp, written with cloudformation-cli-python-lib: an IAM SAML
identity provider. Create, read and delete call IAM directly and pass its EntityAlreadyExists on
as AlreadyExists and its NoSuchEntity as NotFound, as a correct handler may (IAM answers so for a
name taken and for a provider that does not exist)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError
from cloudformation_cli_python_lib import (
    Action,
    OperationStatus,
    ProgressEvent,
    Resource,
    exceptions,
)
from cloudformation_cli_python_lib.interface import BaseModel

TYPE_NAME = "CfnDebug::Fixture::Idp"


@dataclass
class ResourceModel(BaseModel):
    Name: str | None = None
    Metadata: str | None = None
    Arn: str | None = None

    @classmethod
    def _deserialize(cls, json_data: Mapping[str, Any] | None) -> ResourceModel | None:
        if not json_data:
            return None
        return cls(**{name: json_data.get(name) for name in cls.__dataclass_fields__})


resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint


def _not_found(error: ClientError, arn: str | None) -> Exception:
    if error.response.get("Error", {}).get("Code") == "NoSuchEntity":
        return exceptions.NotFound(TYPE_NAME, str(arn))
    return error


@resource.handler(Action.CREATE)
def create_handler(session: Any, request: Any, _context: Any) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    try:
        made = session.client("iam").create_saml_provider(
            Name=model.Name, SAMLMetadataDocument=model.Metadata
        )
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "EntityAlreadyExists":
            raise exceptions.AlreadyExists(TYPE_NAME, str(model.Name)) from None
        raise
    model.Arn = made["SAMLProviderArn"]
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.READ)
def read_handler(session: Any, request: Any, _context: Any) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    try:
        found = session.client("iam").get_saml_provider(SAMLProviderArn=model.Arn)
    except ClientError as error:
        raise _not_found(error, model.Arn) from None
    name = str(model.Arn).rsplit("/", 1)[-1]
    metadata = found["SAMLMetadataDocument"]
    return ProgressEvent(
        status=OperationStatus.SUCCESS,
        resourceModel=ResourceModel(Name=name, Metadata=metadata, Arn=model.Arn),
    )


@resource.handler(Action.DELETE)
def delete_handler(session: Any, request: Any, _context: Any) -> ProgressEvent:
    model: ResourceModel = request.desiredResourceState
    try:
        session.client("iam").delete_saml_provider(SAMLProviderArn=model.Arn)
    except ClientError as error:
        raise _not_found(error, model.Arn) from None
    return ProgressEvent(status=OperationStatus.SUCCESS)
