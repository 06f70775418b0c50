# The shape `cfn generate` gave a Python resource type's models with plugin 2.0.0 (no type
# configuration), for this fixture's schema.
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from cloudformation_cli_python_lib.interface import BaseModel, BaseResourceHandlerRequest
from cloudformation_cli_python_lib.recast import recast_object


@dataclass
class ResourceHandlerRequest(BaseResourceHandlerRequest):
    # pylint: disable=invalid-name
    desiredResourceState: Optional["ResourceModel"]
    previousResourceState: Optional["ResourceModel"]


@dataclass
class ResourceModel(BaseModel):
    Name: str | None
    Value: str | None

    @classmethod
    def _deserialize(
        cls: type["_ResourceModel"],
        json_data: Mapping[str, Any] | None,
    ) -> Optional["_ResourceModel"]:
        if not json_data:
            return None
        recast_object(cls, json_data, {})
        return cls(Name=json_data.get("Name"), Value=json_data.get("Value"))


_ResourceModel = ResourceModel
