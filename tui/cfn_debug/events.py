"""Test events: read them, tell their shape, normalize them and build the payload a handler takes.

Two wire shapes exist (DESIGN.md section 4). The sam-style test event is what a Python project's
``test_entrypoint`` accepts; the CloudFormation HandlerRequest is what the ``resource`` entrypoint
accepts. Either can be read from a file and either can be sent, whatever the file held: both are
reduced to a ``NormalizedEvent`` and built again by ``build_payload``.

Besides those two, ``cfn invoke`` request files (``desiredResourceState``/``previousResourceState``
at the top, the action taken from the file name) and the bare models of ``inputs/`` and
``example_inputs/`` are read too; they become sam-style events.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from cfn_debug.aws.placeholders import read_json_filled
from cfn_debug.credentials import PLACEHOLDER_CREDENTIALS
from cfn_debug.endpoint.runtimes import family_of, project_language
from cfn_debug.errors import EventError
from cfn_debug.pylib.shape import fit_payload
from cfn_debug.records import RESOURCE_ACTIONS, Action

DEFAULT_REGION = "us-east-1"
DEFAULT_ACCOUNT = "123456789012"
_ACTIONS = ", ".join(a.value for a in RESOURCE_ACTIONS)  # a hook's points: cfn_debug.hooks
#: Where a request's model sits in the two payload shapes (HandlerRequest, SAM-style event).
REQUEST_PLACES = (("request", "desiredResourceState"), ("requestData", "resourceProperties"))


class Shape(str, Enum):
    """The wire shape of an event."""

    SAM = "sam"  # {"credentials", "action", "request", "callbackContext", "region"}
    HANDLER_REQUEST = "handler_request"  # {"action", "bearerToken", ..., "requestData": {...}}


#: Top-level keys of a sam-style event (cloudformation_cli_python_lib.utils.TestEvent).
SAM_KEYS = frozenset({"credentials", "action", "request", "callbackContext", "region"})
#: Keys of a sam-style event's request (cloudformation_cli_python_lib.utils.UnmodelledRequest);
#: the library rejects any other key, so they are rejected here with a clearer message.
SAM_REQUEST_KEYS = frozenset(
    {
        "clientRequestToken",
        "desiredResourceState",
        "previousResourceState",
        "desiredResourceTags",
        "previousResourceTags",
        "systemTags",
        "previousSystemTags",
        "typeConfiguration",
        "awsAccountId",
        "logicalResourceIdentifier",
        "nextToken",
        "stackId",
        "region",
    }
)
_CREDENTIAL_KEYS = ("accessKeyId", "secretAccessKey", "sessionToken")


@dataclass
class NormalizedEvent:
    """What an event asks for, independent of its wire shape."""

    action: Action
    desired: dict[str, Any] | None = None
    previous: dict[str, Any] | None = None
    callback_context: dict[str, Any] | None = None
    client_request_token: str | None = None
    type_configuration: dict[str, Any] | None = None
    next_token: str | None = None
    region: str | None = None
    logical_id: str | None = None
    aws_account_id: str | None = None
    stack_id: str | None = None
    resource_type: str | None = None
    desired_tags: dict[str, Any] | None = None
    previous_tags: dict[str, Any] | None = None
    system_tags: dict[str, Any] | None = None
    previous_system_tags: dict[str, Any] | None = None
    credentials: dict[str, str] | None = None  # the event's own, if it carried any


@dataclass
class EventSpec:
    """One event the user can run: where it came from, its action, its shape and its data."""

    name: str
    path: Path | None
    action: Action
    shape: Shape
    data: dict[str, Any]
    normalized: NormalizedEvent = field(repr=False, compare=False, default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.normalized is None:
            strict = strict_keys_for(self.path) if self.path is not None else True
            self.normalized = normalize(self.data, self.shape, path=self.path, strict=strict)

    @property
    def source(self) -> str:
        return str(self.path) if self.path is not None else self.name


# --- reading -------------------------------------------------------------------------------


def load_event(path: Path, *, name: str | None = None, exports: Any = None) -> EventSpec:
    """Read an event file of either shape (or a `cfn invoke` request file, or a bare model of
    inputs/ named inputs_N_create|update|invalid.json); ``exports`` (aws.placeholders.Exports)
    fills its ``{{ExportName}}`` placeholders, and one left unfilled is a PlaceholderError."""
    data = read_json_filled(path, exports)[0]
    model_action = _input_file_action(path)
    if model_action is not None and isinstance(data, dict) and not _looks_like_event(data):
        previous = None
        if model_action is Action.UPDATE:  # the previous state: the create input of the same N
            sibling = path.with_name(path.name.replace("_update.json", "_create.json"))
            if sibling.is_file():
                previous = read_json_filled(sibling, exports)[0]
                if not isinstance(previous, dict):
                    raise EventError("expected a resource model (a JSON object)", path=sibling)
        return event_from_model(
            data, model_action, name=name or path.stem, path=path, previous=previous
        )
    return parse_event(data, name=name or path.stem, path=path, strict=strict_keys_for(path))


def strict_keys_for(path: Path) -> bool:
    """Whether the library of the project an event file belongs to rejects unknown keys of a
    sam-style event: only cloudformation-cli-python-lib does (the TypeScript plugin's TestEvent,
    for one, drops them). False when the ``.rpdk-config`` beside the file or one or two folders
    up (sam-tests/, sample_events/, inputs/) names another runtime family's language."""
    for folder in list(path.resolve().parents)[:3]:
        if (folder / ".rpdk-config").is_file():
            return family_of(None, project_language(folder) or "python") in (None, "python")
    return True


