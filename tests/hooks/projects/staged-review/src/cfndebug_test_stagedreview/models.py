# A hook's models.py as the Python plugin generates it (trimmed to this fixture's settings).
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from cloudformation_cli_python_lib.interface import BaseHookHandlerRequest, BaseModel


@dataclass
class HookHandlerRequest(BaseHookHandlerRequest):
    pass


@dataclass
class TypeConfigurationModel(BaseModel):
    Note: str | None

    @classmethod
    def _deserialize(
        cls: type["TypeConfigurationModel"], json_data: Mapping[str, Any] | None
    ) -> Optional["TypeConfigurationModel"]:
        if not json_data:
            return None
        return cls(
            Note=json_data.get("Note"),
        )


_TypeConfigurationModel = TypeConfigurationModel
