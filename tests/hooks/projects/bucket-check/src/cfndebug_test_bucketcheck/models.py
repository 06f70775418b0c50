# A hook's models.py as the Python plugin generates it (trimmed to this fixture's settings).
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional, TypeVar

from cloudformation_cli_python_lib.interface import BaseHookHandlerRequest, BaseModel

T = TypeVar("T")


@dataclass
class HookHandlerRequest(BaseHookHandlerRequest):
    pass


@dataclass
class TypeConfigurationModel(BaseModel):
    RequireVersioning: str | None
    Fault: str | None

    @classmethod
    def _deserialize(
        cls: type["TypeConfigurationModel"], json_data: Mapping[str, Any] | None
    ) -> Optional["TypeConfigurationModel"]:
        if not json_data:
            return None
        return cls(
            RequireVersioning=json_data.get("RequireVersioning"),
            Fault=json_data.get("Fault"),
        )


_TypeConfigurationModel = TypeConfigurationModel