_INPUT_FILE = re.compile(r"^inputs_\d+_(create|update|invalid)\.json$")


def _input_file_action(path: Path) -> Action | None:
    """CREATE for inputs_N_create/invalid.json, UPDATE for inputs_N_update.json, else None."""
    match = _INPUT_FILE.match(path.name)
    if match is None:
        return None
    return Action.UPDATE if match.group(1) == "update" else Action.CREATE


def _looks_like_event(data: dict[str, Any]) -> bool:
    return any(k in data for k in ("requestData", "request", "desiredResourceState")) or (
        "action" in data and "credentials" in data
    )


def detect_shape(data: Any, *, path: Path | None = None) -> Shape:
    if not isinstance(data, dict):
        raise EventError(
            f"expected a JSON object (a sam-style event or a HandlerRequest), got {_kind(data)}",
            path=path,
        )
    if "requestData" in data:
        return Shape.HANDLER_REQUEST
    if "request" in data or "credentials" in data:
        return Shape.SAM
    raise EventError(
        "expected a sam-style event (keys action, request) or a CloudFormation HandlerRequest "
        f"(keys action, requestData); found keys {sorted(data)}",
        path=path,
    )


def parse_event(
    data: Any, *, name: str, path: Path | None = None, strict: bool | None = None
) -> EventSpec:
    """Validate ``data`` as an event and wrap it in an EventSpec. ``strict``: reject the keys of
    a sam-style event cloudformation-cli-python-lib rejects (default: as the library of the
    project ``path`` is in reads them, see strict_keys_for; True without a path)."""
    if isinstance(data, dict) and "desiredResourceState" in data and "requestData" not in data:
        return _from_invoke_request(data, name=name, path=path)
    shape = detect_shape(data, path=path)
    if strict is None:
        strict = strict_keys_for(path) if path is not None else True
    normalized = normalize(data, shape, path=path, strict=strict)
    return EventSpec(name, path, normalized.action, shape, data, normalized)


def event_from_model(
    model: Any,
    action: Action,
    *,
    name: str,
    path: Path | None = None,
    previous: dict[str, Any] | None = None,
) -> EventSpec:
    """A sam-style event for a bare model (the files of inputs/ and example_inputs/)."""
    if not isinstance(model, dict):
        raise EventError(
            f"expected a resource model (a JSON object), got {_kind(model)}", path=path
        )
    request: dict[str, Any] = {"desiredResourceState": model}
    if previous is not None:
        request["previousResourceState"] = previous
    data = {"action": action.value, "request": request, "callbackContext": None}
    return EventSpec(name, path, action, Shape.SAM, data)


_ACTION_IN_NAME = re.compile(r"(?i)(?:^|[_\-.])(create|read|update|delete|list)(?:$|[_\-.])")


