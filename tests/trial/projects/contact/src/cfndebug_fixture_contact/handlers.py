"""Handlers of CfnDebug::Fixture::Contact: one contact per account and kind, kept as the SSM
parameter /cfndebug/contact/<AccountId>/<Kind> (its value is the email address)."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from cloudformation_cli_python_lib import (
    Action,
    OperationStatus,
    ProgressEvent,
    Resource,
    SessionProxy,
    exceptions,
)

from .models import ResourceHandlerRequest, ResourceModel

TYPE_NAME = "CfnDebug::Fixture::Contact"

resource = Resource(TYPE_NAME, ResourceModel)
test_entrypoint = resource.test_entrypoint
Context = MutableMapping[str, Any]


def _ssm(session: SessionProxy | None) -> Any:
    if session is None:
        raise exceptions.InvalidCredentials(TYPE_NAME)
    return session.client("ssm")


def _name(model: ResourceModel) -> str:
    return f"/cfndebug/contact/{model.AccountId}/{model.Kind}"


def _email(ssm: Any, model: ResourceModel) -> str | None:
    try:
        return str(ssm.get_parameter(Name=_name(model))["Parameter"]["Value"])
    except ssm.exceptions.ParameterNotFound:
        return None


def _done(model: ResourceModel, email: str) -> ProgressEvent:
    out = ResourceModel(AccountId=model.AccountId, Kind=model.Kind, Email=email)
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=out)


def _missing(model: ResourceModel) -> exceptions.NotFound:
    return exceptions.NotFound(TYPE_NAME, f"{model.AccountId}|{model.Kind}")


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    ssm = _ssm(session)
    if _email(ssm, model) is not None:
        raise exceptions.AlreadyExists(TYPE_NAME, f"{model.AccountId}|{model.Kind}")
    ssm.put_parameter(Name=_name(model), Value=model.Email, Type="String")
    return _done(model, model.Email)


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    email = _email(_ssm(session), model)
    if email is None:
        raise _missing(model)
    return _done(model, email)


@resource.handler(Action.UPDATE)
def update_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    ssm = _ssm(session)
    if _email(ssm, model) is None:
        raise _missing(model)
    ssm.put_parameter(Name=_name(model), Value=model.Email, Type="String", Overwrite=True)
    return _done(model, model.Email)


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None, request: ResourceHandlerRequest, callback_context: Context
) -> ProgressEvent:
    model = request.desiredResourceState
    ssm = _ssm(session)
    try:
        ssm.delete_parameter(Name=_name(model))
    except ssm.exceptions.ParameterNotFound:
        raise _missing(model) from None
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=None)
