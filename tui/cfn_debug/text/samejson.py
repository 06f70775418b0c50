"""Whether two JSON values are the same JSON: equal encodings, never Python's ``==``.

Python's equality says ``1 == 1.0 == True``, ``0 == False`` and ignores key order, so a value
that is merely ``==`` to another is a different answer from a handler: keeping one in place of
the other (to hold a repeated context once) would change what the handler returned. Two values
are the same here when orjson encodes them to the same bytes (types agree at every leaf, keys in
the same order) and the encoding holds no ``null``: orjson writes NaN and None alike, so a value
holding one is never called the same as another (the caller keeps both, which is always right).
"""

from __future__ import annotations

from typing import Any

from cfn_debug.text.jsonfast import exact

#: The last ``other`` encoded, with its encoding: a chain compares each step's context with the
#: same earlier one, which is then encoded once. The object is held, so its id is not reused.
_last: tuple[Any, bytes | None] = (None, None)


def same_json(value: Any, other: Any) -> bool:
    """True only when ``value`` and ``other`` are the same JSON (see the module docstring)."""
    if value is other:
        return True
    if type(value) is not type(other):
        return False
    if isinstance(value, dict | list) and len(value) != len(other):
        return False
    left = exact(value)
    if left is None or b"null" in left:
        return False
    global _last
    held, right = _last  # one read of the pair: another thread may replace it
    if held is not other:
        right = exact(other)
        _last = (other, right)
    return right is not None and left == right
