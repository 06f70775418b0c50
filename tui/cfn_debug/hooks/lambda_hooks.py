"""Lambda Hooks: a plain Lambda function CloudFormation calls before it provisions a target.

A project is a Lambda Hook when its template declares an ``AWS::CloudFormation::LambdaHook``:
its ``Alias`` is the hook's type name, its ``LambdaFunction`` names the function (``!GetAtt
Fn.Arn`` or ``!Ref Fn``), ``TargetOperations`` say which targets it sees (RESOURCE, STACK,
CHANGE_SET) and ``TargetFilters`` which actions and resource types. From that a hook schema is
made (:class:`cfn_debug.hooks.schema.HookSchema`), so events, scenarios and checks are a registry
hook's. What differs: the request carries no credentials, the function is waited for 30 seconds,
and IN_PROGRESS may be answered 3 times (the Lambda Hooks page of the Hooks User Guide).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from cfn_debug.endpoint.template import _load_yaml
from cfn_debug.errors import ProjectError
from cfn_debug.filesafe import read_text
from cfn_debug.hooks.schema import CHANGE_SET_TARGET, STACK_TARGET, HookSchema

LAMBDA_HOOK_TYPE = "AWS::CloudFormation::LambdaHook"
_ACTION_POINTS = {
    "CREATE": "CREATE_PRE_PROVISION",
    "UPDATE": "UPDATE_PRE_PROVISION",
    "DELETE": "DELETE_PRE_PROVISION",
}


@dataclass
class LambdaHook:
    schema: HookSchema
    function: str  # the template's logical id of the hook's function
    template: Path


def _function_name(value: Any, path: Path, where: str) -> str:
    if isinstance(value, str):  # !GetAtt Fn.Arn, !Ref Fn, or a name
        return value.split(".", 1)[0]
    if isinstance(value, dict):
        if "Ref" in value and isinstance(value["Ref"], str):
            return value["Ref"]
        att = value.get("Fn::GetAtt")
        if isinstance(att, list) and att and isinstance(att[0], str):
            return att[0]
        if isinstance(att, str):
            return att.split(".", 1)[0]
    raise ProjectError(
        "expected the hook's function as !GetAtt Function.Arn or !Ref Function",
        path=path,
        field=f"{where}/LambdaFunction",
    )


def find_lambda_hook(root: Path) -> LambdaHook | None:
    """The Lambda Hook the project's template declares, or None."""
    for name in ("template.yml", "template.yaml"):
        path = root / name
        if not path.is_file():
            continue
        try:
            text = read_text(path)
        except (OSError, UnicodeDecodeError):
            return None
        if LAMBDA_HOOK_TYPE not in text:
            return None

        try:
            data = _load_yaml(text, path)
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark is not None else ""
            raise ProjectError(
                f"not YAML{where}: {getattr(error, 'problem', error)}", path=path
            ) from None
        resources = data.get("Resources") if isinstance(data, dict) else None
        for logical_id, resource in (resources or {}).items():
            if not isinstance(resource, dict) or resource.get("Type") != LAMBDA_HOOK_TYPE:
                continue
            return _lambda_hook(logical_id, resource.get("Properties") or {}, path)
    return None


def _lambda_hook(logical_id: str, props: dict[str, Any], path: Path) -> LambdaHook:
    where = f"Resources/{logical_id}/Properties"
    alias = props.get("Alias")
    if not isinstance(alias, str) or alias.count("::") != 2:
        raise ProjectError(
            "expected the hook's alias, such as Private::Lambda::MyHook",
            path=path,
            field=f"{where}/Alias",
        )
    function = _function_name(props.get("LambdaFunction"), path, where)
    operations = props.get("TargetOperations") or ["RESOURCE"]
    filters = props.get("TargetFilters") or {}
    actions = filters.get("Actions") if isinstance(filters, dict) else None
    names = filters.get("TargetNames") if isinstance(filters, dict) else None
    targets_list = filters.get("Targets") if isinstance(filters, dict) else None
    points = [p for a, p in _ACTION_POINTS.items() if not actions or a in actions]
    targets: dict[str, list[str]] = {p: [] for p in points}
    if "RESOURCE" in operations or "CLOUD_CONTROL" in operations:
        for point in points:
            targets[point].extend(names if isinstance(names, list) and names else ["AWS::*"])
    if isinstance(targets_list, list):  # [{"TargetName", "Action", "InvocationPoint"}]
        for item in targets_list:
            if isinstance(item, dict) and item.get("Action") in _ACTION_POINTS:
                point = _ACTION_POINTS[item["Action"]]
                targets.setdefault(point, []).append(str(item.get("TargetName", "AWS::*")))
    if "STACK" in operations:
        for point in points:
            targets[point].append(STACK_TARGET)
    if "CHANGE_SET" in operations and "CREATE_PRE_PROVISION" in targets:
        targets["CREATE_PRE_PROVISION"].append(CHANGE_SET_TARGET)
    targets = {p: list(dict.fromkeys(t)) for p, t in targets.items() if t}
    raw = {
        "typeName": alias,
        "handlers": {
            {
                "CREATE_PRE_PROVISION": "preCreate",
                "UPDATE_PRE_PROVISION": "preUpdate",
                "DELETE_PRE_PROVISION": "preDelete",
            }[p]: {"targetNames": t, "permissions": []}
            for p, t in targets.items()
        },
    }
    return LambdaHook(HookSchema(path, raw, alias, targets), function, path)
