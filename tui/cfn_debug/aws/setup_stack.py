"""The contract-test setup stack's template (the project's test/setup.yml, as `cfn test` finds
it) and what its deploy reports: progress, result, error. The deploy itself, which needs boto3,
is aws.deploy."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cfn_debug.errors import CfnDebugError

SETUP_TEMPLATES = ("test/setup.yml", "test/setup.yaml", "test/setup.json")
#: types that live only inside CloudFormation (no service holds them, no handler can call them):
#: setup templates use a WaitConditionHandle as a do-nothing resource, since a template needs
#: one; moto skips them, which is harmless unless an output refers to one
CLOUDFORMATION_ONLY = frozenset(
    {
        "AWS::CloudFormation::WaitConditionHandle",
        "AWS::CloudFormation::WaitCondition",
        "AWS::CDK::Metadata",
    }
)
STACK_NAME = "cfn-debug-setup"


class SetupError(CfnDebugError):
    """The setup stack could not be deployed."""


@dataclass(frozen=True)
class SetupProgress:
    """One step of the deploy, for a progress display: ``done`` of ``total`` resources."""

    message: str
    done: int = 0
    total: int = 0


@dataclass
class SetupResult:
    stack_name: str
    template: Path
    resources: dict[str, str] = field(default_factory=dict)  # logical id -> type
    exports: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    #: "LogicalId (Type)" of each resource neither the local AWS nor cfn-debug created (warned
    #: about): what the handlers see is not what the template describes
    missing: list[str] = field(default_factory=list)


Progress = Callable[[SetupProgress], None]


def find_setup_template(root: Path, given: Path | None = None) -> Path | None:
    """--setup TEMPLATE, else the project's test/setup.yml (or .yaml, .json), else None."""
    if given is not None:
        path = given.expanduser()
        if not path.is_file():
            raise SetupError("no such template file", path=path, field="--setup")
        return path
    for name in SETUP_TEMPLATES:
        if (root / name).is_file():
            return root / name
    return None


class _Loader(yaml.SafeLoader):
    """YAML with CloudFormation's short-form tags (!Ref, !GetAtt, ...) read as plain values."""


def _tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]


_Loader.add_multi_constructor("!", _tag)


def template_resources(path: Path) -> tuple[str, dict[str, str], str]:
    """The template's text, its resources (logical id -> type) and its Outputs section as text
    (to look for references); errors name the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise SetupError(f"expected UTF-8 text: {error.reason}", path=path) from None
    except OSError as error:
        raise SetupError(f"cannot read: {error.strerror}", path=path) from None
    try:
        doc = yaml.load(text, Loader=_Loader)  # a SafeLoader subclass
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or "not YAML or JSON"
        raise SetupError(f"invalid template{where}: {problem}", path=path) from None
    resources = doc.get("Resources") if isinstance(doc, dict) else None
    if not isinstance(resources, dict) or not resources:
        raise SetupError("expected a template with a Resources section", path=path)
    out: dict[str, str] = {}
    for logical_id, body in resources.items():
        kind = body.get("Type") if isinstance(body, dict) else None
        if not isinstance(kind, str):
            raise SetupError(
                "expected a resource with a Type", path=path, field=f"/Resources/{logical_id}"
            )
        if not body.get("Condition"):  # a resource under a condition may rightly be absent
            out[str(logical_id)] = kind
    outputs = doc.get("Outputs") if isinstance(doc, dict) else None
    return text, out, repr(outputs) if outputs else ""
