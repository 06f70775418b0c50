# The shape `cfn generate` gave a Python resource type's models with plugin 2.0.0 (no type
# configuration), for this fixture's schema.
from dataclasses import dataclass
from typing import Any, Mapping, Optional

from cloudformation_cli_python_lib.interface import BaseModel, BaseResourceHandlerRequest
from cloudformation_cli_python_lib.recast import recast_object


@dataclass
class ResourceHandlerRequest(BaseResourceHandlerRequest):
    # pylint: disable=invalid-name
    desiredResourceState: Optional["ResourceModel"]
    previousResourceState: Optional["ResourceModel"]


@dataclass
class ResourceModel(BaseModel):
    Name: Optional[str]
    Value: Optional[str]

    @classmethod
    def _deserialize(
        cls: type["_ResourceModel"],
        json_data: Optional[Mapping[str, Any]],
    ) -> Optional["_ResourceModel"]:
        if not json_data:
            return None
        recast_object(cls, json_data, {})
        return cls(Name=json_data.get("Name"), Value=json_data.get("Value"))


_ResourceModel = ResourceModel
