"""Handlers of CfnDebug::Demo::Widget, the resource type bundled with cfn-debug.

The widgets live in a local store (store.py), so the handlers run anywhere without AWS. They
follow the handler contract, except where the request's type configuration switches on a Fault:
each fault is one realistic bug, written the way an author would write it (see README.md).
"""

from __future__ import annotations

import logging
import time
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

from . import store as widget_store
from .models import ResourceHandlerRequest, ResourceModel, TypeConfigurationModel

# Use this logger to forward log messages to CloudWatch Logs.
LOG = logging.getLogger(__name__)
LOG.setLevel(logging.INFO)
TYPE_NAME = "CfnDebug::Demo::Widget"

resource = Resource(TYPE_NAME, ResourceModel, TypeConfigurationModel)
test_entrypoint = resource.test_entrypoint

FAULTS = (
    "MissingPrimaryIdentifier",
    "WriteOnlyOnRead",
    "ReadInProgress",
    "DropRequestedProperty",
    "UpdateUpserts",
    "UnhandledException",
    "SlowRead",
    "SchemaViolation",
    "DeleteReturnsModel",
    "IdentifierChangesMidChain",
    "FailedWithoutErrorCode",
)
DEFAULT_CALLBACK_DELAY_S = 1
DEFAULT_READ_DELAY_S = 31.0  # past the 30 s a read handler has
DEFAULT_LIST_PAGE_SIZE = 2
DEFAULT_SIZE = 1  # the schema's default for Size
CREATE_STAGES = 3  # name and identifiers; size, color, settings, secret; tags and labels
READ_ONLY = ("WidgetId", "Arn")
UPDATABLE = ("Color", "Tags", "Labels", "Settings")  # besides Size, which has a default
CallbackContext = MutableMapping[str, Any]


# --- request helpers ---


def _config(request: ResourceHandlerRequest) -> TypeConfigurationModel | None:
    return request.typeConfiguration


def _fault(request: ResourceHandlerRequest) -> str | None:
    config = _config(request)
    fault = config.Fault if config else None
    if fault is not None and fault not in FAULTS:
        raise exceptions.InvalidTypeConfiguration(
            TYPE_NAME, f"Fault {fault!r} is not one of {', '.join(FAULTS)}"
        )
    if fault:
        LOG.info("type configuration switches on the fault %s", fault)
    return fault


def _callback_delay(request: ResourceHandlerRequest) -> int:
    config = _config(request)
    if config and config.CallbackDelaySeconds is not None:
        return int(config.CallbackDelaySeconds)
    return DEFAULT_CALLBACK_DELAY_S


def _plain(model: ResourceModel | None) -> dict[str, Any]:
    """A request's model (desired or previous state) as plain JSON."""
    return dict(model._serialize()) if model else {}


def _desired(request: ResourceHandlerRequest) -> dict[str, Any]:
    return _plain(request.desiredResourceState)


def _name(desired: dict[str, Any]) -> str:
    name = desired.get("Name")
    if not isinstance(name, str) or not name:
        raise exceptions.InvalidRequest("Name is required to create a widget")
    return name


def _widget_id(request: ResourceHandlerRequest, action: str) -> str:
    widget_id = _desired(request).get("WidgetId")
    if not isinstance(widget_id, str) or not widget_id:
        raise exceptions.InvalidRequest(
            f"{action} needs the primary identifier WidgetId in the desired resource state"
        )
    return widget_id


def _arn(request: ResourceHandlerRequest, widget_id: str) -> str:
    return widget_store.make_arn(
        request.awsPartition or "aws",
        request.region or "us-east-1",
        request.awsAccountId or "123456789012",
        widget_id,
    )


def _model(data: dict[str, Any]) -> ResourceModel:
    """A ResourceModel from plain JSON (the generated _deserialize is the library's API)."""
    model = ResourceModel._deserialize(dict(data))
    assert model is not None
    return model


