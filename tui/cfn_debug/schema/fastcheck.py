"""A compiled yes/no answer to "does this model conform to the schema's shape?".

jsonschema walks a model through its keyword functions one value at a time: seconds for a 5 MB
model. ``fastjsonschema`` compiles a schema into straight Python code that is an order of
magnitude faster but only says valid or invalid (and differs from jsonschema in a few corners).
:func:`compile_shape_check` builds such a check for the contract's shape rules, and the caller
trusts only its "valid" answer: an invalid (or failing) model goes to jsonschema, which gives the
exact error list. So the one property that matters is *soundness*: the check may reject a model
jsonschema accepts (it then costs the slow path), but never accept one jsonschema rejects.

What keeps it sound:

- the exempt keywords (required, dependencies, propertyNames, if, allOf, anyOf, oneOf, not) go
  only from schema positions, where the shape validator ignores them; a keyword at a position
  jsonschema never reads as a schema is left alone (stricter, not looser);
- ``pattern`` and ``patternProperties`` are ECMA-262 (:mod:`cfn_debug.schema.ecma_regex`), the same
  engine jsonschema is given: before compiling, every pattern is replaced by a placeholder name
  that fastjsonschema's own ``re`` handling leaves alone, and the placeholders are bound to the
  ECMA patterns afterwards;
- uniqueItems compares items with a key at least as coarse as the shape validator's (1 equals
  1.0, true is not 1, key order is moot, and NaN equals NaN as its JSON encoding does);
- ``multipleOf`` (different float arithmetic) means no compiled check at all;
- ``format`` is checked by fastjsonschema and not by jsonschema: stricter, hence harmless;
- defaults are never written into the model (``use_default=False``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from itertools import chain, repeat
from typing import Any

import fastjsonschema

from cfn_debug.schema.ecma_regex import EcmaPattern, compile_ecma

#: Keywords whose value is a map of names to subschemas.
_SCHEMA_MAPS = ("properties", "patternProperties", "definitions")
#: Keywords whose value is a subschema (or, for items, a list of them).
_SCHEMA_VALUES = ("additionalProperties", "items", "additionalItems", "contains", "then", "else")

_UNIQUE_FN = re.compile(r"^(?P<indent>[ \t]*)def fn\(var\): return .*$", re.MULTILINE)

ShapeCheck = Callable[[Any], bool]

#: Every Draft 7 keyword holding subschemas (the exempt ones included), for the placeholders.
_ALL_SCHEMA_MAPS = (*_SCHEMA_MAPS, "dependencies")
_ALL_SCHEMA_VALUES = (*_SCHEMA_VALUES, "allOf", "anyOf", "oneOf", "not", "if", "propertyNames")


def _strip(node: Any, exempt: frozenset[str]) -> Any:
    """A copy of a schema without the exempt keywords at schema positions."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in exempt:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _strip(sub, exempt) for name, sub in value.items()}
        elif key in _SCHEMA_VALUES and isinstance(value, list):
            out[key] = [_strip(sub, exempt) for sub in value]
        elif key in _SCHEMA_VALUES:
            out[key] = _strip(value, exempt)
        else:
            out[key] = value
    return out


def _has_key(node: Any, key: str) -> bool:
    if isinstance(node, dict):
        return key in node or any(_has_key(v, key) for v in node.values())
    if isinstance(node, list):
        return any(_has_key(v, key) for v in node)
    return False


_NAN_KEY = ("NaN",)


def _unique_key(value: Any) -> Any:
    """Equal for any two items the shape validator's uniqueItems calls equal (and maybe more)."""
    if isinstance(value, dict):
        return frozenset((k, _unique_key(v)) for k, v in value.items())
    if isinstance(value, list | tuple):
        return tuple(_unique_key(v) for v in value)
    if isinstance(value, bool):
        return (bool, value)
    if isinstance(value, float) and math.isnan(value):
        return _NAN_KEY
    return value


