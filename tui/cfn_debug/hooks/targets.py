"""Target models for a hook's targets, made from the target type's resource schema.

Every AWS type's schema comes from cfn-lint's copy (``cfnlint/data/schemas``: the us-east-1
provider index names the file of each type). cfn-lint is optional: without it, a target type
cfn-debug must generate a model for is a one-line error saying to install it or to give the
project's ``inputs/``. A project's own resource types are found too when their schema is passed.

Two models per target, both valid against the schema and neither with readOnly properties:

- ``full``: every writable property, nested objects with theirs (what a careful template sets);
- ``minimal``: the required properties only (what a terse template sets).

A hook that checks that a property is set typically allows the first and refuses the second;
neither carries an expectation, so whatever the hook answers is its verdict, never a finding.
Values are deterministic: enum and const first, then the bounds, then a string that fits the
pattern (hypothesis-jsonschema, seeded), so two runs send the same models.
"""

from __future__ import annotations

import importlib.util
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from cfn_debug.errors import CfnDebugError
from cfn_debug.schema import schema_from_dict
from cfn_debug.schema.ecma_regex import ecma_search

_MAX_DEPTH = 12
CFN_LINT_HINT = (
    "install cfn-lint (pip install cfn-lint: it ships every AWS resource type's schema) to "
    "generate target models, or give the targets in inputs/inputs_1_pre_create.json"
)


def _cfn_lint_dir() -> Path | None:
    spec = importlib.util.find_spec("cfnlint")  # where it is, without importing it (~0.8 s)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "schemas"


@lru_cache(maxsize=1)
def _index() -> dict[str, str]:
    root = _cfn_lint_dir()
    if root is None:
        return {}
    path = root / "providers" / "us-east-1.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def known_types() -> list[str]:
    """Every AWS resource type cfn-lint has a schema for (empty without cfn-lint)."""
    return sorted(_index())


def has_cfn_lint() -> bool:
    return _cfn_lint_dir() is not None


@lru_cache(maxsize=64)
def _target_schema_text(type_name: str) -> str:
    root = _cfn_lint_dir()
    if root is None:
        raise CfnDebugError(f"no schema for the target {type_name}: {CFN_LINT_HINT}")
    key = _index().get(type_name)
    if key is None:
        raise CfnDebugError(
            f"no schema for the target {type_name} among cfn-lint's AWS resource types: give "
            "its target models in inputs/ (inputs_1_pre_create.json)",
        )
    return (root / "resources" / f"{key}.json").read_text(encoding="utf-8")


def target_schema(type_name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_target_schema_text(type_name))
    return data


class _Maker:
    def __init__(self, schema: dict[str, Any], full: bool) -> None:
        self.schema = schema
        self.full = full
        self.read_only = {
            p.removeprefix("/properties/").split("/")[0]
            for p in schema.get("readOnlyProperties", [])
            if isinstance(p, str) and p.count("/") == 2
        }

    def resolve(self, node: Any) -> Any:
        seen = 0
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and seen < 10:
            ref = node["$ref"]
            if not ref.startswith("#/"):
                return {}
            target: Any = self.schema
            for part in ref[2:].split("/"):
                target = target.get(part, {}) if isinstance(target, dict) else {}
            node = {**{k: v for k, v in node.items() if k != "$ref"}, **target}
            seen += 1
        return node

    def value(self, node: Any, depth: int) -> Any:
        node = self.resolve(node)
        if not isinstance(node, dict) or depth > _MAX_DEPTH:
            return "cfn-debug"
        if "const" in node:
            return node["const"]
        enum = node.get("enum")
        if isinstance(enum, list) and enum:
            return enum[0]
        for key in ("oneOf", "anyOf"):
            options = node.get(key)
            if isinstance(options, list) and options:
                merged = {k: v for k, v in node.items() if k != key}
                return self.value({**merged, **self.resolve(options[0])}, depth)
        kind = node.get("type")
        if isinstance(kind, list):
            kind = kind[0] if kind else "string"
        if kind is None:
            kind = "object" if "properties" in node else "string"
        if kind == "object":
            return self.obj(node, depth)
        if kind == "array":
            count = max(1, int(node.get("minItems", 1) or 1))
            items = node.get("items", {})
            values = [self.value(items, depth + 1) for _ in range(count)]
            if node.get("uniqueItems") and count > 1:
                values = [v if not isinstance(v, str) else f"{v}{i}" for i, v in enumerate(values)]
            return values
        if kind in ("integer", "number"):
            low = node.get("minimum", node.get("exclusiveMinimum", 0))
            high = node.get("maximum", node.get("exclusiveMaximum"))
            value = max(1, int(low) + (1 if "exclusiveMinimum" in node else 0))
            if isinstance(high, int | float) and value > high:
                value = int(high)
            return value
        if kind == "boolean":
            return True
        return self.string(node)

    def string(self, node: dict[str, Any]) -> str:
        low = max(1, int(node.get("minLength", 0) or 0))
        high = node.get("maxLength")
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            found = _fitting(pattern, low, high if isinstance(high, int) else None)
            if found is not None:
                return found
        text = "cfn-debug-target"
        if len(text) < low:
            text += "x" * (low - len(text))
        if isinstance(high, int) and len(text) > high:
            text = text[: max(high, low)]
        return text

    def obj(self, node: dict[str, Any], depth: int) -> dict[str, Any]:
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        required = [r for r in node.get("required", []) if isinstance(r, str)]
        out: dict[str, Any] = {}
        for name, sub in props.items():
            if depth == 0 and name in self.read_only:
                continue
            if name in required or (self.full and depth < 3):
                out[name] = self.value(sub, depth + 1)
        return out


