"""Model validation: jsonschema Draft 7 validators with ECMA-262 patterns, the shape check's
exempt keywords, the validation copy of a schema (local references inlined)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft7Validator
from jsonschema.exceptions import ValidationError
from jsonschema.validators import extend

from cfn_debug.schema.ecma_regex import compile_ecma
from cfn_debug.schema.notes import SchemaNote
from cfn_debug.schema.pointers import MISSING, join_pointer, resolve_pointer, split_pointer

#: (if/then/else; then and else only act through if) and the boolean-logic ones.
SHAPE_EXEMPT_KEYWORDS = ("required", "dependencies", "propertyNames", "if", "allOf", "anyOf")
SHAPE_EXEMPT_KEYWORDS += ("oneOf", "not")

_MAX_MESSAGE = 300
_MAX_DEPTH = 32  # how deep the schema walks follow nested (possibly recursive) definitions


#: Every keyword the Draft 7 validators act on (the rest are annotations).
_VALIDATING = frozenset(Draft7Validator.VALIDATORS)


def _allows_arrays(kind: Any) -> bool:
    return kind == "array" or (isinstance(kind, list) and "array" in kind)


def _never(_model: Any) -> bool:
    return False


def _is_unordered_array(branch: dict[str, Any]) -> bool:
    return branch.get("insertionOrder") is False and (
        branch.get("type") == "array" or "items" in branch
    )


def pattern_notes(raw: Any) -> list[SchemaNote]:
    """A note for every ``pattern`` / ``patternProperties`` key no engine can use in full.

    Such a pattern is not checked (or, for a risky one, only on short values): the property's
    other keywords still are.
    """
    notes: list[SchemaNote] = []
    stack: list[tuple[Any, str]] = [(raw, "")]
    while stack:
        node, pointer = stack.pop()
        if isinstance(node, list):
            stack.extend((v, join_pointer(pointer, i)) for i, v in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        sources: list[tuple[str, str]] = []
        if isinstance(node.get("pattern"), str):
            sources.append((node["pattern"], join_pointer(pointer, "pattern")))
        if isinstance(node.get("patternProperties"), dict):
            base = join_pointer(pointer, "patternProperties")
            sources.extend((p, join_pointer(base, p)) for p in node["patternProperties"])
        for source, where in sources:
            compiled = compile_ecma(source)
            if compiled.problem is None:
                continue
            if compiled.usable:
                notes.append(SchemaNote(where, "note", f"pattern {source!r} {compiled.problem}"))
            else:
                message = f"pattern {source!r}: {compiled.problem}; values are not checked by it"
                notes.append(SchemaNote(where, "warning", message))
        stack.extend((v, join_pointer(pointer, k)) for k, v in node.items())
    notes.sort(key=lambda n: n.pointer)
    return notes


def _prefixes(pattern: str) -> list[str]:
    tokens = split_pointer(pattern)
    return [join_pointer("", *tokens[:n]) for n in range(1, len(tokens) + 1)]


def _identifier(model: Any, pointers: tuple[str, ...]) -> dict[str, Any] | None:
    if not pointers or not isinstance(model, dict):
        return None
    values: dict[str, Any] = {}
    for pointer in pointers:
        value = resolve_pointer(model, pointer)
        if value is MISSING or value is None or value == "":
            return None
        values[pointer] = value
    return values


def _noop(*_args: Any) -> None:
    return None


def _normalised(value: Any) -> Any:
    """JSON equality as jsonschema sees it: 1 equals 1.0, true is not 1, key order is moot."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _normalised(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalised(v) for v in value]
    return value


def _unique_items(
    validator: Any, unique: Any, instance: Any, _schema: Any
) -> Iterator[ValidationError]:
    """uniqueItems by hashing: jsonschema compares arrays of objects pairwise, which takes
    hours on a model with tens of thousands of elements."""
    if not unique or not validator.is_type(instance, "array"):
        return
    seen: dict[str, int] = {}
    for index, item in enumerate(instance):
        key = json.dumps(_normalised(item), sort_keys=True, default=repr)
        if key in seen:
            yield ValidationError(
                f"elements {seen[key]} and {index} are equal; the array must have unique items"
            )
            return
        seen[key] = index


def _errors(validator: Draft7Validator, model: Any) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for error in validator.iter_errors(model):
        out.extend(_describe(error))
    out.sort(key=lambda item: item[0])
    return out