def _with_placeholders(node: Any, found: dict[str, EcmaPattern], names: dict[str, str]) -> Any:
    """A copy whose patterns (``pattern`` values, ``patternProperties`` keys at schema
    positions) are placeholder names; ``found`` maps each name to its ECMA pattern."""
    if not isinstance(node, dict):
        return node

    def name_of(source: str) -> str:
        name = names.get(source)
        if name is None:
            name = names[source] = f"cfndebug_pattern_{len(names)}"
            found[name] = compile_ecma(source)
        return name

    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "pattern" and isinstance(value, str):
            out[key] = name_of(value)
        elif key == "patternProperties" and isinstance(value, dict):
            out[key] = {
                name_of(p): _with_placeholders(sub, found, names) for p, sub in value.items()
            }
        elif key in _ALL_SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {n: _with_placeholders(sub, found, names) for n, sub in value.items()}
        elif key in _ALL_SCHEMA_VALUES and isinstance(value, list):
            out[key] = [_with_placeholders(sub, found, names) for sub in value]
        elif key in _ALL_SCHEMA_VALUES:
            out[key] = _with_placeholders(value, found, names)
        else:
            out[key] = value
    return out


def compile_shape_check(
    validation_schema: dict[str, Any], exempt: tuple[str, ...]
) -> ShapeCheck | None:
    """A function answering True only for models the shape validator finds no error in.

    ``validation_schema`` is the schema with its local references inlined (what jsonschema
    validates against). None when fastjsonschema is missing or cannot compile the schema.
    """
    if _has_key(validation_schema, "multipleOf"):
        return None
    schema = _strip(validation_schema, frozenset(exempt))
    placeholders: dict[str, EcmaPattern] = {}
    schema = _with_placeholders(schema, placeholders, {})
    try:
        code = fastjsonschema.compile_to_code(schema, use_default=False)
    except Exception:  # an unsupported or malformed schema: jsonschema alone decides
        return None
    code = _UNIQUE_FN.sub(lambda m: f"{m.group('indent')}fn = _unique_key", code)
    if "def fn(" in code:  # a generator we do not know: its uniqueItems may be looser
        return None
    namespace: dict[str, Any] = {"_unique_key": _unique_key}
    try:
        exec(compile(code, "<shape check>", "exec"), namespace)
        # a schema without pattern or format gets no REGEX_PATTERNS (and then needs none)
        patterns = namespace.get("REGEX_PATTERNS")
        if patterns is not None:
            # format checks keep fastjsonschema's own (Python) expressions
            namespace["REGEX_PATTERNS"] = {p: placeholders.get(p, r) for p, r in patterns.items()}
        validate = namespace["validate"]
    except Exception:
        return None

    def check(model: Any) -> bool:
        try:
            validate(model)
        except Exception:  # invalid, or the compiled code tripped: the slow path decides
            return False
        return True

    return check


# --- the columnar check ---------------------------------------------------------------------------
#
# fastjsonschema's code still handles one value at a time. The columnar check applies each
# subschema to *all* the values it governs at once (every Tags element's Key, say), gathered and
# measured by C loops (map, filter, chain, set, min, max), so a model with tens of thousands of
# array elements costs a few passes over lists rather than a Python call per value. It supports
# a whitelist of keywords; a schema using any other keyword jsonschema validates gets no columnar
# check. Like the compiled one it is conservative: False means "not sure", never "invalid".

Column = Callable[[list[Any]], bool]

_NONE = type(None)
_KNOWN_TYPES = frozenset({str, int, float, bool, _NONE, dict, list})
_JSON_TYPES: dict[str, frozenset[type]] = {
    "string": frozenset({str}),
    "object": frozenset({dict}),
    "array": frozenset({list}),
    "boolean": frozenset({bool}),
    "null": frozenset({_NONE}),
    "number": frozenset({int, float}),
    "integer": frozenset({int, float}),  # floats only when integral, checked apart
}
_NUMBERS = frozenset({int, float})
_HASHABLE_LEAVES = frozenset({str, int, bool, _NONE})
#: Draft 7 keywords the columnar check implements (the exempt ones are ignored, like the shape
#: validator does); any other keyword of Draft7Validator.VALIDATORS means no columnar check.
_COLUMNAR = frozenset(
    {
        "type",
        "enum",
        "properties",
        "patternProperties",
        "additionalProperties",
        "items",
        "additionalItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minProperties",
        "maxProperties",
        "format",  # jsonschema without a format checker does not check formats
    }
)
_VALIDATED = (
    _COLUMNAR
    | frozenset(
        {"$ref", "const", "contains", "multipleOf", "dependencies", "propertyNames", "required"}
    )
    | frozenset({"if", "allOf", "anyOf", "oneOf", "not"})
)


