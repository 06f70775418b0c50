# The shape `cfn generate` gives a Python resource type's models, for this fixture's schema.
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from cloudformation_cli_python_lib.interface import (
    BaseModel,
    BaseResourceHandlerRequest,
)
from cloudformation_cli_python_lib.recast import recast_object


@dataclass
class ResourceHandlerRequest(BaseResourceHandlerRequest):
    # pylint: disable=invalid-name
    desiredResourceState: Optional["ResourceModel"]
    previousResourceState: Optional["ResourceModel"]
    typeConfiguration: Optional["TypeConfigurationModel"]


@dataclass
class ResourceModel(BaseModel):
    Name: str | None
    RecordId: str | None

    @classmethod
    def _deserialize(
        cls: type["_ResourceModel"],
        json_data: Mapping[str, Any] | None,
    ) -> Optional["_ResourceModel"]:
        if not json_data:
            return None
        recast_object(cls, json_data, {})
        return cls(Name=json_data.get("Name"), RecordId=json_data.get("RecordId"))


_ResourceModel = ResourceModel


@dataclass
class TypeConfigurationModel(BaseModel):
    ApiKey: str | None

    @classmethod
    def _deserialize(
        cls: type["_TypeConfigurationModel"],
        json_data: Mapping[str, Any] | None,
    ) -> Optional["_TypeConfigurationModel"]:
        if not json_data:
            return None
        return cls(ApiKey=json_data.get("ApiKey"))


_TypeConfigurationModel = TypeConfigurationModel