def _describe(error: ValidationError) -> list[tuple[str, str]]:
    pointer = join_pointer("", *error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        schema = error.schema if isinstance(error.schema, dict) else {}
        known = schema.get("properties", {}) if isinstance(schema.get("properties"), dict) else {}
        patterns = schema.get("patternProperties", {})
        extras = [
            key
            for key in error.instance
            if key not in known
            and not any(_search(p, key) for p in (patterns if isinstance(patterns, dict) else {}))
        ]  # (the error exists only when every pattern compiled: see _extra_keys)
        if extras:
            return [
                (join_pointer(pointer, key), f"property {key!r} is not defined in the schema")
                for key in extras
            ]
    message = error.message
    if len(message) > _MAX_MESSAGE:
        message = message[: _MAX_MESSAGE - 3] + "..."
    return [(pointer, message)]


def _search(pattern: str, key: str) -> bool:
    """Does an ECMA-262 pattern match ``key``? True for a pattern no engine compiles."""
    return compile_ecma(pattern).search(key)


def _pattern(
    validator: Any, pattern: Any, instance: Any, _schema: Any
) -> Iterator[ValidationError]:
    """``pattern`` with ECMA-262's meaning; a pattern no engine compiles checks nothing."""
    if (
        isinstance(pattern, str)
        and validator.is_type(instance, "string")
        and not compile_ecma(pattern).search(instance)
    ):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Any, instance: Any, _schema: Any
) -> Iterator[ValidationError]:
    if not isinstance(patterns, dict) or not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        compiled = compile_ecma(pattern)
        if not compiled.usable:
            continue  # its keys are allowed (see _extra_keys) but not checked
        for key, value in instance.items():
            if compiled.search(key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _extra_keys(instance: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """Keys neither ``properties`` nor ``patternProperties`` cover (ECMA patterns).

    A schema with a pattern no engine compiles has no extra keys: any key might be its.
    """
    known = schema.get("properties", {})
    known = known if isinstance(known, dict) else {}
    patterns = schema.get("patternProperties", {})
    compiled = [compile_ecma(p) for p in patterns] if isinstance(patterns, dict) else []
    if not all(c.usable for c in compiled):
        return []
    return [
        key for key in instance if key not in known and not any(c.search(key) for c in compiled)
    ]


def _additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    extras = _extra_keys(instance, schema)
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif additional is False and extras:
        names = ", ".join(repr(each) for each in sorted(extras))
        yield ValidationError(f"Additional properties are not allowed ({names} unexpected)")


_ECMA_KEYWORDS = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
}

_ShapeValidator = extend(
    Draft7Validator,
    {
        **dict.fromkeys(SHAPE_EXEMPT_KEYWORDS, _noop),
        "uniqueItems": _unique_items,
        **_ECMA_KEYWORDS,
    },
)
_InputValidator = extend(Draft7Validator, {"uniqueItems": _unique_items, **_ECMA_KEYWORDS})


#: A local ``$ref`` is inlined into the validation copy only while its expansion stays under
#: this many nodes, and the copy as a whole under :data:`_INLINE_BUDGET`: shared references
#: (30 levels of a definition using the one below twice) would otherwise grow exponentially.
_INLINE_LIMIT = 2_000
_INLINE_BUDGET = 200_000


def _without_remote_refs(raw: dict[str, Any]) -> dict[str, Any]:
    """A copy for validation: local references inlined, references to other documents ``{}``.

    Inlining spares jsonschema a reference lookup for every array element it validates (the
    largest part of its cost on models with long arrays); a recursive definition keeps its
    ``$ref``, which jsonschema resolves against the root as usual, and so does a reference
    whose expansion would be large (see :data:`_INLINE_LIMIT`). ``$id`` and ``$schema`` go,
    so that a relative ``$id`` cannot change how the remaining references resolve.
    """
    sizes: dict[str, int] = {}
    budget = [_INLINE_BUDGET]

    def size(node: Any, active: frozenset[str]) -> int:
        """Nodes in ``node`` with its references expanded (each reference's size cached)."""
        total = 0
        stack = [node]
        while stack:
            item = stack.pop()
            total += 1
            if total > _INLINE_LIMIT:
                return total
            if isinstance(item, dict):
                ref = item.get("$ref")
                if isinstance(ref, str) and ref.startswith("#"):
                    total += ref_size(ref, active)
                    continue
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
        return total

    def ref_size(ref: str, active: frozenset[str]) -> int:
        if ref in active:
            return 1
        known = sizes.get(ref)
        if known is None:
            target = resolve_pointer(raw, ref[1:])
            known = 1 if target is MISSING else size(target, active | {ref})
            sizes[ref] = known
        return known

    def strip(node: Any, active: tuple[str, ...]) -> Any:
        budget[0] -= 1
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                if not ref.startswith("#"):
                    return {}
                target = resolve_pointer(raw, ref[1:])
                if target is MISSING:
                    return {}
                if (
                    ref in active
                    or len(active) > _MAX_DEPTH
                    or budget[0] <= 0
                    or ref_size(ref, frozenset(active)) > _INLINE_LIMIT
                ):
                    return {"$ref": ref}
                return strip(target, (*active, ref))
            return {k: strip(v, active) for k, v in node.items()}
        if isinstance(node, list):
            return [strip(v, active) for v in node]
        return node

    data: dict[str, Any] = strip(raw, ())
    data.pop("$id", None)
    data.pop("$schema", None)
    return data