class _Unsupported(Exception):
    pass


_ABSENT = object()
_is_float = float.__instancecheck__


def _of(values: list[Any], kinds: set[type], wanted: frozenset[type]) -> list[Any]:
    """The values whose type is in ``wanted``."""
    if kinds <= wanted:
        return values
    if not kinds & wanted:
        return []
    return [v for v in values if type(v) in wanted]


def _all_of_kind(
    wanted: frozenset[type], kind_checks: list[Column]
) -> Callable[[list[Any], set[type]], bool]:
    """A column check: the values whose type is in ``wanted`` pass every one of ``kind_checks``."""

    def of_kind(values: list[Any], kinds: set[type]) -> bool:
        found = _of(values, kinds, wanted)
        return not found or all(check(found) for check in kind_checks)

    return of_kind


def _column(key: str, dicts: list[dict[str, Any]]) -> list[Any]:
    values = list(map(dict.get, dicts, repeat(key), repeat(_ABSENT)))
    if _ABSENT in values:
        return [v for v in values if v is not _ABSENT]
    return values


def _unique(items: list[Any]) -> bool:
    """True only when no two items are equal as the shape validator's uniqueItems sees them."""
    kinds = set(map(type, items))
    if kinds <= _HASHABLE_LEAVES:
        return len(set(items)) == len(items)  # true == 1 here: stricter, never looser
    if kinds == {dict}:
        keys = sorted(set(chain.from_iterable(items)))
        columns = [list(map(dict.get, items, repeat(k), repeat(_ABSENT))) for k in keys]
        if set(map(type, chain.from_iterable(columns))) <= _HASHABLE_LEAVES | {object}:
            # one tuple of values (or _ABSENT) per item, in the same key order for all
            return len(set(zip(*columns, strict=True))) == len(items)
    return len(set(map(_unique_key, items))) == len(items)


def _compile_column(schema: Any, exempt: frozenset[str]) -> Column:
    if schema is True or schema == {}:
        return lambda values: True
    if schema is False:
        return lambda values: not values
    if not isinstance(schema, dict):
        raise _Unsupported
    used = (set(schema) & _VALIDATED) - exempt
    if used - _COLUMNAR:
        raise _Unsupported
    checks: list[Callable[[list[Any], set[type]], bool]] = []

    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not all(isinstance(n, str) and n in _JSON_TYPES for n in names):
            raise _Unsupported
        allowed = frozenset().union(*(_JSON_TYPES[n] for n in names))
        floats_integral = "integer" in names and "number" not in names

        def type_check(values: list[Any], kinds: set[type]) -> bool:
            if not kinds <= allowed:
                return False
            if floats_integral and float in kinds:
                return all(map(float.is_integer, filter(_is_float, values)))
            return True

        checks.append(type_check)

    if "enum" in schema:
        enum = schema["enum"]
        if not isinstance(enum, list) or not all(isinstance(e, str) for e in enum):
            raise _Unsupported
        members = frozenset(enum)
        checks.append(lambda values, kinds: kinds <= {str} and set(values) <= members)

    string_checks = _string_checks(schema)
    if string_checks:
        checks.append(_all_of_kind(_JSON_TYPES["string"], string_checks))

    number_checks = _number_checks(schema)
    if number_checks:

        def numbers(values: list[Any], kinds: set[type]) -> bool:
            found = _of(values, kinds, _NUMBERS)
            if not found:
                return True
            if float in kinds and any(map(math.isnan, filter(_is_float, found))):
                return False  # NaN compares false with everything: min and max cannot tell
            return all(check(found) for check in number_checks)

        checks.append(numbers)

    object_checks = _object_checks(schema, exempt)
    if object_checks:
        checks.append(_all_of_kind(_JSON_TYPES["object"], object_checks))

    array_checks = _array_checks(schema, exempt)
    if array_checks:
        checks.append(_all_of_kind(_JSON_TYPES["array"], array_checks))

    def column(values: list[Any]) -> bool:
        if not values:
            return True
        kinds = set(map(type, values))
        if not kinds <= _KNOWN_TYPES:
            return False
        return all(check(values, kinds) for check in checks)

    return column


