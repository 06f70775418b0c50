"""Handlers of CfnDebug::Fixture::RemoteMonitor: each keeps a monitor through a web API that is
not AWS. The API's address is one nothing listens on (loopback, the discard port), as a
third-party API is when the handler runs offline: create lets the connection error escape (the
library answers FAILED InternalFailure and logs the traceback), update passes its text on as
the message; the API would answer 404 for a monitor it does not have (NotFound)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import MutableMapping
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

from .models import ResourceHandlerRequest, ResourceModel

TYPE_NAME = "CfnDebug::Fixture::RemoteMonitor"
API = "http://127.0.0.1:9/v3/monitors"

resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint
Context = MutableMapping[str, Any]


def _call(method: str, url: str, body: dict[str, Any] | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    with urllib.request.urlopen(request, timeout=5) as answer:
        if answer.status == 404:
            raise exceptions.NotFound(TYPE_NAME, url.rsplit("/", 1)[-1])
        return json.loads(answer.read() or b"{}")


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    desired = request.desiredResourceState
    made = _call("POST", API, {"name": desired.Name, "frequency": desired.Frequency or 5})
    model = ResourceModel(Name=desired.Name, Frequency=desired.Frequency, MonitorId=made["id"])
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.UPDATE)
def update_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    if not model.MonitorId:
        raise exceptions.NotFound(TYPE_NAME, request.logicalResourceIdentifier)
    try:
        _call("PUT", f"{API}/{model.MonitorId}", {"frequency": model.Frequency or 5})
    except OSError as error:
        return ProgressEvent.failed(HandlerErrorCode.InternalFailure, str(error))
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    found = _call("GET", f"{API}/{model.MonitorId}")
    read = ResourceModel(Name=found["name"], Frequency=found["frequency"], MonitorId=found["id"])
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=read)


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    _call("DELETE", f"{API}/{request.desiredResourceState.MonitorId}")
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=None)
