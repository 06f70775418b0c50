"""A random string a simple regular expression matches, without Hypothesis.

Identifier patterns are mostly literals, character classes and bounded repeats
(``^wdg-[a-z0-9]{8,16}$``): a string is drawn from the parsed pattern directly, which costs
microseconds where importing Hypothesis costs a large part of a second. Anything else (a negated
class, a lookaround, a backreference) answers None, and the caller generates with Hypothesis.
The caller checks every answer against the schema: this module only proposes.
"""

from __future__ import annotations

import re
import secrets
import string
from typing import Any

# re's own parser (the module behind ``re.compile``)
try:
    from re import _constants as codes
    from re import _parser as parser
except ImportError:  # pragma: no cover - Python 3.10 names them so
    import sre_constants as codes  # type: ignore[no-redef]
    import sre_parse as parser  # type: ignore[no-redef]

#: Drawn for ``.`` (a character every identifier pattern that allows ``.`` accepts).
_ANY = string.ascii_lowercase + string.digits
_CATEGORIES = {
    "CATEGORY_DIGIT": string.digits,
    "CATEGORY_WORD": string.ascii_letters + string.digits + "_",
    "CATEGORY_SPACE": " ",
}
#: An unbounded repeat draws at most this many more than its minimum.
_EXTRA = 12


class _Unsupported(Exception):
    """The pattern uses something this module does not draw from."""


def pattern_example(pattern: str) -> str | None:
    """A random string ``pattern`` matches (``re.fullmatch`` after its anchors), or None when
    the pattern is not one this module draws from."""
    try:
        parsed = parser.parse(pattern)
        text = "".join(_draw(parsed))
    except (_Unsupported, re.error, ValueError, OverflowError, RecursionError):
        return None
    return text if re.search(pattern, text) else None


def _draw(items: Any) -> list[str]:
    out: list[str] = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "ANY":
            out.append(secrets.choice(_ANY))
        elif name == "IN":
            out.append(secrets.choice(_members(arg)))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, body = arg
            high = low + _EXTRA if high is codes.MAXREPEAT else min(high, low + _EXTRA)
            for _ in range(low + secrets.randbelow(high - low + 1)):
                out.extend(_draw(body))
        elif name in ("SUBPATTERN", "ATOMIC_GROUP"):
            out.extend(_draw(arg[-1] if name == "SUBPATTERN" else arg))
        elif name == "BRANCH":
            out.extend(_draw(secrets.choice(arg[1])))
        elif name == "AT":
            continue  # ^ and $: the string is the whole match
        else:
            raise _Unsupported(name)
    return out


def _members(items: Any) -> str:
    """The characters of a class ``[...]`` (never negated)."""
    chars: list[str] = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            chars.append(chr(arg))
        elif name == "RANGE":
            low, high = arg
            if high - low > 1000:
                raise _Unsupported("a wide range")
            chars.extend(chr(c) for c in range(low, high + 1))
        elif name == "CATEGORY" and str(arg) in _CATEGORIES:
            chars.extend(_CATEGORIES[str(arg)])
        else:
            raise _Unsupported(name)  # NEGATE, other categories
    if not chars:
        raise _Unsupported("an empty class")
    return "".join(chars)