def _bound(schema: dict[str, Any], key: str) -> Any:
    value = schema.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Unsupported
    return value


def _length_checks(schema: dict[str, Any], min_key: str, max_key: str) -> list[Column]:
    """Checks that every value's len() lies within the schema's min_key/max_key bounds."""
    out: list[Column] = []
    low, high = _bound(schema, min_key), _bound(schema, max_key)
    if low is not None:
        out.append(lambda v: min(map(len, v)) >= low)
    if high is not None:
        out.append(lambda v: max(map(len, v)) <= high)
    return out


def _string_checks(schema: dict[str, Any]) -> list[Column]:
    out = _length_checks(schema, "minLength", "maxLength")
    if "pattern" in schema:
        if not isinstance(schema["pattern"], str):
            raise _Unsupported
        search = compile_ecma(schema["pattern"]).search
        out.append(lambda s: all(map(search, s)))
    return out


def _number_checks(schema: dict[str, Any]) -> list[Column]:
    out: list[Column] = []
    low, high = _bound(schema, "minimum"), _bound(schema, "maximum")
    xlow, xhigh = _bound(schema, "exclusiveMinimum"), _bound(schema, "exclusiveMaximum")
    if low is not None:
        out.append(lambda n: min(n) >= low)
    if high is not None:
        out.append(lambda n: max(n) <= high)
    if xlow is not None:
        out.append(lambda n: min(n) > xlow)
    if xhigh is not None:
        out.append(lambda n: max(n) < xhigh)
    return out


def _object_checks(schema: dict[str, Any], exempt: frozenset[str]) -> list[Column]:
    out = _length_checks(schema, "minProperties", "maxProperties")
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    if not isinstance(properties, dict) or not isinstance(patterns, dict):
        raise _Unsupported
    named = [(name, _compile_column(sub, exempt)) for name, sub in properties.items()]
    matched = [
        (compile_ecma(p).search, _compile_column(sub, exempt)) for p, sub in patterns.items()
    ]
    additional = schema.get("additionalProperties", True)
    extra = None if additional is True else _compile_column(additional, exempt)
    known = frozenset(properties)
    if named:
        out.append(lambda d: all(check(_column(name, d)) for name, check in named))
    if matched or extra is not None:

        def by_key(dicts: list[dict[str, Any]]) -> bool:
            keys = set(chain.from_iterable(dicts))
            for key in keys:
                hits = [check for search, check in matched if search(key)]
                if not hits and key in known:
                    continue
                if not hits:
                    hits = [extra] if extra is not None else []
                if hits:
                    values = _column(key, dicts)
                    if not all(check(values) for check in hits):
                        return False
            return True

        out.append(by_key)
    return out


def _array_checks(schema: dict[str, Any], exempt: frozenset[str]) -> list[Column]:
    out = _length_checks(schema, "minItems", "maxItems")
    if schema.get("uniqueItems") is True:
        out.append(lambda a: all(map(_unique, a)))
    elif schema.get("uniqueItems", False) is not False:
        raise _Unsupported
    items = schema.get("items", True)
    if isinstance(items, list):
        positional = [_compile_column(sub, exempt) for sub in items]
        count = len(positional)
        rest = schema.get("additionalItems", True)
        rest_check = None if rest is True else _compile_column(rest, exempt)

        def tuples(arrays: list[list[Any]]) -> bool:
            for index, check in enumerate(positional):
                if not check([a[index] for a in arrays if len(a) > index]):
                    return False
            if rest_check is None:
                return True
            return rest_check(list(chain.from_iterable(a[count:] for a in arrays)))

        out.append(tuples)
    elif items is not True:
        each = _compile_column(items, exempt)
        out.append(lambda a: each(list(chain.from_iterable(a))))
    return out


def compile_columnar_check(
    validation_schema: dict[str, Any], exempt: tuple[str, ...]
) -> ShapeCheck | None:
    """The columnar check of a model against the schema's shape, or None when the schema uses
    a keyword it does not implement (``$ref`` of a recursive definition, const, contains, ...)."""
    try:
        column = _compile_column(validation_schema, frozenset(exempt))
    except (_Unsupported, RecursionError):
        return None

    def check(model: Any) -> bool:
        try:
            return column([model])
        except Exception:  # something unforeseen in the model: the other paths decide
            return False

    return check
