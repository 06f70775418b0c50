"""A resource schema's subschemas as hypothesis-jsonschema can take them: refs inlined,
CloudFormation's own keywords left out, every ``pattern`` one Python's ``re`` reads close to
ECMA-262, and the top pattern as ECMA-262 reads it, to filter the generated strings with.

Plain data and regular expressions: no Hypothesis here (scenarios/hypothesis_inputs.py draws).
"""

from __future__ import annotations

import re
from typing import Any

from cfn_debug.schema import ResourceSchema
from cfn_debug.schema.ecma_regex import compile_ecma

#: Deeper subschemas are not followed (a recursive definition ends there).
MAX_DEPTH = 8


def plain_subschema(schema: ResourceSchema, node: dict[str, Any]) -> dict[str, Any]:
    """A subschema hypothesis-jsonschema can take alone: its refs inlined, CloudFormation's own
    keywords (insertionOrder, arrayType, ...) left out."""
    drop = {"insertionOrder", "arrayType", "relationshipRef", "description", "$comment"}

    def inline(value: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            return {}
        if isinstance(value, dict):
            value = schema.resolve_ref(value)
            return {k: inline(v, depth + 1) for k, v in value.items() if k not in drop}
        if isinstance(value, list):
            return [inline(v, depth + 1) for v in value]
        return value

    result: dict[str, Any] = inline(node, 0)
    return result


def top_patterns(plain: dict[str, Any]) -> list[Any]:
    """The top-level ``pattern`` of ``plain`` as ECMA-262 reads it, to filter the generated
    strings with. hypothesis-jsonschema generates and checks with Python's ``re``, which reads
    the same pattern differently: its ``.`` matches ``\\r``, U+2028 and U+2029 (ECMA's does
    not), its ``$`` matches before a final newline, its ``\\d`` and ``\\w`` match non-ASCII
    digits and letters. A string only Python accepts is an input the schema rejects, and sending
    it as a valid input blames a correct handler (input-valid, model-conforms-to-schema)."""
    source = plain.get("pattern")
    return [compile_ecma(source)] if isinstance(source, str) else []


def python_patterns(plain: dict[str, Any]) -> None:
    """Make every ``pattern`` of ``plain`` one hypothesis-jsonschema (Python's ``re``) generates
    close to what ECMA-262 accepts: ASCII mode (``(?a)``), where ``\\d`` and ``\\w`` are ASCII
    as in ECMA (and ``\\s`` a subset of ECMA's); one Python cannot compile, such as ``\\p{L}``
    or a surrogate-pair range, is taken out. What is left of the difference (``.`` matching
    ``\\r``) is filtered: the top pattern by :func:`top_patterns`, nested values with the whole
    input by ``hypothesis_inputs.create_strategy``."""
    stack: list[Any] = [plain]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        source = node.get("pattern")
        if isinstance(source, str):
            for candidate in ("(?a)" + source, source):
                try:
                    re.compile(candidate)
                except (re.error, ValueError, OverflowError):
                    continue
                node["pattern"] = candidate
                break
            else:
                del node["pattern"]
        stack.extend(v for k, v in node.items() if k != "enum")


def length_only(node: dict[str, Any]) -> tuple[int, int | None] | None:
    """(minLength, maxLength or None) of a string schema constrained by its length alone (no
    pattern, enum, format...); None for any other schema."""
    if node.get("type") not in (None, "string") or not set(node) <= {
        "type",
        "minLength",
        "maxLength",
    }:
        return None
    low, high = node.get("minLength", 0), node.get("maxLength")
    if type(low) is not int or (high is not None and type(high) is not int):
        return None
    return low, high