def _from_invoke_request(data: dict[str, Any], *, name: str, path: Path | None) -> EventSpec:
    """A `cfn invoke` request file: the action is not in it, so it must be in its name."""
    action_value = data.get("action")
    if action_value is None:
        match = _ACTION_IN_NAME.search(path.stem if path else name)
        if match is None:
            raise EventError(
                "a `cfn invoke` request file carries no action: name the file after it "
                f'(e.g. create.json) or add an "action" key, one of {_ACTIONS}',
                path=path,
                field="action",
            )
        action_value = match.group(1).upper()
    action = _action(action_value, path)
    request = {
        k: data[k]
        for k in ("desiredResourceState", "previousResourceState", "typeConfiguration")
        if k in data
    }
    converted = {"action": action.value, "request": request, "callbackContext": None}
    return EventSpec(name, path, action, Shape.SAM, converted)


# --- normalizing ---------------------------------------------------------------------------


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
    }.get(type(value), type(value).__name__)


def _action(value: Any, path: Path | None, field: str = "action") -> Action:
    if isinstance(value, str) and value in Action.__members__ and Action(value) in RESOURCE_ACTIONS:
        return Action(value)
    shown = json.dumps(value) if value is not None else "nothing"
    raise EventError(f"expected one of {_ACTIONS}, got {shown}", path=path, field=field)


def _object(
    container: dict[str, Any], key: str, path: Path | None, field: str, *, required: bool = False
) -> dict[str, Any] | None:
    value = container.get(key)
    if value is None:
        if required:
            raise EventError("expected an object, found nothing", path=path, field=field)
        return None
    if not isinstance(value, dict):
        raise EventError(f"expected an object or null, got {_kind(value)}", path=path, field=field)
    return value


def _string(container: dict[str, Any], key: str, path: Path | None, field: str) -> str | None:
    value = container.get(key)
    if value is None or isinstance(value, str):
        return value
    raise EventError(f"expected a string or null, got {_kind(value)}", path=path, field=field)


def _credentials(
    container: dict[str, Any], key: str, path: Path | None, field: str
) -> dict[str, str] | None:
    creds = _object(container, key, path, field)
    if creds is None:
        return None
    for name in _CREDENTIAL_KEYS:
        value = creds.get(name)
        if not isinstance(value, str):
            raise EventError(
                f"expected a string, got {_kind(value)}", path=path, field=f"{field}.{name}"
            )
    return {name: creds[name] for name in _CREDENTIAL_KEYS}


