"""Redaction of text that arrives in pieces (a handler's output, read from a pipe in chunks).

``redact.redact_text`` works on a whole string; a credential split between two reads would be
missed by it if each read were redacted alone. ``StreamRedactor`` finds the secrets of everything
it holds, releases text only up to a cut that no secret (or no possible start of one) crosses,
and keeps the rest for the next piece. What it looks for is what ``redact_text`` looks for: the
credential values of the request, access key ids, and assigned secret keys and session tokens.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from cfn_debug.text.redact import (
    _ACCESS_KEY,
    _SECRET_ASSIGNMENT,
    _TOKEN_ASSIGNMENT,
    REDACTED,
    redact_text,
)

#: Text kept back at the end of every piece when no credential value is longer: enough for an
#: assigned secret key ("aws_secret_access_key = " and 40 characters) or a token's start.
HOLD_CHARS = 128
#: A secret still growing at the end of the text is kept whole up to this size; past it, the
#: part held so far is redacted and released (a "secret" of a megabyte is not a credential).
MAX_CARRY = 1024 * 1024

#: Patterns whose first group is a prefix that stays visible (only the value is replaced).
_ASSIGNMENTS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (_TOKEN_ASSIGNMENT, ("oken", "OKEN")),
    (_SECRET_ASSIGNMENT, ("ecret", "ECRET")),
)


def secret_spans(text: str, values: Iterable[str] = ()) -> list[tuple[int, int, int]]:
    """Every secret in ``text`` as (start, value start, end), sorted by start.

    ``start`` is where the match begins (an assignment's visible prefix included: text must not
    be cut between a prefix and its value, or the value would no longer be recognised), and
    ``value start``..``end`` is what gets replaced.
    """
    found: list[tuple[int, int, int]] = []
    for value in values:
        if not value:
            continue
        at = text.find(value)
        while at >= 0:
            found.append((at, at, at + len(value)))
            at = text.find(value, at + 1)
    # The cheap substring tests redact_text makes first: the patterns are slow on long text.
    if "AKIA" in text or "ASIA" in text:
        found.extend((m.start(), m.start(), m.end()) for m in _ACCESS_KEY.finditer(text))
    for pattern, words in _ASSIGNMENTS:
        if any(word in text for word in words):
            found.extend((m.start(), m.end(1), m.end()) for m in pattern.finditer(text))
    found.sort()
    return found


def _merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _replace(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    parts: list[str] = []
    at = 0
    for start, end in spans:
        parts.append(text[at:start])
        parts.append(REDACTED)
        at = end
    parts.append(text[at:])
    return "".join(parts)


class StreamRedactor:
    """Feed pieces of one text in order; get back redacted text that is safe to show."""

    def __init__(self, values: Iterable[str] = (), *, hold: int = HOLD_CHARS) -> None:
        self.values = tuple(values)
        self.hold = max([hold, *(len(value) for value in self.values)])
        self._carry = ""

    @property
    def pending(self) -> str:
        """What is held back (not yet redacted): the start of a secret, maybe."""
        return self._carry

    def feed(self, piece: str) -> str:
        """The redacted text that can be released now (maybe ""); the rest is held back."""
        text = self._carry + piece
        if len(text) <= self.hold:
            self._carry = text
            return ""
        found = secret_spans(text, self.values)
        cut = len(text) - self.hold
        # A secret that crosses the cut (found whole, or still growing at the end) is kept
        # whole for the next piece; moving the cut back can make an earlier one cross it.
        moved = True
        while moved:
            moved = False
            for start, _, end in found:
                if start < cut < end:
                    cut, moved = start, True
        if len(text) - cut > MAX_CARRY:
            cut = len(text) - self.hold
            spans = [(value, min(end, cut)) for _, value, end in found if value < cut]
        else:
            spans = [(value, end) for _, value, end in found if end <= cut]
        self._carry = text[cut:]
        return _replace(text[:cut], _merged(spans))

    def flush(self) -> str:
        """The held-back rest, redacted (the text ended)."""
        text, self._carry = self._carry, ""
        return redact_text(text, self.values) if text else ""

    def peek(self) -> str:
        """The held-back rest, redacted, without ending the text."""
        return redact_text(self._carry, self.values) if self._carry else ""
