"""The fixture type's models, written by hand in the shape `cfn generate` gives them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cloudformation_cli_python_lib.interface import BaseModel, BaseResourceHandlerRequest


@dataclass
class ResourceHandlerRequest(BaseResourceHandlerRequest):
    desiredResourceState: ResourceModel | None
    previousResourceState: ResourceModel | None
    typeConfiguration: TypeConfigurationModel | None


@dataclass
class ResourceModel(BaseModel):
    Name: str | None
    TableName: str | None
    BucketName: str | None
    QueueName: str | None
    Secret: str | None

    @classmethod
    def _deserialize(cls, json_data: Mapping[str, Any] | None) -> ResourceModel | None:
        if not json_data:
            return None
        return cls(
            Name=json_data.get("Name"),
            TableName=json_data.get("TableName"),
            BucketName=json_data.get("BucketName"),
            QueueName=json_data.get("QueueName"),
            Secret=json_data.get("Secret"),
        )


@dataclass
class TypeConfigurationModel(BaseModel):
    @classmethod
    def _deserialize(cls, json_data: Mapping[str, Any] | None) -> TypeConfigurationModel | None:
        return None