def normalize(
    data: dict[str, Any], shape: Shape, *, path: Path | None = None, strict: bool = True
) -> NormalizedEvent:
    """Check ``data`` against ``shape`` and return what it asks for. ``strict``: a key of a
    sam-style event that cloudformation-cli-python-lib does not know is an error (that library
    fails the event); otherwise it is left out, as the TypeScript library leaves it out."""
    if not isinstance(data, dict):
        raise EventError(f"expected a JSON object, got {_kind(data)}", path=path)
    action = _action(data.get("action"), path)
    if shape is Shape.SAM:
        unknown = sorted(set(data) - SAM_KEYS)
        if unknown and strict:
            raise EventError(
                f"unknown key (the handler library rejects it); expected only {sorted(SAM_KEYS)}",
                path=path,
                field=unknown[0],
            )
        request = _object(data, "request", path, "request", required=True)
        assert request is not None
        unknown = sorted(set(request) - SAM_REQUEST_KEYS)
        if unknown and strict:
            raise EventError(
                "unknown key (the handler library rejects it); expected only "
                f"{sorted(SAM_REQUEST_KEYS)}",
                path=path,
                field=f"request.{unknown[0]}",
            )
        return NormalizedEvent(
            action=action,
            desired=_object(request, "desiredResourceState", path, "request.desiredResourceState"),
            previous=_object(
                request, "previousResourceState", path, "request.previousResourceState"
            ),
            callback_context=_object(data, "callbackContext", path, "callbackContext"),
            client_request_token=_string(
                request, "clientRequestToken", path, "request.clientRequestToken"
            ),
            type_configuration=_object(
                request, "typeConfiguration", path, "request.typeConfiguration"
            ),
            next_token=_string(request, "nextToken", path, "request.nextToken"),
            region=_string(data, "region", path, "region")
            or _string(request, "region", path, "request.region"),
            logical_id=_string(
                request, "logicalResourceIdentifier", path, "request.logicalResourceIdentifier"
            ),
            aws_account_id=_string(request, "awsAccountId", path, "request.awsAccountId"),
            stack_id=_string(request, "stackId", path, "request.stackId"),
            desired_tags=_object(
                request, "desiredResourceTags", path, "request.desiredResourceTags"
            ),
            previous_tags=_object(
                request, "previousResourceTags", path, "request.previousResourceTags"
            ),
            system_tags=_object(request, "systemTags", path, "request.systemTags"),
            previous_system_tags=_object(
                request, "previousSystemTags", path, "request.previousSystemTags"
            ),
            credentials=_credentials(data, "credentials", path, "credentials"),
        )
    rd = _object(data, "requestData", path, "requestData", required=True)
    assert rd is not None
    return NormalizedEvent(
        action=action,
        desired=_object(rd, "resourceProperties", path, "requestData.resourceProperties"),
        previous=_object(
            rd, "previousResourceProperties", path, "requestData.previousResourceProperties"
        ),
        callback_context=_object(data, "callbackContext", path, "callbackContext"),
        client_request_token=_string(data, "bearerToken", path, "bearerToken"),
        type_configuration=_object(rd, "typeConfiguration", path, "requestData.typeConfiguration"),
        next_token=_string(data, "nextToken", path, "nextToken"),
        region=_string(data, "region", path, "region"),
        logical_id=_string(rd, "logicalResourceId", path, "requestData.logicalResourceId"),
        aws_account_id=_string(data, "awsAccountId", path, "awsAccountId"),
        stack_id=_string(data, "stackId", path, "stackId"),
        resource_type=_string(data, "resourceType", path, "resourceType"),
        desired_tags=_object(rd, "stackTags", path, "requestData.stackTags"),
        previous_tags=_object(rd, "previousStackTags", path, "requestData.previousStackTags"),
        system_tags=_object(rd, "systemTags", path, "requestData.systemTags"),
        previous_system_tags=_object(
            rd, "previousSystemTags", path, "requestData.previousSystemTags"
        ),
        credentials=_credentials(rd, "callerCredentials", path, "requestData.callerCredentials"),
    )


# --- building payloads ---------------------------------------------------------------------


@dataclass
class PayloadDefaults:
    """What a payload needs that an event may not say: filled in by the workspace."""

    region: str | None = None  # --region: overrides the event's region
    credentials: dict[str, str] | None = None  # --profile's credentials: override the event's
    type_name: str | None = None  # the schema's typeName, for HandlerRequest.resourceType
    aws_account_id: str = DEFAULT_ACCOUNT
    #: the handler's cloudformation-cli-python-lib (pylib.shape.LibraryShape): the payload keeps
    #: only what that version reads of what cfn-debug fills in itself
    library: Any = None


def _drop_none(mapping: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if v is not None}


