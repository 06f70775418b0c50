"""The hook schema (what `cfn init` writes for a hook) and the hook's type configuration.

A hook schema has ``typeName``, ``typeConfiguration`` (the shape of the hook's settings) and
``handlers``: ``preCreate``, ``preUpdate`` and ``preDelete``, each with the ``targetNames`` it is
invoked for (wildcards such as ``AWS::S3::*`` allowed, as the CLI resolves them with fnmatch).

A type configuration file in the CLI's format holds the hook's settings under
``CloudFormationConfiguration.HookConfiguration.Properties``; only those are the request's
``hookModel`` (``TargetStacks`` and ``FailureMode`` are CloudFormation's, not the handler's).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfn_debug.errors import ProjectError, SchemaError
from cfn_debug.filesafe import read_json
from cfn_debug.hooks.targets import has_cfn_lint, known_types

#: handler name in the schema -> the request's actionInvocationPoint
HANDLER_POINTS: dict[str, str] = {
    "preCreate": "CREATE_PRE_PROVISION",
    "preUpdate": "UPDATE_PRE_PROVISION",
    "preDelete": "DELETE_PRE_PROVISION",
}
POINT_HANDLERS = {point: name for name, point in HANDLER_POINTS.items()}
#: the short names the CLI's input files use (inputs_N_pre_create.json)
POINT_SHORT = {
    "CREATE_PRE_PROVISION": "pre_create",
    "UPDATE_PRE_PROVISION": "pre_update",
    "DELETE_PRE_PROVISION": "pre_delete",
}
#: the stack-level and change-set targets (hooks invoked for a whole stack or change set)
STACK_TARGET = "STACK"
CHANGE_SET_TARGET = "CHANGE_SET"


def is_hook_settings(settings: dict[str, Any]) -> bool:
    """Whether a .rpdk-config names a hook project (``"artifact_type": "HOOK"``)."""
    value = settings.get("artifact_type") or settings.get("artifactType")
    return isinstance(value, str) and value.upper() == "HOOK"


def looks_like_hook_schema(data: Any) -> bool:
    """A schema whose handlers are hook handlers (preCreate/preUpdate/preDelete) only."""
    if not isinstance(data, dict):
        return False
    handlers = data.get("handlers")
    return (
        isinstance(handlers, dict)
        and bool(handlers)
        and all(name in HANDLER_POINTS for name in handlers)
        and "primaryIdentifier" not in data
    )


@dataclass
class HookSchema:
    """A hook schema as cfn-debug reads it."""

    path: Path | None
    raw: dict[str, Any]
    type_name: str
    #: actionInvocationPoint -> the targetNames its handler declares, as written
    targets: dict[str, list[str]] = field(default_factory=dict)

    @property
    def points(self) -> list[str]:
        """The invocation points the hook has handlers for, in the CLI's order."""
        return [p for p in HANDLER_POINTS.values() if p in self.targets]

    @property
    def configuration_schema(self) -> dict[str, Any] | None:
        value = self.raw.get("typeConfiguration")
        return value if isinstance(value, dict) else None

    def has_wildcards(self, point: str) -> bool:
        return any("*" in t or "?" in t for t in self.targets.get(point, []))

    def handles(self, point: str, target_name: str) -> bool:
        """Whether the handler of ``point`` is invoked for ``target_name`` (fnmatch, as the CLI)."""
        return any(fnmatch.fnmatchcase(target_name, t) for t in self.targets.get(point, []))

    def concrete_targets(self, point: str, known: list[str] | None = None) -> list[str]:
        """The targets of ``point``: names as written, wildcards resolved against ``known`` (the
        AWS types cfn-lint's schemas name), sorted as the CLI sorts them."""
        found: set[str] = set()
        for name in self.targets.get(point, []):
            if "*" in name or "?" in name:
                found.update(fnmatch.filter(known or [], name))
            else:
                found.add(name)
        return sorted(found)

    def all_targets(self) -> list[str]:
        return sorted({t for names in self.targets.values() for t in names})


