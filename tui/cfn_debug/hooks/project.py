"""A hook project as cfn-debug opens it: its schema, its settings and its events.

A directory is a hook project when its ``.rpdk-config`` says ``"artifact_type": "HOOK"``, or,
without one, when its schema's handlers are hook handlers. Its events, in the order `run` sends
them: ``sample_events/`` and ``sam-tests/`` (whole hook requests), ``inputs/`` in the CLI's hook
naming, then, when ``inputs/`` has none for a target, generated target models
(:mod:`cfn_debug.hooks.targets`) with ``overrides.json`` applied as `cfn test` applies it.

The hook's settings (the requests' ``hookModel``): ``--type-configuration`` (a file in the CLI's
format, or the settings themselves), else the project's ``.type_config.json``, else the CLI's own
file ``~/.cfn-cli/typeConfiguration.json`` when it exists, else the defaults the hook's
``typeConfiguration`` declares.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfn_debug.aws.placeholders import read_json_filled
from cfn_debug.errors import CfnDebugError, EventError
from cfn_debug.filesafe import read_json
from cfn_debug.hooks.events import (
    HookEventSpec,
    is_hook_event_data,
    load_hook_event,
    load_hook_inputs,
    make_event,
)
from cfn_debug.hooks.schema import (
    POINT_SHORT,
    HookSchema,
    hook_model_from_configuration,
    is_hook_settings,
    load_hook_schema,
    looks_like_hook_schema,
)
from cfn_debug.hooks.targets import generated_models, known_types

EVENT_DIRS = ("sample_events", "sam-tests")
#: A project's own type configuration, in the CLI's format (`cfn test --typeconfig` names it;
#: AWS's sample hooks keep theirs in this file).
PROJECT_TYPE_CONFIGURATION = Path(".type_config.json")
#: The CLI's default type configuration file (`cfn test` reads it when --typeconfig is absent).
CLI_TYPE_CONFIGURATION = Path("~/.cfn-cli/typeConfiguration.json")
#: At most this many types are generated for one wildcard target name (AWS::S3::* names 20).
WILDCARD_SAMPLE = 3


def is_hook_project(settings: dict[str, Any], schema_path: Path | None) -> bool:
    if is_hook_settings(settings):
        return True
    if settings.get("artifact_type") or schema_path is None:
        return False
    try:
        data = json.loads(schema_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return looks_like_hook_schema(data)


@dataclass
class HookSettings:
    """The hook's settings (hookModel) and where they came from, for the first line of a run."""

    model: dict[str, Any] | None
    source: str
    notices: list[str] = field(default_factory=list)


def hook_settings(
    schema: HookSchema, given: str | None = None, root: Path | None = None
) -> HookSettings:
    """The hookModel every request carries (see the module docstring)."""
    roots = (root,) if root is not None else ()
    if given:
        path = Path(given).expanduser()
        if path.is_file():
            return HookSettings(hook_model_from_configuration(read_json(path), path), str(path))
        try:
            data = json.loads(given)
        except ValueError:
            raise CfnDebugError(
                "expected a file in the CLI's type configuration format, or the hook's settings "
                "as a JSON object",
                field="--type-configuration",
            ) from None
        return HookSettings(hook_model_from_configuration(data), "--type-configuration")
    for candidate in (*(r / PROJECT_TYPE_CONFIGURATION for r in roots), CLI_TYPE_CONFIGURATION):
        path = candidate.expanduser()
        if path.is_file():
            return HookSettings(hook_model_from_configuration(read_json(path), path), str(path))
    definition = schema.configuration_schema or {}
    props = definition.get("properties") if isinstance(definition.get("properties"), dict) else {}
    model = {
        name: sub["default"]
        for name, sub in props.items()
        if isinstance(sub, dict) and "default" in sub
    }
    missing = [
        name
        for name in definition.get("required", [])
        if isinstance(name, str) and name not in model
    ]
    unset = [name for name in props if name not in model]
    notices = (
        [
            f"the hook's typeConfiguration {'requires' if missing else 'declares'} "
            f"{', '.join(missing or unset)} and no value was given: give the hook's settings "
            "with --type-configuration FILE (the CLI's format) or JSON"
        ]
        if missing or (unset and not model)
        else []
    )
    return HookSettings(model or None, "the defaults of the hook's typeConfiguration", notices)


def _override(model: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """``model`` with each JSON pointer of ``overrides`` set (rpdk's override_properties)."""
    out = copy.deepcopy(model)
    for pointer, value in overrides.items():
        parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.lstrip("/").split("/")]
        node: Any = out
        for part in parts[:-1]:
            if not isinstance(node, dict):
                break
            node = node.setdefault(part, {})
        if isinstance(node, dict) and parts and parts[-1]:
            node[parts[-1]] = value
    return out


def _overrides(root: Path, errors: list[CfnDebugError], exports: Any) -> dict[str, Any]:
    path = root / "overrides.json"
    if not path.is_file():
        return {}

    try:
        data = read_json_filled(path, exports)[0]
    except CfnDebugError as error:
        errors.append(error)
        return {}
    if not isinstance(data, dict):
        errors.append(EventError("expected an object of invocation points", path=path))
        return {}
    return data


