"""Setup-stack resources moto's CloudFormation skips, created through the service's own API.

moto's CloudFormation creates only the types it has a model for; any other resource is skipped
with the stack still CREATE_COMPLETE. Where moto's server does have the service (Application
Auto Scaling's scalable targets, for one), ``create_skipped`` makes the resource with the
service's API call, its properties resolved against the stack's physical ids (``Ref``,
``Fn::Sub``, ``Fn::Join``, the pseudo parameters); otherwise it answers why not, and the caller
warns and goes on: the handler may well not need that resource. Imported with aws.deploy, once a
setup stack is deployed (botocore loads with it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from botocore.exceptions import BotoCoreError, ClientError

ClientFactory = Callable[[str], Any]


class Unresolved(Exception):
    """A property refers to something this module cannot resolve (Fn::GetAtt, a condition)."""


class _TaggedLoader(yaml.SafeLoader):
    """YAML with CloudFormation's short-form tags kept as their long form ({"Ref": ...})."""


def _tagged(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    if suffix == "Ref":
        return {"Ref": value}
    if suffix == "GetAtt" and isinstance(value, str):
        return {"Fn::GetAtt": value.split(".", 1)}
    return {f"Fn::{suffix}": value}


_TaggedLoader.add_multi_constructor("!", _tagged)


def template_bodies(path: Path) -> dict[str, dict[str, Any]]:
    """Each resource's body (Type, Properties) of the template at ``path``, tags kept."""
    try:
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=_TaggedLoader)  # SafeLoader
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    resources = doc.get("Resources") if isinstance(doc, dict) else None
    if not isinstance(resources, dict):
        return {}
    return {str(k): v for k, v in resources.items() if isinstance(v, dict)}


_SUB = re.compile(r"\$\{([^}!][^}]*)\}")


def resolve(value: Any, physical: Mapping[str, str], pseudo: Mapping[str, str]) -> Any:
    """``value`` with Ref, Fn::Sub and Fn::Join worked out; Unresolved for anything else."""
    if isinstance(value, list):
        return [resolve(v, physical, pseudo) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((key, arg),) = value.items()
        if key == "Ref":
            name = str(arg)
            if name in physical:
                return physical[name]
            if name in pseudo:
                return pseudo[name]
            raise Unresolved(f"Ref {name}")
        if key == "Fn::Sub":
            template, extra = (arg[0], arg[1]) if isinstance(arg, list) else (arg, {})
            names = {
                **pseudo,
                **physical,
                **{k: str(resolve(v, physical, pseudo)) for k, v in (extra or {}).items()},
            }

            def one(match: re.Match[str]) -> str:
                if match.group(1) not in names:
                    raise Unresolved(f"${{{match.group(1)}}}")
                return names[match.group(1)]

            return _SUB.sub(one, str(template))
        if key == "Fn::Join" and isinstance(arg, list) and len(arg) == 2:
            parts = resolve(arg[1], physical, pseudo)
            return str(arg[0]).join(str(p) for p in parts)
        if key.startswith("Fn::") or key == "Condition":
            raise Unresolved(key)
    return {k: resolve(v, physical, pseudo) for k, v in value.items()}


def _scalable_target(factory: ClientFactory, props: dict[str, Any]) -> str:
    client = factory("application-autoscaling")
    call = {
        "ServiceNamespace": props["ServiceNamespace"],
        "ResourceId": props["ResourceId"],
        "ScalableDimension": props["ScalableDimension"],
        "MinCapacity": int(props["MinCapacity"]),
        "MaxCapacity": int(props["MaxCapacity"]),
    }
    if props.get("RoleARN"):
        call["RoleARN"] = props["RoleARN"]
    client.register_scalable_target(**call)
    return f"{call['ResourceId']}|{call['ScalableDimension']}|{call['ServiceNamespace']}"


#: type -> the call that creates it (answers its physical id)
CREATORS: dict[str, Callable[[ClientFactory, dict[str, Any]], str]] = {
    "AWS::ApplicationAutoScaling::ScalableTarget": _scalable_target,
}


@dataclass(frozen=True)
class SkippedOutcome:
    """What became of one skipped resource: ``physical`` when created, else ``reason``."""

    logical_id: str
    kind: str
    physical: str | None = None
    reason: str = ""


def create_skipped(
    factory: ClientFactory,
    logical_id: str,
    body: Mapping[str, Any],
    physical: Mapping[str, str],
    pseudo: Mapping[str, str],
) -> SkippedOutcome:
    """Create one resource moto's CloudFormation skipped, through its service's API."""
    kind = str(body.get("Type", ""))
    creator = CREATORS.get(kind)
    if creator is None:
        return SkippedOutcome(logical_id, kind, reason="cfn-debug has no API call for this type")
    try:
        props = resolve(body.get("Properties") or {}, physical, pseudo)
        return SkippedOutcome(logical_id, kind, physical=creator(factory, props))
    except Unresolved as error:
        return SkippedOutcome(logical_id, kind, reason=f"cannot resolve {error} locally")
    except KeyError as error:
        return SkippedOutcome(logical_id, kind, reason=f"property {error} missing")
    except (ClientError, BotoCoreError, ValueError, TypeError) as error:
        return SkippedOutcome(logical_id, kind, reason=f"the local AWS refused it: {error}")