def _in_progress(
    request: ResourceHandlerRequest, model: dict[str, Any], stage: int, widget_id: str
) -> ProgressEvent:
    return ProgressEvent(
        status=OperationStatus.IN_PROGRESS,
        resourceModel=_model(model),
        callbackContext={"stage": stage, "WidgetId": widget_id},
        callbackDelaySeconds=_callback_delay(request),
    )


def _success(model: dict[str, Any]) -> ProgressEvent:
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=_model(model))


# --- create: three stages, the first stores the widget and its identifiers ---


@resource.handler(Action.CREATE)
def create_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: CallbackContext,
) -> ProgressEvent:
    fault = _fault(request)
    store = widget_store.Store()
    widget_id = callback_context.get("WidgetId")
    if isinstance(widget_id, str):
        return _continue_create(store, request, widget_id, fault)
    return _start_create(store, request, fault)


def _start_create(
    store: widget_store.Store, request: ResourceHandlerRequest, fault: str | None
) -> ProgressEvent:
    desired = _desired(request)
    name = _name(desired)
    token = request.clientRequestToken
    LOG.info("create: request %s asks for a widget named %r", token, name)

    widget_id = widget_store.new_widget_id()
    model = {"WidgetId": widget_id, "Arn": _arn(request, widget_id), "Name": name}
    record = widget_store.new_record(model, secret=None, token=token, status=widget_store.CREATING)
    record["desired"] = {k: v for k, v in desired.items() if k not in READ_ONLY}
    record["stage"] = 1
    outcome, holder = store.create(record, token)

    if outcome == "token":
        LOG.info("create: request %s already created %s; carrying on with it", token, holder)
        return _continue_create(store, request, holder, fault, replay=True)
    if outcome == "name":
        LOG.info("create: the name %r is taken by %s", name, holder)
        if fault == "FailedWithoutErrorCode":
            # The bug: a hand-built FAILED event that forgets its errorCode.
            return ProgressEvent(
                status=OperationStatus.FAILED,
                message=f"A widget named {name} already exists ({holder}).",
            )
        raise exceptions.AlreadyExists(TYPE_NAME, name)

    LOG.info("create: stored %s (stage 1 of %d: name and identifiers)", widget_id, CREATE_STAGES)
    return _in_progress(request, model, 1, widget_id)


def _continue_create(
    store: widget_store.Store,
    request: ResourceHandlerRequest,
    widget_id: str,
    fault: str | None,
    replay: bool = False,
) -> ProgressEvent:
    with store.locked(widget_id):
        record = store.get(widget_id)
        if record is None:
            raise exceptions.NotStabilized(f"widget {widget_id} vanished while being created")
        if record["status"] == widget_store.CREATING and not replay:
            _apply_next_stage(record, fault)
            store.put(record)
    model: dict[str, Any] = dict(record["model"])

    if fault == "IdentifierChangesMidChain":
        # The bug: the identifier is generated again on every invocation instead of being
        # carried in callbackContext, so later events name a widget that does not exist.
        widget_id = widget_store.new_widget_id()
        model["WidgetId"], model["Arn"] = widget_id, _arn(request, widget_id)
        LOG.info("create: generated identifier %s", widget_id)

    if record["status"] == widget_store.CREATING:
        return _in_progress(request, model, record["stage"], record["model"]["WidgetId"])

    if fault == "MissingPrimaryIdentifier":
        # The bug: the final model is rebuilt from the request plus the ARN, forgetting the id.
        del model["WidgetId"]
    LOG.info("create: %s is ready", record["model"]["WidgetId"])
    return _success(model)


def _apply_next_stage(record: dict[str, Any], fault: str | None) -> None:
    desired: dict[str, Any] = record["desired"] or {}
    model: dict[str, Any] = record["model"]
    stage = record["stage"] + 1
    if stage == 2:
        model["Size"] = desired.get("Size", DEFAULT_SIZE)
        for key in ("Color", "Settings"):
            if key in desired:
                model[key] = desired[key]
        record["secret"] = desired.get("Secret")
        LOG.info(
            "create: %s stage 2 of %d: size %s, color %s, settings, secret",
            model["WidgetId"],
            CREATE_STAGES,
            model["Size"],
            model.get("Color", "(none)"),
        )
    else:
        keys = ("Tags",) if fault == "DropRequestedProperty" else ("Tags", "Labels")
        for key in keys:  # The DropRequestedProperty bug: Labels never reach the widget.
            if key in desired:
                model[key] = desired[key]
        record["status"], record["desired"] = widget_store.ACTIVE, None
        LOG.info("create: %s stage 3 of %d: %s", model["WidgetId"], CREATE_STAGES, ", ".join(keys))
    record["stage"] = stage