def build_payload(
    event: NormalizedEvent,
    shape: Shape,
    *,
    defaults: PayloadDefaults | None = None,
    desired: Any = ...,
    callback_context: Any = ...,
    client_request_token: str | None = None,
) -> dict[str, Any]:
    """The payload for one invocation, in ``shape``.

    ``desired`` and ``callback_context`` replace the event's (the chain passes the previous
    response's); ``client_request_token`` replaces the event's (the chain passes one token for the
    whole chain). The result shares model objects with its inputs: do not mutate it.
    """
    d = defaults or PayloadDefaults()
    model = event.desired if desired is ... else desired
    context = event.callback_context if callback_context is ... else callback_context
    token = client_request_token or event.client_request_token or str(uuid.uuid4())
    region = d.region or event.region or DEFAULT_REGION
    creds = d.credentials or event.credentials or dict(PLACEHOLDER_CREDENTIALS)
    account = event.aws_account_id or d.aws_account_id
    if shape is Shape.SAM:
        request = _drop_none(
            {
                "clientRequestToken": token,
                "desiredResourceState": model,
                "previousResourceState": event.previous,
                "logicalResourceIdentifier": event.logical_id,
                "typeConfiguration": event.type_configuration,
                "nextToken": event.next_token,
                "stackId": event.stack_id,
                "region": region,
                "awsAccountId": account,
                "desiredResourceTags": event.desired_tags,
                "previousResourceTags": event.previous_tags,
                "systemTags": event.system_tags,
                "previousSystemTags": event.previous_system_tags,
            }
        )
        return _fitted(
            {
                "credentials": creds,
                "action": event.action.value,
                "request": request,
                "callbackContext": context,
                "region": region,
            },
            event,
            d,
        )
    # HandlerRequest. providerCredentials/providerLogGroupName are left out on purpose: with them
    # the library ships logs and metrics to CloudWatch.
    request_data = _drop_none(
        {
            "callerCredentials": creds,
            "resourceProperties": model if model is not None else {},
            "previousResourceProperties": event.previous,
            "logicalResourceId": event.logical_id or "MyResource",
            "typeConfiguration": event.type_configuration,
            "stackTags": event.desired_tags,
            "previousStackTags": event.previous_tags,
            "systemTags": event.system_tags,
            "previousSystemTags": event.previous_system_tags,
        }
    )
    payload = _drop_none(
        {
            "action": event.action.value,
            "awsAccountId": account,
            "bearerToken": token,
            "region": region,
            "resourceType": d.type_name or event.resource_type,
            "stackId": event.stack_id,
            "callbackContext": context,
            "nextToken": event.next_token,
            "requestData": request_data,
        }
    )
    return _fitted(payload, event, d)


#: request keys cfn-debug fills in itself when the event does not say them
_FILLED = {"region": "region", "awsAccountId": "aws_account_id", "stackId": "stack_id"}


def _fitted(payload: dict[str, Any], event: NormalizedEvent, d: PayloadDefaults) -> dict[str, Any]:
    """``payload`` in the shape the handler's library reads (see pylib.shape): what the event
    wrote is kept as written, what cfn-debug filled in and that version cannot read is left
    out."""
    if d.library is None:
        return payload

    keep = {"clientRequestToken", "bearerToken", "action", "request", "requestData"}
    keep.update(
        key
        for key in (
            "typeConfiguration",
            "desiredResourceTags",
            "previousResourceTags",
            "systemTags",
            "previousSystemTags",
            "stackTags",
            "previousStackTags",
            "nextToken",
            "previousResourceState",
            "logicalResourceIdentifier",
        )
    )
    keep.update(k for k, attr in _FILLED.items() if getattr(event, attr, None) is not None)
    return fit_payload(payload, d.library, keep)[0]


def convert(
    spec: EventSpec, shape: Shape, defaults: PayloadDefaults | None = None
) -> dict[str, Any]:
    """The event's data rebuilt in ``shape`` (with generated token and filled credentials)."""
    return build_payload(spec.normalized, shape, defaults=defaults)


def shape_for_handler(function_name: str | None, handler: str | None) -> Shape:
    """Which shape a function takes: sam-style for a test entrypoint, else the HandlerRequest."""
    if handler and handler.rsplit(".", 1)[-1] == "test_entrypoint":
        return Shape.SAM
    name = (function_name or "").rsplit(":", 1)[-1]
    if name.lower() in ("testentrypoint", "test_entrypoint", "test-entrypoint"):
        return Shape.SAM
    return Shape.HANDLER_REQUEST


def resolve_credentials(profile: str | None) -> dict[str, str] | None:
    """The --profile's credentials from boto3's credential chain (None when no profile given)."""
    if not profile:
        return None
    # lazy: boto3 (~0.3 s of imports) only for --profile
    from cfn_debug.aws.profile import profile_credentials

    return profile_credentials(profile)


def request_place(request: Any) -> tuple[str, str] | None:
    """(holder, key) of the request's model: its place in either payload shape, if it has one."""
    if not isinstance(request, dict):
        return None
    for holder, key in REQUEST_PLACES:
        inner = request.get(holder)
        if isinstance(inner, dict) and isinstance(inner.get(key), dict):
            return holder, key
    return None
