"""A minimal resource type built with cloudformation-cli-python-lib (READ only)."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from cloudformation_cli_python_lib import (
    Action,
    OperationStatus,
    ProgressEvent,
    Resource,
)
from cloudformation_cli_python_lib.interface import BaseModel


@dataclass
class ResourceModel(BaseModel):
    Name: str | None
    Size: int | None

    @classmethod
    def _deserialize(cls, json_data: Mapping[str, Any] | None) -> Optional["ResourceModel"]:
        if not json_data:
            return None
        return cls(Name=json_data.get("Name"), Size=json_data.get("Size"))


@dataclass
class TypeConfigurationModel(BaseModel):
    @classmethod
    def _deserialize(
        cls, json_data: Mapping[str, Any] | None
    ) -> Optional["TypeConfigurationModel"]:
        return cls() if json_data else None


resource = Resource("Fixture::Endpoint::Thing", ResourceModel, TypeConfigurationModel)
test_entrypoint = resource.test_entrypoint


@resource.handler(Action.READ)
def read(session, request, callback_context):
    model = request.desiredResourceState
    print(f"reading {model.Name}")
    if model.Name == "explode":
        raise RuntimeError("not a library error")
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)