def hook_schema_from(data: Any, path: Path | None) -> HookSchema:
    """Check ``data`` as a hook schema; a problem is a one-line SchemaError naming the field."""
    if not isinstance(data, dict):
        raise SchemaError("expected a hook schema (a JSON object)", path=path)
    type_name = data.get("typeName")
    if not isinstance(type_name, str) or type_name.count("::") != 2:
        raise SchemaError(
            f"expected a type name such as Org::Service::Hook, got {type_name!r}",
            path=path,
            field="typeName",
        )
    handlers = data.get("handlers")
    if not isinstance(handlers, dict) or not handlers:
        raise SchemaError(
            "expected an object with preCreate, preUpdate or preDelete",
            path=path,
            field="handlers",
        )
    targets: dict[str, list[str]] = {}
    for name, handler in handlers.items():
        if name not in HANDLER_POINTS:
            raise SchemaError(
                "expected only preCreate, preUpdate and preDelete handlers in a hook schema",
                path=path,
                field=f"handlers/{name}",
            )
        names = handler.get("targetNames") if isinstance(handler, dict) else None
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            raise SchemaError(
                "expected a list of target type names (e.g. AWS::S3::Bucket)",
                path=path,
                field=f"handlers/{name}/targetNames",
            )
        targets[HANDLER_POINTS[name]] = list(names)
    configuration = data.get("typeConfiguration")
    if configuration is not None and not isinstance(configuration, dict):
        raise SchemaError("expected a JSON schema object", path=path, field="typeConfiguration")
    return HookSchema(path, data, type_name, targets)


def load_hook_schema(path: Path) -> HookSchema:

    return hook_schema_from(read_json(path, SchemaError), path)


def hook_model_from_configuration(data: Any, path: Path | None = None) -> dict[str, Any]:
    """The ``hookModel`` a type configuration gives: ``Properties`` of the CLI's format
    (``{"CloudFormationConfiguration": {"HookConfiguration": {"Properties": {...}}}}``), or a
    plain object of settings as it is."""
    if not isinstance(data, dict):
        raise ProjectError(
            "expected a JSON object (the CLI's type configuration, or the hook's settings)",
            path=path,
            field="--type-configuration",
        )
    outer = data.get("CloudFormationConfiguration")
    if outer is None:
        return data
    hook = outer.get("HookConfiguration") if isinstance(outer, dict) else None
    if not isinstance(hook, dict):
        raise ProjectError(
            "expected an object with the hook's TargetStacks, FailureMode and Properties",
            path=path,
            field="CloudFormationConfiguration/HookConfiguration",
        )
    properties = hook.get("Properties", {})
    if not isinstance(properties, dict):
        raise ProjectError(
            "expected an object of the hook's settings",
            path=path,
            field="CloudFormationConfiguration/HookConfiguration/Properties",
        )
    return properties


def hook_schema_problems(
    data: Any, path: Path | None
) -> tuple[str | None, list[tuple[str, str, str]]]:
    """``cfn-debug schema`` on a hook schema: its type name and (pointer, level, message) per
    problem. ``error``: cfn-debug cannot use it; ``warning``: a target name no AWS type matches
    (a typo sends the hook nothing), a handler without ``permissions`` (the hooks meta-schema
    requires it)."""
    try:
        schema = hook_schema_from(data, path)
    except SchemaError as error:
        pointer = error.field or ""
        return None, [("/" + pointer if pointer else "", "error", error.detail)]

    known = set(known_types()) if has_cfn_lint() else None
    problems: list[tuple[str, str, str]] = []
    for name, handler in data["handlers"].items():
        if "permissions" not in handler:
            problems.append(
                (
                    f"/handlers/{name}",
                    "warning",
                    "no permissions: the hooks meta-schema requires them",
                )
            )
        for index, target in enumerate(handler["targetNames"]):
            if target in (STACK_TARGET, CHANGE_SET_TARGET) or known is None:
                continue
            matched = (
                fnmatch.filter(sorted(known), target) if "*" in target or "?" in target else
                [target] if target in known else []
            )  # fmt: skip
            if not matched and target.startswith("AWS::"):
                problems.append(
                    (
                        f"/handlers/{name}/targetNames/{index}",
                        "warning",
                        f"{target} names no AWS resource type cfn-lint knows (a typo, or a "
                        "type since retired): the hook is invoked for no such target",
                    )
                )
    return schema.type_name, problems
