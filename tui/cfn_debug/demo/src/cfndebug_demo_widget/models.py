# DO NOT modify this file by hand, changes will be overwritten
from dataclasses import dataclass

from cloudformation_cli_python_lib.interface import (
    BaseModel,
    BaseResourceHandlerRequest,
)
from cloudformation_cli_python_lib.recast import recast_object
from cloudformation_cli_python_lib.utils import deserialize_list

import sys
from inspect import getmembers, isclass
from typing import (
    AbstractSet,
    Any,
    Generic,
    Mapping,
    MutableMapping,
    Optional,
    Sequence,
    Type,
    TypeVar,
)

T = TypeVar("T")


def set_or_none(value: Optional[Sequence[T]]) -> Optional[AbstractSet[T]]:
    if value:
        return set(value)
    return None


@dataclass
class ResourceHandlerRequest(BaseResourceHandlerRequest):
    # pylint: disable=invalid-name
    desiredResourceState: Optional["ResourceModel"]
    previousResourceState: Optional["ResourceModel"]
    typeConfiguration: Optional["TypeConfigurationModel"]


@dataclass
class ResourceModel(BaseModel):
    WidgetId: Optional[str]
    Arn: Optional[str]
    Name: Optional[str]
    Size: Optional[int]
    Color: Optional[str]
    Tags: Optional[Sequence["_Tag"]]
    Labels: Optional[Sequence[str]]
    Secret: Optional[str]
    Settings: Optional["_Settings"]

    @classmethod
    def _deserialize(
        cls: Type["_ResourceModel"],
        json_data: Optional[Mapping[str, Any]],
    ) -> Optional["_ResourceModel"]:
        if not json_data:
            return None
        dataclasses = {n: o for n, o in getmembers(sys.modules[__name__]) if isclass(o)}
        recast_object(cls, json_data, dataclasses)
        return cls(
            WidgetId=json_data.get("WidgetId"),
            Arn=json_data.get("Arn"),
            Name=json_data.get("Name"),
            Size=json_data.get("Size"),
            Color=json_data.get("Color"),
            Tags=deserialize_list(json_data.get("Tags"), Tag),
            Labels=json_data.get("Labels"),
            Secret=json_data.get("Secret"),
            Settings=Settings._deserialize(json_data.get("Settings")),
        )


# work around possible type aliasing issues when variable has same name as a model
_ResourceModel = ResourceModel


@dataclass
class Tag(BaseModel):
    Key: Optional[str]
    Value: Optional[str]

    @classmethod
    def _deserialize(
        cls: Type["_Tag"],
        json_data: Optional[Mapping[str, Any]],
    ) -> Optional["_Tag"]:
        if not json_data:
            return None
        return cls(
            Key=json_data.get("Key"),
            Value=json_data.get("Value"),
        )


# work around possible type aliasing issues when variable has same name as a model
_Tag = Tag


@dataclass
class Settings(BaseModel):
    Mode: Optional[str]
    Retries: Optional[int]

    @classmethod
    def _deserialize(
        cls: Type["_Settings"],
        json_data: Optional[Mapping[str, Any]],
    ) -> Optional["_Settings"]:
        if not json_data:
            return None
        return cls(
            Mode=json_data.get("Mode"),
            Retries=json_data.get("Retries"),
        )


# work around possible type aliasing issues when variable has same name as a model
_Settings = Settings


@dataclass
class TypeConfigurationModel(BaseModel):
    Fault: Optional[str]
    ReadDelaySeconds: Optional[float]
    ListPageSize: Optional[int]
    CallbackDelaySeconds: Optional[int]

    @classmethod
    def _deserialize(
        cls: Type["_TypeConfigurationModel"],
        json_data: Optional[Mapping[str, Any]],
    ) -> Optional["_TypeConfigurationModel"]:
        if not json_data:
            return None
        return cls(
            Fault=json_data.get("Fault"),
            ReadDelaySeconds=json_data.get("ReadDelaySeconds"),
            ListPageSize=json_data.get("ListPageSize"),
            CallbackDelaySeconds=json_data.get("CallbackDelaySeconds"),
        )


# work around possible type aliasing issues when variable has same name as a model
_TypeConfigurationModel = TypeConfigurationModel


