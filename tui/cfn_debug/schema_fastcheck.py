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
- ``pattern`` and ``patternProperties`` search with Python's own ``$`` (fastjsonschema rewrites
  it to ``\\Z``, which would let a key with a trailing newline escape its patternProperties);
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
from typing import Any

#: Keywords whose value is a map of names to subschemas.
_SCHEMA_MAPS = ("properties", "patternProperties", "definitions")
#: Keywords whose value is a subschema (or, for items, a list of them).
_SCHEMA_VALUES = ("additionalProperties", "items", "additionalItems", "contains", "then", "else")

_UNIQUE_FN = re.compile(r"^(?P<indent>[ \t]*)def fn\(var\): return .*$", re.MULTILINE)

ShapeCheck = Callable[[Any], bool]


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


def compile_shape_check(
    validation_schema: dict[str, Any], exempt: tuple[str, ...]
) -> ShapeCheck | None:
    """A function answering True only for models the shape validator finds no error in.

    ``validation_schema`` is the schema with its local references inlined (what jsonschema
    validates against). None when fastjsonschema is missing or cannot compile the schema.
    """
    if _has_key(validation_schema, "multipleOf"):
        return None
    try:
        import fastjsonschema
    except ImportError:
        return None
    schema = _strip(validation_schema, frozenset(exempt))
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
        patterns = namespace["REGEX_PATTERNS"]
        namespace["REGEX_PATTERNS"] = {p: re.compile(p) for p in patterns}
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
