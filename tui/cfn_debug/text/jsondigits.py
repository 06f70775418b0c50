"""Integers too long to read: Python refuses to convert more than ``sys.get_int_max_str_digits()``
(4,300 by default) decimal digits, because the conversion is quadratic, and ``json.loads`` then
raises a plain ValueError that is neither a JSONDecodeError nor a message about the file.

cfn-debug does not lift the limit (a file of a million digits would cost minutes): such a number is
refused with a one-line error naming the file. ``is_digit_limit`` tells that ValueError apart.
"""

from __future__ import annotations

import json
import sys

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
