"""Whether a version satisfies an npm ``engines`` range (">=18", "^18 || >=20.1", "18.x", "~20.11").

Only what ``engines.node`` fields hold in practice: comparators (>=, >, <=, <, =), caret and tilde
ranges, x-ranges, hyphen ranges and ``||``. A range this cannot read is taken as satisfied (the
handler's own start then says what is wrong), so a correct project is never refused.
"""

from __future__ import annotations

import re

Version = tuple[int, int, int]

_PART = re.compile(r"^(<=|>=|<|>|=|\^|~)?\s*v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?")


def parse_version(text: str) -> Version | None:
    """ "v20.11.1" -> (20, 11, 1); None when it is not a version."""
    match = re.match(r"^\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?", text)
    if match is None:
        return None
    return (int(match.group(1)), int(match.group(2) or 0), int(match.group(3) or 0))


def _bounds(op: str, parts: list[str | None]) -> list[tuple[str, Version]] | None:
    """The comparators one range element means, as (operator, version) pairs."""
    numbers: list[int] = []
    for part in parts:
        if part is None or part in "xX*":
            break
        numbers.append(int(part))
    given = len(numbers)
    base = (*numbers, *([0] * (3 - given)))
    version: Version = (base[0], base[1], base[2]) if given else (0, 0, 0)
    if given == 0:
        return [] if op in ("", "=", ">=", "<=", "^", "~") else None
    if (op in ("", "=") and given < 3) or op in ("^", "~"):
        if op == "^":
            upper_at = next((i for i, n in enumerate(numbers) if n != 0), given - 1)
            upper_at = min(upper_at, given - 1) if given < 3 else upper_at
        elif op == "~":
            upper_at = 0 if given == 1 else 1
        else:
            upper_at = given - 1
        upper = list(version[: upper_at + 1])
        upper[-1] += 1
        bump = (*upper, *([0] * (3 - len(upper))))
        return [(">=", version), ("<", (bump[0], bump[1], bump[2]))]
    if op == ">" and given < 3:
        upper = list(version[:given])
        upper[-1] += 1
        bump = (*upper, *([0] * (3 - len(upper))))
        return [(">=", (bump[0], bump[1], bump[2]))]
    if op == "<=" and given < 3:
        upper = list(version[:given])
        upper[-1] += 1
        bump = (*upper, *([0] * (3 - len(upper))))
        return [("<", (bump[0], bump[1], bump[2]))]
    return [(op or "=", version)]


def _holds(version: Version, op: str, bound: Version) -> bool:
    return {
        "=": version == bound,
        ">=": version >= bound,
        ">": version > bound,
        "<=": version <= bound,
        "<": version < bound,
    }[op]


def satisfies(version: Version, spec: str) -> bool:
    """Whether ``version`` is in the npm range ``spec`` (unreadable ranges: True)."""
    for alternative in spec.split("||"):
        text = alternative.strip()
        if text in ("", "*", "x", "latest"):
            return True
        hyphen = re.match(r"^(\S+)\s+-\s+(\S+)$", text)
        if hyphen:
            text = f">={hyphen.group(1)} <={hyphen.group(2)}"
        comparators: list[tuple[str, Version]] = []
        readable = True
        for token in re.findall(r"(?:<=|>=|<|>|=|\^|~)?\s*[^\s<>=^~]+", text):
            match = _PART.match(token.strip())
            if match is None:
                readable = False
                break
            found = _bounds(match.group(1) or "", [match.group(2), match.group(3), match.group(4)])
            if found is None:
                readable = False
                break
            comparators.extend(found)
        if not readable:
            return True
        if all(_holds(version, op, bound) for op, bound in comparators):
            return True
    return False