# --- read ---


@resource.handler(Action.READ)
def read_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: CallbackContext,
) -> ProgressEvent:
    fault = _fault(request)
    widget_id = _widget_id(request, "read")
    LOG.info("read: looking up %s", widget_id)
    if fault == "SlowRead":
        config = _config(request)
        delay = DEFAULT_READ_DELAY_S
        if config and config.ReadDelaySeconds is not None:
            delay = float(config.ReadDelaySeconds)
        LOG.info("read: the backend is slow today, waiting %.2f s", delay)
        time.sleep(delay)
    record = widget_store.Store().get(widget_id)
    if record is None:
        LOG.info("read: %s does not exist", widget_id)
        raise exceptions.NotFound(TYPE_NAME, widget_id)

    stored: dict[str, Any] = record["model"]
    model = dict(stored)
    if fault == "UnhandledException":
        model["Color"] = stored["Colour"]  # The bug: a typo, a KeyError nobody catches.
    if fault == "WriteOnlyOnRead" and record.get("secret"):
        model["Secret"] = record["secret"]  # The bug: the writeOnly Secret is echoed back.
    result = _model(model)
    if fault == "SchemaViolation":
        # The bug: the backend's own representation leaks through: a numeric string and an
        # upper-case color, neither allowed by the schema.
        result.Size = str(stored.get("Size", DEFAULT_SIZE))  # type: ignore[assignment]
        result.Color = str(stored.get("Color", "blue")).upper()
    if fault == "ReadInProgress":
        # The bug: read treats a widget like an operation to wait for. The library turns this
        # into FAILED InternalFailure: READ and LIST must return synchronously.
        LOG.info("read: %s, asking to be called again", widget_id)
        return ProgressEvent(
            status=OperationStatus.IN_PROGRESS,
            resourceModel=result,
            callbackContext={"stage": 1},
            callbackDelaySeconds=_callback_delay(request),
        )
    LOG.info("read: %s found (%s)", widget_id, record["status"])
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=result)


# --- update: synchronous, replaces every updatable property ---


@resource.handler(Action.UPDATE)
def update_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: CallbackContext,
) -> ProgressEvent:
    fault = _fault(request)
    widget_id = _widget_id(request, "update")
    desired = _desired(request)
    store = widget_store.Store()
    LOG.info("update: %s", widget_id)
    if store.get(widget_id) is None:
        if fault == "UpdateUpserts":
            return _upsert(store, request, desired)
        LOG.info("update: %s does not exist", widget_id)
        raise exceptions.NotFound(TYPE_NAME, widget_id)

    with store.locked(widget_id):
        record = store.get(widget_id)
        if record is None:
            raise exceptions.NotFound(TYPE_NAME, widget_id)
        if record["status"] != widget_store.ACTIVE:
            raise exceptions.ResourceConflict(
                f"widget {widget_id} is {record['status']}; try again when it is ACTIVE"
            )
        stored: dict[str, Any] = record["model"]
        for previous in (stored, _plain(request.previousResourceState)):
            if "Name" in desired and "Name" in previous and desired["Name"] != previous["Name"]:
                raise exceptions.NotUpdatable(
                    f"Name is createOnly: cannot change {previous['Name']!r} to "
                    f"{desired['Name']!r}; replace the widget instead"
                )
        model = _replaced({key: stored[key] for key in ("WidgetId", "Arn", "Name")}, desired)
        record["model"], record["secret"] = model, desired.get("Secret")
        store.put(record)
    changed = sorted(k for k in set(model) | set(stored) if model.get(k) != stored.get(k))
    LOG.info("update: %s updated: %s", widget_id, ", ".join(changed) or "nothing changed")
    return _success(model)


