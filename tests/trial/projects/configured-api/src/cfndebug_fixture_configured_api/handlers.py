"""Handlers of CfnDebug::Fixture::ConfiguredApi: each reads the API key of the type
configuration before anything else and passes any error on as GeneralServiceException, as
Datadog's types do. Run without a type configuration, every handler fails the same way before it
could tell whether a record exists; with one, the API keeps records in memory (a record no
create made is NotFound)."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

from cloudformation_cli_python_lib import (
    Action,
    HandlerErrorCode,
    OperationStatus,
    ProgressEvent,
    Resource,
    SessionProxy,
    exceptions,
)

from .models import ResourceHandlerRequest, ResourceModel, TypeConfigurationModel

TYPE_NAME = "CfnDebug::Fixture::ConfiguredApi"

resource = Resource(TYPE_NAME, ResourceModel, TypeConfigurationModel)
test_entrypoint = resource.test_entrypoint
Context = MutableMapping[str, Any]
Handler = Callable[[ResourceHandlerRequest, str], ProgressEvent]
RECORDS: dict[str, str] = {}


def _with_key(name: str, handler: Handler) -> Handler:
    def run(request: ResourceHandlerRequest, _key: str = "") -> ProgressEvent:
        try:
            key = request.typeConfiguration.ApiKey  # None without a type configuration
            return handler(request, key)
        except exceptions.NotFound:
            raise
        except Exception as error:
            return ProgressEvent.failed(
                HandlerErrorCode.GeneralServiceException,
                f"Exception when calling {name}: {error}",
            )

    return run


def _create(request: ResourceHandlerRequest, key: str) -> ProgressEvent:
    model = request.desiredResourceState
    record_id = f"{key[:4]}-{len(RECORDS)}"
    RECORDS[record_id] = model.Name
    model = ResourceModel(Name=model.Name, RecordId=record_id)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


def _existing(request: ResourceHandlerRequest, key: str) -> ResourceModel:
    record_id = request.desiredResourceState.RecordId
    if record_id not in RECORDS:
        raise exceptions.NotFound(TYPE_NAME, str(record_id))
    return ResourceModel(Name=RECORDS[record_id], RecordId=record_id)


def _update(request: ResourceHandlerRequest, key: str) -> ProgressEvent:
    model = _existing(request, key)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


def _delete(request: ResourceHandlerRequest, key: str) -> ProgressEvent:
    RECORDS.pop(_existing(request, key).RecordId, None)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=None)


def _read(request: ResourceHandlerRequest, key: str) -> ProgressEvent:
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_existing(request, key))


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    return _with_key("create_handler", _create)(request)


@resource.handler(Action.UPDATE)
def update_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    return _with_key("update_handler", _update)(request)


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    return _with_key("delete_handler", _delete)(request)


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    return _with_key("read_handler", _read)(request)
