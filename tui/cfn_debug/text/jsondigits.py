"""Integers too long to read: Python refuses to convert more than ``sys.get_int_max_str_digits()``
(4,300 by default) decimal digits, because the conversion is quadratic, and ``json.loads`` then
raises a plain ValueError that is neither a JSONDecodeError nor a message about the file.

cfn-debug does not lift the limit (a file of a million digits would cost minutes): such a number is
refused with a one-line error naming the file. ``is_digit_limit`` tells that ValueError apart, and
``first_long_integer`` says where in a document such an integer is and how long it is.
"""

from __future__ import annotations

import json
import sys
from typing import Any

MAX_DIGITS = sys.get_int_max_str_digits() or 4300

TOO_MANY_DIGITS = (
    f"expected integers of at most {MAX_DIGITS:,} digits; this one is longer "
    "(Python refuses to read it, and no resource property needs it)"
)


def is_digit_limit(error: BaseException) -> bool:
    """Whether ``error`` is the refusal of an integer over the digit limit (not a syntax error)."""
    return (
        isinstance(error, ValueError)
        and not isinstance(error, json.JSONDecodeError)
        and "digits" in str(error)
    )


class _LongInteger:
    """Stands for an integer too long to convert, while ``first_long_integer`` parses."""

    __slots__ = ("digits",)

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _parse_int(text: str) -> int | _LongInteger:
    digits = len(text) - text.startswith("-")
    return _LongInteger(digits) if digits > MAX_DIGITS else int(text)


def _pointer_token(key: str | int) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def first_long_integer(text: str | bytes) -> tuple[str, int] | None:
    """The JSON pointer and the digit count of the first integer in ``text`` (a JSON document)
    longer than Python converts, or None (no such integer, or ``text`` is not JSON). Parsing
    leaves those integers as digits (no conversion), so this costs what ``json.loads`` does."""
    try:
        data = json.loads(text, parse_int=_parse_int)
    except (ValueError, RecursionError):
        return None
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        pointer, value = stack.pop()
        if isinstance(value, _LongInteger):
            return pointer, value.digits
        if isinstance(value, dict):
            items = list(value.items())
        elif isinstance(value, list):
            items = list(enumerate(value))
        else:
            continue
        stack.extend((f"{pointer}/{_pointer_token(key)}", item) for key, item in reversed(items))
    return None