def generated_events(
    schema: HookSchema,
    overrides: dict[str, Any],
    errors: list[CfnDebugError],
    skip: set[tuple[str, str]],
) -> list[HookEventSpec]:
    """Events for the targets ``inputs/`` does not cover (``skip``: (point, target) pairs)."""
    known = known_types()
    events: list[HookEventSpec] = []
    seen_errors: set[str] = set()
    for point in schema.points:
        targets: list[str] = []
        for name in schema.targets.get(point, []):
            if "*" in name or "?" in name:
                targets.extend(schema.concrete_targets(point, known)[:WILDCARD_SAMPLE])
            else:
                targets.append(name)
        for target in dict.fromkeys(targets):
            if (point, target) in skip or target in ("STACK", "CHANGE_SET"):
                continue
            try:
                models = generated_models(target)
            except CfnDebugError as error:
                if str(error) not in seen_errors:
                    seen_errors.add(str(error))
                    errors.append(error)
                continue
            key = "UPDATE_PRE_PROVISION" if point == "UPDATE_PRE_PROVISION" else point
            changes = (overrides.get(key) or overrides.get("CREATE_PRE_PROVISION") or {}).get(
                target, {}
            )
            for label, properties in models.items():
                if point == "UPDATE_PRE_PROVISION":
                    other = models["minimal" if label == "full" else "full"]
                    target_model = {
                        "resourceProperties": properties,
                        "previousResourceProperties": other,
                    }
                else:
                    target_model = {"resourceProperties": properties}
                for item, pointers in changes.items() if isinstance(changes, dict) else ():
                    if isinstance(pointers, dict) and isinstance(target_model.get(item), dict):
                        target_model[item] = _override(target_model[item], pointers)
                events.append(
                    make_event(
                        point,
                        target,
                        target_model,
                        name=f"generated/{POINT_SHORT[point]} {target} {label}",
                    )
                )
    return events


def find_hook_events(
    root: Path, schema: HookSchema | None, exports: Any = None, *, generate: bool = True
) -> tuple[list[HookEventSpec], list[CfnDebugError]]:
    """Every event of a hook project, and the files that would not load."""
    errors: list[CfnDebugError] = []
    events: list[HookEventSpec] = []
    for name in EVENT_DIRS:
        directory = root / name
        if not directory.is_dir():
            continue
        for path in sorted(p for p in directory.glob("*.json") if p.is_file()):
            try:
                events.append(load_hook_event(path, name=f"{name}/{path.stem}", exports=exports))
            except CfnDebugError as error:
                errors.append(error)
    inputs: list[HookEventSpec] = []
    if (root / "inputs").is_dir():
        inputs = load_hook_inputs(root / "inputs", schema, errors, exports)
    events.extend(inputs)
    if generate and schema is not None:
        covered = {(e.point, e.target_name) for e in inputs}
        events.extend(generated_events(schema, _overrides(root, errors, exports), errors, covered))
    return events, errors


def load_hook_event_file(path: Path, exports: Any = None) -> HookEventSpec:
    """An EVENT file given to `run` in a hook project: a whole hook request."""
    data = read_json_filled(path, exports)[0]
    if not is_hook_event_data(data):
        raise EventError(
            "expected a hook request with actionInvocationPoint (CREATE_PRE_PROVISION, "
            "UPDATE_PRE_PROVISION or DELETE_PRE_PROVISION) and requestData or request",
            path=path,
        )
    return load_hook_event(path, exports=exports)


__all__ = [
    "HookSettings",
    "find_hook_events",
    "hook_settings",
    "is_hook_project",
    "load_hook_event_file",
    "load_hook_schema",
]


def hook_schema_of(schema_path: Path | None, lambda_hook: Any = None) -> HookSchema | None:
    """The hook schema of a project: a Lambda Hook's (made from its template), else the schema
    file's; None when the file cannot be read as one (opening the workspace says why)."""
    if lambda_hook is not None:
        return lambda_hook.schema  # type: ignore[no-any-return]
    if schema_path is None:
        return None
    try:
        return load_hook_schema(schema_path)
    except CfnDebugError:
        return None


def reload_hook_event(
    event: HookEventSpec, schema: HookSchema | None, exports: Any = None
) -> HookEventSpec:
    """``event`` as its file now reads (watch mode, after a save): a whole request read again,
    an input's target found again in its file (by name); a generated event as it is."""
    path = event.path
    if path is None:
        return event
    if path.parent.name in EVENT_DIRS:
        return load_hook_event(path, name=event.name, exports=exports)
    errors: list[CfnDebugError] = []
    fresh = load_hook_inputs(path.parent, schema, errors, exports)
    for error in errors:
        if error.path == str(path):
            raise error
    for candidate in fresh:
        if candidate.name == event.name:
            return candidate
    raise EventError(f"the file no longer holds the target of {event.name!r}", path=path)