def _replaced(model: dict[str, Any], desired: dict[str, Any]) -> dict[str, Any]:
    """Replacement semantics: what the request leaves out is removed (Size falls back to its
    default), and lists are taken in full."""
    model["Size"] = desired.get("Size", DEFAULT_SIZE)
    for key in UPDATABLE:
        if key in desired:
            model[key] = desired[key]
    return model


def _upsert(
    store: widget_store.Store, request: ResourceHandlerRequest, desired: dict[str, Any]
) -> ProgressEvent:
    """The UpdateUpserts bug: "not found? then create it", under a brand-new identifier."""
    name = _name(desired)
    widget_id = widget_store.new_widget_id()
    model = _replaced(
        {"WidgetId": widget_id, "Arn": _arn(request, widget_id), "Name": name}, desired
    )
    record = widget_store.new_record(
        model, secret=desired.get("Secret"), token=None, status=widget_store.ACTIVE
    )
    outcome, _ = store.create(record, None)
    if outcome == "name":
        raise exceptions.AlreadyExists(TYPE_NAME, name)
    LOG.info("update: %s did not exist, created %s instead", desired.get("WidgetId"), widget_id)
    return _success(model)


# --- delete: two stages, the widget is gone when the second one returns ---


@resource.handler(Action.DELETE)
def delete_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: CallbackContext,
) -> ProgressEvent:
    fault = _fault(request)
    store = widget_store.Store()
    widget_id = callback_context.get("WidgetId")
    if not isinstance(widget_id, str):
        widget_id = _widget_id(request, "delete")
        if store.get(widget_id) is None:
            LOG.info("delete: %s does not exist", widget_id)
            raise exceptions.NotFound(TYPE_NAME, widget_id)
        with store.locked(widget_id):
            record = store.get(widget_id)
            if record is None:
                raise exceptions.NotFound(TYPE_NAME, widget_id)
            record["status"] = widget_store.DELETING
            store.put(record)
        LOG.info("delete: %s is being switched off (stage 1 of 2)", widget_id)
        identifiers = {key: record["model"][key] for key in READ_ONLY}
        return _in_progress(request, identifiers, 1, widget_id)

    removed = store.remove(widget_id)
    if removed is None:
        LOG.info("delete: %s was already gone", widget_id)
    else:
        LOG.info("delete: %s removed (stage 2 of 2)", widget_id)
    if fault == "DeleteReturnsModel" and removed is not None:
        # The bug: the handler returns what it deleted, "for the record".
        return _success(removed["model"])
    return ProgressEvent(status=OperationStatus.SUCCESS)


# --- list: pages of ListPageSize widgets; nextToken is the last WidgetId of a page ---


@resource.handler(Action.LIST)
def list_handler(
    session: SessionProxy | None,
    request: ResourceHandlerRequest,
    callback_context: CallbackContext,
) -> ProgressEvent:
    _fault(request)
    config = _config(request)
    page_size = DEFAULT_LIST_PAGE_SIZE
    if config and config.ListPageSize:
        page_size = int(config.ListPageSize)
    token = request.nextToken
    if token is not None and not widget_store.WIDGET_ID_RE.match(token):
        raise exceptions.InvalidRequest(f"nextToken {token!r} was not issued by this handler")
    store = widget_store.Store()
    ids = [i for i in store.all_ids() if token is None or i > token]
    page = ids[:page_size]
    models = []
    for widget_id in page:
        record = store.get(widget_id)
        if record is not None:  # deleted since the directory was listed
            models.append(_model(record["model"]))
    next_token = page[-1] if len(ids) > page_size else None
    LOG.info(
        "list: %d widget(s) after %s, next token %s", len(models), token or "the start", next_token
    )
    return ProgressEvent(
        status=OperationStatus.SUCCESS, resourceModels=models, nextToken=next_token
    )