#: Strings tried against a pattern before asking hypothesis (most AWS patterns take one).
_CANDIDATES = (
    "cfn-debug-target",
    "cfndebugtarget",
    "CfnDebugTarget1",
    "cfn_debug",
    "a",
    "1",
    "arn:aws:iam::123456789012:role/cfn-debug",
    "arn:aws:s3:::cfn-debug-target",
    "10.0.0.0/16",
    "sg-0123456789abcdef0",
    "vpc-0123456789abcdef0",
    "subnet-0123456789abcdef0",
    "cfn-debug@example.com",
    "https://example.com/cfn-debug",
    "2026-01-01T00:00:00Z",
)


@lru_cache(maxsize=256)
def _fitting(pattern: str, low: int, high: int | None) -> str | None:
    """A string the pattern accepts: a usual one when it fits, else one hypothesis-jsonschema
    makes (seeded); None when neither can."""
    for text in _CANDIDATES:
        if low <= len(text) <= (high if high is not None else len(text)):
            try:
                if ecma_search(pattern, text):
                    return text
            except Exception:  # a pattern no engine reads: hypothesis may still
                break
    # lazy: hypothesis (~0.4 s of imports) only for a pattern no fixed candidate matches
    from cfn_debug.hooks.generated_string import generated_string

    return generated_string(pattern, low, high)


def generated_models(
    type_name: str, schema: dict[str, Any] | None = None
) -> dict[str, dict[str, Any]]:
    """``{"full": model, "minimal": model}`` for ``type_name`` (see the module docstring)."""
    data = schema if schema is not None else target_schema(type_name)
    full = _Maker(data, full=True).obj(data, 0)
    minimal = _Maker(data, full=False).obj(data, 0)
    return {"full": _valid(data, full), "minimal": _valid(data, minimal)}


def _valid(data: dict[str, Any], model: dict[str, Any]) -> dict[str, Any]:
    """``model`` without the optional properties the schema refuses as generated (a conditional
    that a property switches on first, such as DynamoDB's LocalSecondaryIndexes)."""
    try:
        checked = schema_from_dict(data, strict=False)
    except Exception:  # a schema cfn-debug does not read: the model as made
        return model
    required = {r for r in data.get("required", []) if isinstance(r, str)}
    switches = {
        name
        for key in ("allOf", "anyOf", "oneOf")
        for part in data.get(key, []) or []
        if isinstance(part, dict) and isinstance(part.get("if"), dict)
        for name in (part["if"].get("properties") or {})
    }
    for _ in range(8):
        errors = checked.input_errors(model)
        if not errors:
            return model
        drop = {n for n in switches if n in model and n not in required}
        drop |= {
            pointer.lstrip("/").split("/")[0]
            for pointer, _message in errors
            if pointer and pointer.lstrip("/").split("/")[0] not in required
        }
        drop &= set(model)
        if not drop:
            return model
        model = {k: v for k, v in model.items() if k not in drop}
        switches -= drop
    return model


def unsupported_model() -> dict[str, Any]:
    """The target model the CLI sends for an unsupported target (its UNSUPPORTED_TARGET_SCHEMA,
    with fixed values): an arn id, a short string and a small integer."""
    return {
        "id": "arn:aws:cfn-debug:us-east-1:123456789012:unsupported/target",
        "property1": "cfnDebugTarget",
        "property2": 42,
    }


#: The unsupported target's type name: matches the CLI's TARGET_NAME_REGEX, no hook targets it.
UNSUPPORTED_TARGET = "CfnDebug::Unsupported::Target"
