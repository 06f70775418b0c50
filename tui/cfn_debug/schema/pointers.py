"""JSON pointers (RFC 6901) into resource models and schemas, and model pointer patterns."""

from __future__ import annotations

from typing import Any

# --- JSON pointers (RFC 6901) -------------------------------------------------------------------


def escape_token(token: str | int) -> str:
    """One reference token, escaped: ``~`` as ``~0`` and ``/`` as ``~1``."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def join_pointer(base: str, *tokens: str | int) -> str:
    """``join_pointer("/Tags", 2, "Key") == "/Tags/2/Key"``; the root pointer is ``""``."""
    return base + "".join("/" + escape_token(t) for t in tokens)


def split_pointer(pointer: str) -> list[str]:
    """The unescaped tokens of a pointer; ``""`` (the whole document) has none."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON pointer (must start with '/'): {pointer!r}")
    return [unescape_token(t) for t in pointer[1:].split("/")]


_MISSING = object()


def resolve_pointer(document: Any, pointer: str) -> Any:
    """The value a model pointer names in ``document``, or :data:`MISSING` when there is none."""
    current = document
    for token in split_pointer(pointer):
        if isinstance(current, dict):
            if token not in current:
                return _MISSING
            current = current[token]
        elif isinstance(current, list):
            if not token.isdigit() or int(token) >= len(current):
                return _MISSING
            current = current[int(token)]
        else:
            return _MISSING
    return current


MISSING = _MISSING


def expand_pattern(document: Any, pattern: str) -> list[tuple[str, Any]]:
    """Every (concrete model pointer, value) a pattern matches in ``document``.

    ``*`` matches every element of an array; a pattern that leads nowhere matches nothing.
    """
    found: list[tuple[str, Any]] = [("", document)]
    for token in split_pointer(pattern):
        step: list[tuple[str, Any]] = []
        for pointer, value in found:
            if token == "*" and isinstance(value, list):
                step.extend((join_pointer(pointer, i), v) for i, v in enumerate(value))
            elif isinstance(value, dict) and token in value:
                step.append((join_pointer(pointer, token), value[token]))
            elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
                step.append((join_pointer(pointer, token), value[int(token)]))
        found = step
    return found
