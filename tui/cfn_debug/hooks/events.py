"""Hook events: what one hook invocation asks, read from a project's files or made in code.

A :class:`HookEventSpec` is an :class:`cfn_debug.events.EventSpec` (the dashboard lists it, the
journal records it) whose action is an invocation point (CREATE/UPDATE/DELETE_PRE_PROVISION) and
which carries the target: its name and type, its logical id and its model
(``resourceProperties``, and ``previousResourceProperties`` for an update). Its ``shape`` says
which wire shape its file held (``Shape.SAM``: the library's hook test event;
``Shape.HANDLER_REQUEST``: the request CloudFormation sends, as `cfn test` sends it); the request
is built in the shape of the function it goes to (:mod:`cfn_debug.hooks.payload`).

Files read:

- ``inputs/`` in the CLI's hook naming: ``inputs_N_pre_create.json``, ``inputs_N_pre_update.json``,
  ``inputs_N_pre_delete.json`` (compliant targets), ``inputs_N_invalid_pre_<x>.json`` and
  ``inputs_N_invalid.json`` (targets the hook should refuse; ``invalid`` serves every invocation
  point without its own file). Each maps target names to target models, as `cfn test` reads them.
- ``sample_events/`` and ``sam-tests/``: whole requests, in either wire shape.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfn_debug.aws.placeholders import read_json_filled
from cfn_debug.errors import CfnDebugError, EventError
from cfn_debug.events import EventSpec, NormalizedEvent, Shape
from cfn_debug.hooks.schema import HANDLER_POINTS, POINT_SHORT, HookSchema
from cfn_debug.records import Action

#: The CLI's hook input files, as rpdk.core.test.get_type reads them.
_INPUT_NAME = re.compile(
    r"^inputs_(\d+)_(invalid_pre_create|invalid_pre_update|invalid_pre_delete|invalid|"
    r"pre_create|pre_update|pre_delete)\.json$"
)
_SHORT_POINTS = {short: point for point, short in POINT_SHORT.items()}
#: What an expected-to-fail event expects: FAILED (the hook refuses the target).
EXPECT_REFUSED = "refused"
#: The unsupported-target test: FAILED UnsupportedTarget.
EXPECT_UNSUPPORTED = "UnsupportedTarget"
#: What an event the author declared compliant expects: SUCCESS.
EXPECT_ALLOWED = "allowed"
DEFAULT_LOGICAL_ID = "MyTarget"


def point_action(point: str) -> Action:
    if point in HANDLER_POINTS.values():
        return Action(point)
    raise EventError(
        f"expected an actionInvocationPoint of {', '.join(HANDLER_POINTS.values())}, got {point!r}",
        field="actionInvocationPoint",
    )


@dataclass
class HookEventSpec(EventSpec):
    """One hook invocation: an invocation point and a target (see the module docstring)."""

    target_name: str = ""
    target_type: str = "RESOURCE"
    target_logical_id: str = DEFAULT_LOGICAL_ID
    target_model: dict[str, Any] = field(default_factory=dict)
    #: the hook's settings (request hookModel); None: the workspace's type configuration
    hook_model: dict[str, Any] | None = None
    #: EXPECT_ALLOWED / EXPECT_REFUSED / EXPECT_UNSUPPORTED, or None (no expectation)
    expect: str | None = None
    stack_id: str | None = None
    change_set_id: str | None = None

    @property
    def point(self) -> str:
        return self.action.value


def make_event(
    point: str,
    target_name: str,
    target_model: dict[str, Any],
    *,
    name: str,
    path: Path | None = None,
    target_type: str = "RESOURCE",
    logical_id: str | None = None,
    hook_model: dict[str, Any] | None = None,
    expect: str | None = None,
    callback_context: dict[str, Any] | None = None,
    token: str | None = None,
    shape: Shape = Shape.HANDLER_REQUEST,
    data: dict[str, Any] | None = None,
    credentials: dict[str, str] | None = None,
    stack_id: str | None = None,
    change_set_id: str | None = None,
) -> HookEventSpec:
    action = point_action(point)
    properties = target_model.get("resourceProperties")
    previous = target_model.get("previousResourceProperties")
    normalized = NormalizedEvent(
        action=action,
        desired=properties if isinstance(properties, dict) else None,
        previous=previous if isinstance(previous, dict) else None,
        callback_context=callback_context,
        client_request_token=token,
        type_configuration=hook_model,
        logical_id=logical_id or DEFAULT_LOGICAL_ID,
        resource_type=target_name,
        credentials=credentials,
        stack_id=stack_id,
    )
    body = (
        data
        if data is not None
        else {
            "actionInvocationPoint": point,
            "requestData": {
                "targetName": target_name,
                "targetType": target_type,
                "targetLogicalId": logical_id or DEFAULT_LOGICAL_ID,
                "targetModel": target_model,
            },
        }
    )
    return HookEventSpec(
        name,
        path,
        action,
        shape,
        body,
        normalized,
        target_name=target_name,
        target_type=target_type,
        target_logical_id=logical_id or DEFAULT_LOGICAL_ID,
        target_model=target_model,
        hook_model=hook_model,
        expect=expect,
        stack_id=stack_id,
        change_set_id=change_set_id,
    )


# --- whole requests (sample_events/, sam-tests/, EVENT files) ---------------------------------


def _object(value: Any, path: Path | None, where: str, *, required: bool = True) -> dict[str, Any]:
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise EventError("expected a JSON object", path=path, field=where)
    return value


def _text(value: Any, path: Path | None, where: str, default: str | None = None) -> str:
    if value is None and default is not None:
        return default
    if not isinstance(value, str) or not value:
        raise EventError("expected a non-empty string", path=path, field=where)
    return value


def is_hook_event_data(data: Any) -> bool:
    """Whether ``data`` is a hook request of either wire shape (it names an invocation point)."""
    return isinstance(data, dict) and "actionInvocationPoint" in data


def parse_hook_event(data: Any, *, name: str, path: Path | None = None) -> HookEventSpec:
    """A hook request file: CloudFormation's (``requestData``, ``hookModel``,
    ``requestContext``), or the library's test event (``credentials``, ``request``,
    ``typeConfiguration``). A missing or mistyped field is a one-line EventError naming it."""
    if not isinstance(data, dict):
        raise EventError("expected a hook request (a JSON object)", path=path)
    point = _text(data.get("actionInvocationPoint"), path, "actionInvocationPoint")
    try:
        point_action(point)
    except EventError as error:
        raise EventError(error.detail, path=path, field="actionInvocationPoint") from None
    if "requestData" in data:
        request = _object(data["requestData"], path, "requestData")
        context = _object(data.get("requestContext"), path, "requestContext", required=False)
        callback = context.get("callbackContext")
        hook_model = data.get("hookModel")
        token = data.get("clientRequestToken")
        shape = Shape.HANDLER_REQUEST
        credentials = None
    elif "request" in data:
        outer = _object(data["request"], path, "request")
        request = {
            **outer,
            **_object(outer.get("hookContext"), path, "request/hookContext", required=False),
        }
        callback = data.get("callbackContext")
        hook_model = data.get("typeConfiguration")
        token = outer.get("clientRequestToken")
        shape = Shape.SAM
        creds = data.get("credentials")
        credentials = creds if isinstance(creds, dict) else None
    else:
        raise EventError(
            "expected a hook request with requestData (as CloudFormation sends it) or request "
            "(the library's hook test event)",
            path=path,
        )
    target_name = _text(request.get("targetName"), path, "requestData/targetName")
    model = request.get("targetModel")
    target_model = _object(model, path, "requestData/targetModel", required=False)
    if hook_model is not None and not isinstance(hook_model, dict):
        raise EventError("expected the hook's settings as an object", path=path, field="hookModel")
    if callback is not None and not isinstance(callback, dict):
        raise EventError("expected an object or null", path=path, field="callbackContext")
    return make_event(
        point,
        target_name,
        target_model,
        name=name,
        path=path,
        target_type=_text(request.get("targetType"), path, "requestData/targetType", "RESOURCE"),
        logical_id=request.get("targetLogicalId")
        if isinstance(request.get("targetLogicalId"), str)
        else None,
        hook_model=hook_model,
        callback_context=callback,
        token=token if isinstance(token, str) else None,
        shape=shape,
        data=data,
        credentials=credentials,
        stack_id=data.get("stackId") if isinstance(data.get("stackId"), str) else None,
    )


def load_hook_event(path: Path, *, name: str | None = None, exports: Any = None) -> HookEventSpec:
    data = read_json_filled(path, exports)[0]
    return parse_hook_event(data, name=name or path.stem, path=path)


# --- inputs/ in the CLI's hook naming ----------------------------------------------------------


def input_kind(file_name: str) -> tuple[int, str] | None:
    """(N, kind) of a hook input file: kind is pre_create/pre_update/pre_delete, invalid, or
    invalid_pre_<x>; None for any other file."""
    match = _INPUT_NAME.match(file_name)
    return (int(match.group(1)), match.group(2)) if match else None


def _target_models(data: Any, path: Path) -> dict[str, dict[str, Any]]:
    if not isinstance(data, dict):
        raise EventError(
            "expected an object of target type names (e.g. AWS::S3::Bucket) to target models",
            path=path,
        )
    out: dict[str, dict[str, Any]] = {}
    for target, model in data.items():
        if not isinstance(model, dict):
            raise EventError(
                'expected a target model such as {"resourceProperties": {...}}',
                path=path,
                field=target,
            )
        if "resourceProperties" in model and not isinstance(model["resourceProperties"], dict):
            raise EventError("expected an object", path=path, field=f"{target}/resourceProperties")
        out[target] = model
    return out


def load_hook_inputs(
    directory: Path,
    schema: HookSchema | None,
    errors: list[CfnDebugError],
    exports: Any = None,
) -> list[HookEventSpec]:
    """The events of a hook project's inputs/: per N, per invocation point the hook handles,
    one event per target of the file (in file order)."""
    groups: dict[int, dict[str, Path]] = {}
    for path in sorted(p for p in directory.glob("*.json") if p.is_file()):
        found = input_kind(path.name)
        if found is not None:
            groups.setdefault(found[0], {})[found[1]] = path
    events: list[HookEventSpec] = []
    points = schema.points if schema is not None else list(HANDLER_POINTS.values())
    for number in sorted(groups):
        files = groups[number]
        loaded: dict[str, dict[str, dict[str, Any]]] = {}
        for kind, path in files.items():
            try:
                loaded[kind] = _target_models(read_json_filled(path, exports)[0], path)
            except CfnDebugError as error:
                errors.append(error)
        for point in points:
            short = POINT_SHORT[point]
            for kind, expect in ((short, EXPECT_ALLOWED), (f"invalid_{short}", EXPECT_REFUSED)):
                source = kind
                if kind not in loaded and kind.startswith("invalid_") and "invalid" in loaded:
                    source = "invalid"  # the CLI's fallback: inputs_N_invalid serves every point
                if source not in loaded:
                    continue
                path = files[source]
                for target, model in loaded[source].items():
                    if schema is not None and not schema.handles(point, target):
                        continue
                    label = f"inputs/{path.stem}" + (f" {short}" if source == "invalid" else "")
                    events.append(
                        make_event(
                            point,
                            target,
                            model,
                            name=f"{label} {target}",
                            path=path,
                            expect=expect,
                        )
                    )
    return events


def new_token() -> str:
    return str(uuid.uuid4())
