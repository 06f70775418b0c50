"""Schema patterns as ECMA-262 reads them, matched in bounded time.

Resource schemas write ``pattern`` and ``patternProperties`` in ECMA-262 syntax (the JSON Schema
and the provider definition meta-schema say so), not Python's. AWS-generated schemas lean on
the difference: Java-style surrogate-pair ranges such as ``[\\uD800\\uDC00-\\uDBFF\\uDFFF]`` (all
astral characters in ECMA's unicode mode, a reversed range to Python) and ``\\p{L}`` (a letter;
to Python an error).

Engines, chosen by measurement over the 3,077 distinct patterns of the 1,898 AWS schemas
cfn-lint ships (``bench/schemas.py`` prints the figures again):

- ``regress`` (Rust, an ECMA-262 engine): compiles 3,066 of them (unicode mode first, then the
  legacy mode), matches a short value as fast as Python's ``re``. It backtracks, so it is used
  only for patterns that cannot backtrack catastrophically (see :func:`can_blow_up`);
- ``google-re2`` (linear time): for the patterns that could blow up (a repeated group that
  itself repeats or alternates, like ``^(a+)+$``), translated to RE2 syntax with ECMA's meaning
  of ``.``, ``\\s``, ``\\uXXXX`` and surrogate pairs. About 4x regress's cost per call, so only
  there. Polynomial backtracking goes there too (:func:`super_linear`: two unbounded repeats,
  or one in a pattern not anchored at its start); such a pattern RE2 cannot express is matched
  by regress on values of at most :data:`POLYNOMIAL_MAX_LENGTH` characters. A pattern that can
  blow up exponentially and RE2 cannot express (lookaround, back references) is matched by
  regress on values of at most :data:`RISKY_MAX_LENGTH` characters, and not checked on longer
  ones.

A pattern no engine compiles (Java's inline ``(?i)``, say) is :attr:`EcmaPattern.problem`: the
schema gets a SHOULD note and values are not checked against it. Where an answer cannot be had
(a value holding a lone surrogate, which neither engine accepts), :meth:`EcmaPattern.search`
says the value matches: a missed violation is better than a false alarm.
"""

from __future__ import annotations

from typing import Any

import re2
import regress
from re2 import _re2

#: Longest value a risky pattern that only regress can compile is matched against.
RISKY_MAX_LENGTH = 12

#: Longest value matched by a pattern whose backtracking is polynomial (two unbounded repeats
#: side by side, or one in a pattern not anchored at its start) when RE2 cannot express it.
POLYNOMIAL_MAX_LENGTH = 256

#: Repetition counts above this make a repeated group "unbounded" for :func:`can_blow_up`.
_BIG_COUNT = 10

_CACHE_LIMIT = 20_000


class EcmaPattern:
    """One compiled schema pattern. ``search(text)`` is True when the pattern matches somewhere."""

    __slots__ = ("_long", "_short", "engine", "problem", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self.problem: str | None = None
        self.engine = "none"
        self._short: Any = None  # a callable(str) -> truthy, for any value
        self._long: int | None = None  # when set, only values up to this length are checked
        compiled, mode, error = _compile_regress(source)
        if compiled is None:
            self.problem = f"not an ECMA-262 regular expression ({error})"
            return
        exponential = can_blow_up(source)
        if not exponential and not super_linear(source):
            self._short = compiled.find
            self.engine = f"regress ({mode} mode)"
            return
        linear = _compile_re2(source, unicode=mode == "unicode")
        if linear is not None:
            self._short = linear
            self.engine = "re2 (linear time)"
            return
        if not exponential:
            self._short = compiled.find
            self._long = POLYNOMIAL_MAX_LENGTH
            self.engine = (
                f"regress ({mode} mode), values up to {POLYNOMIAL_MAX_LENGTH} characters "
                "(its backtracking grows polynomially with the value: longer values unchecked)"
            )
            return
        self._short = compiled.find
        self._long = RISKY_MAX_LENGTH
        self.engine = f"regress ({mode} mode), values up to {RISKY_MAX_LENGTH} characters"
        self.problem = (
            "can backtrack catastrophically and has no linear-time equivalent (lookaround or "
            f"back reference): values longer than {RISKY_MAX_LENGTH} characters are not checked "
            "against it"
        )

    def __repr__(self) -> str:
        return f"EcmaPattern({self.source!r}, engine={self.engine!r})"

    @property
    def usable(self) -> bool:
        """False when no engine compiles the pattern (values are not checked against it)."""
        return self._short is not None

    def search(self, text: str) -> bool:
        """Does the pattern match somewhere in ``text``? True when it cannot be told."""
        if self._short is None:
            return True
        if self._long is not None and len(text) > self._long:
            return True
        try:
            return self._short(text) is not None
        except (UnicodeEncodeError, ValueError, TypeError):
            return True  # a lone surrogate (or a non-str): no engine can answer


_compiled: dict[str, EcmaPattern] = {}


def compile_ecma(source: str) -> EcmaPattern:
    """The compiled pattern for ``source`` (cached; compiling never raises)."""
    found = _compiled.get(source)
    if found is None:
        found = EcmaPattern(source)
        if len(_compiled) >= _CACHE_LIMIT:
            _compiled.clear()
        _compiled[source] = found
    return found


def ecma_search(source: str, text: str) -> bool:
    """``compile_ecma(source).search(text)``."""
    return compile_ecma(source).search(text)


def _compile_regress(source: str) -> tuple[Any, str, str]:
    error = ""
    for flags, mode in (("u", "unicode"), ("", "legacy")):
        try:
            return regress.Regex(source, flags), mode, ""
        except Exception as problem:  # RegressError, or a lone surrogate in the source
            error = error or str(problem) or type(problem).__name__
    return None, "", error


# --- which patterns can backtrack catastrophically ------------------------------------------------


def can_blow_up(source: str) -> bool:
    """True when a repeated group contains a repetition or an alternation.

    ``(a+)+``, ``(a|a)*``, ``(\\w+\\s?)*`` and the like take exponential time in a backtracking
    engine on a value that almost matches. A pattern without such a group (star height one, or
    a group repeated a small fixed number of times such as ``(\\d{1,3}\\.){3}``) backtracks at
    most polynomially. Over-approximate: a false True only costs the slower linear engine.
    """
    stack: list[bool] = []  # per open group: does it contain a repetition or an alternation?
    i, n = 0, len(source)
    inner = False  # for the group just closed
    while i < n:
        c = source[i]
        if c == "(":
            stack.append(False)
            i += 1
            if source.startswith("?", i):  # (?:  (?=  (?!  (?<=  (?<!  (?<name>
                close = source.find(">", i) if source.startswith("?<", i) else -1
                named = close > 0 and not source.startswith(("?<=", "?<!"), i)
                i = close + 1 if named else i + (3 if source.startswith("?<", i) else 2)
            continue
        if c == "|":
            if stack:
                stack[-1] = True
            i += 1
            continue
        if c == ")":
            inner = stack.pop() if stack else False
            i += 1
            quantifier, i = _quantifier_at(source, i)
            if quantifier is not None:
                if inner and quantifier > _BIG_COUNT:
                    return True
                if stack:
                    stack[-1] = True
            elif inner and stack:
                stack[-1] = True
            continue
        # an atom: an escape, a class or one character, perhaps followed by a quantifier
        if c == "\\":
            i += 2
        elif c == "[":
            i = _class_end(source, i)
        else:
            i += 1
        quantifier, i = _quantifier_at(source, i)
        if quantifier is not None and quantifier > 1 and stack:
            stack[-1] = True
    return False


def super_linear(source: str) -> bool:
    """True when a backtracking engine may take more than linear time on some value: two or more
    unbounded repeats (``^[a-z]+[a-z.-]*[a-z]+$`` is cubic on a long value that fails at its
    end), or one in a pattern not anchored at its start (a search retries it at every position).
    Over-approximate: a false True only costs the linear-time engine."""
    unbounded = 0
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c == "(":
            i += 1
            continue
        if c == "\\":
            i += 2
        elif c == "[":
            i = _class_end(source, i)
        else:
            i += 1
        quantifier, i = _quantifier_at(source, i)
        if quantifier is not None and quantifier > _BIG_COUNT:
            unbounded += 1
    anchored = source.startswith("^") and "|" not in source
    return unbounded >= 2 or (unbounded == 1 and not anchored)


def _class_end(source: str, start: int) -> int:
    """Index just past the character class opening at ``start``."""
    i = start + 1
    if i < len(source) and source[i] == "^":
        i += 1
    if i < len(source) and source[i] == "]":
        i += 1  # ECMA: ``[]`` is an empty class, but treat a leading ] as a literal (safer here)
    while i < len(source):
        if source[i] == "\\":
            i += 2
            continue
        if source[i] == "]":
            return i + 1
        i += 1
    return i


def _quantifier_at(source: str, i: int) -> tuple[int | None, int]:
    """(largest count, index after) of a quantifier at ``i``; None when there is none.

    Unbounded quantifiers count as infinite (a large number).
    """
    n = len(source)
    if i >= n:
        return None, i
    c = source[i]
    if c in "*+":
        end = i + 1
        return 1 << 30, end + (1 if end < n and source[end] == "?" else 0)
    if c == "?":
        end = i + 1
        return 1, end + (1 if end < n and source[end] == "?" else 0)
    if c == "{":
        close = source.find("}", i)
        body = source[i + 1 : close] if close > 0 else ""
        low, comma, high = body.partition(",")
        if low.isdigit() and (not high or high.isdigit()):
            end = close + 1
            end += 1 if end < n and source[end] == "?" else 0
            if not comma:
                return int(low), end
            return (int(high) if high else 1 << 30), end
    return None, i


# --- ECMA-262 to RE2 ------------------------------------------------------------------------------

#: ECMA's \s: WhiteSpace and LineTerminator code points.
_SPACE = (
    "\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}"
    "\\x{205F}\\x{3000}\\x{FEFF}"
)
_DOT = "[^\\n\\r\\x{2028}\\x{2029}]"
_CONTROL_ESCAPES = {"t": "\\t", "n": "\\n", "r": "\\r", "f": "\\f", "v": "\\x{0B}"}


class _NoTranslation(Exception):
    pass


def _compile_re2(source: str, *, unicode: bool) -> Any:
    """A ``search(text)`` callable on RE2 with ECMA's meaning, or None when RE2 cannot say it."""
    try:
        translated = _Translator(source, unicode).run()
    except (_NoTranslation, IndexError, ValueError):
        return None
    options = re2.Options()
    options.log_errors = False
    options.max_mem = 64 << 20
    try:
        program = _re2.RE2(translated.encode("utf-8"), options)
    except Exception:
        return None
    if not program.ok():
        return None
    match = program.Match
    unanchored = _re2.RE2.Anchor.UNANCHORED
    missing = (-1, -1)

    def search(text: str) -> Any:
        raw = text.encode("utf-8")
        return None if match(unanchored, raw, 0, len(raw))[0] == missing else True

    return search


class _Translator:
    """ECMA-262 pattern text to RE2 syntax, refusing anything RE2 would read otherwise."""

    def __init__(self, source: str, unicode: bool) -> None:
        self.s = source
        self.u = unicode
        self.i = 0
        self.out: list[str] = []

    def run(self) -> str:
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c == "\\":
                self.out.append(self._escape(in_class=False))
            elif c == "[":
                self.out.append(self._class())
            elif c == "(":
                self.out.append(self._group())
            elif c == ".":
                self.out.append(_DOT)
                self.i += 1
            elif c in ")|^$*+?":
                self.out.append(c)
                self.i += 1
            elif c == "{":
                close = s.find("}", self.i)
                body = s[self.i + 1 : close] if close > 0 else ""
                low, _, high = body.partition(",")
                if low.isdigit() and (not high or high.isdigit()):
                    self.out.append(s[self.i : close + 1])
                    self.i = close + 1
                elif self.u:
                    raise _NoTranslation
                else:
                    self.out.append("\\{")
                    self.i += 1
            else:
                self.out.append(_literal(c))
                self.i += 1
        return "".join(self.out)

    def _group(self) -> str:
        s = self.s
        if s.startswith("(?:", self.i):
            self.i += 3
            return "(?:"
        if s.startswith("(?<", self.i) and not s.startswith(("(?<=", "(?<!"), self.i):
            close = s.find(">", self.i)
            name = s[self.i + 3 : close]
            if close < 0 or not name.isidentifier() or not name.isascii():
                raise _NoTranslation
            self.i = close + 1
            return f"(?P<{name}>"
        if s.startswith("(?", self.i):
            raise _NoTranslation  # lookaround or a modifier RE2 reads otherwise
        self.i += 1
        return "("

    def _code_unit(self) -> int | None:
        """A ``\\uXXXX`` (or unicode-mode ``\\u{...}``) escape at ``self.i``, consumed."""
        s = self.s
        if s.startswith("\\u{", self.i) and self.u:
            close = s.find("}", self.i)
            value = int(s[self.i + 3 : close], 16)
            self.i = close + 1
            return value
        digits = s[self.i + 2 : self.i + 6]
        if len(digits) == 4 and all(ch in "0123456789abcdefABCDEF" for ch in digits):
            self.i += 6
            value = int(digits, 16)
            if self.u and 0xD800 <= value <= 0xDBFF and s.startswith("\\u", self.i):
                low_digits = s[self.i + 2 : self.i + 6]
                if len(low_digits) == 4 and all(
                    ch in "0123456789abcdefABCDEF" for ch in low_digits
                ):
                    low = int(low_digits, 16)
                    if 0xDC00 <= low <= 0xDFFF:
                        self.i += 6
                        return 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            return value
        return None

    def _escape(self, *, in_class: bool) -> str:
        s = self.s
        nxt = s[self.i + 1]
        if nxt == "u":
            value = self._code_unit()
            if value is not None:
                return f"\\x{{{value:X}}}"
            if self.u:
                raise _NoTranslation
            self.i += 2
            return "u"
        self.i += 2
        if nxt in "dDwW":
            return "\\" + nxt
        if nxt == "s":
            return _SPACE if in_class else f"[{_SPACE}]"
        if nxt == "S":
            if in_class:
                raise _NoTranslation
            return f"[^{_SPACE}]"
        if nxt in "bB":
            return "\\x{8}" if in_class and nxt == "b" else "\\" + nxt
        if nxt in _CONTROL_ESCAPES:
            return _CONTROL_ESCAPES[nxt]
        if nxt == "x":
            digits = s[self.i : self.i + 2]
            if len(digits) == 2 and all(ch in "0123456789abcdefABCDEF" for ch in digits):
                self.i += 2
                return f"\\x{{{digits}}}"
            if self.u:
                raise _NoTranslation
            return "x"
        if nxt in "pP":
            if not self.u:
                return nxt
            close = s.find("}", self.i)
            name = s[self.i + 1 : close] if s[self.i : self.i + 1] == "{" else ""
            if not name or not name.isalpha() or not name.isascii() or len(name) > 2:
                raise _NoTranslation  # long names and Script= forms: RE2 spells them otherwise
            self.i = close + 1
            return f"\\{nxt}{{{name}}}"
        if nxt == "0" and not s[self.i : self.i + 1].isdigit():
            return "\\x{0}"
        if nxt.isdigit() or nxt in "kc":
            raise _NoTranslation  # back references, named references, control letters
        if nxt.isalnum():
            if self.u:
                raise _NoTranslation
            return nxt  # legacy mode: an identity escape of a letter is the letter
        return _literal(nxt)

    def _class(self) -> str:
        s = self.s
        self.i += 1
        negated = s[self.i : self.i + 1] == "^"
        if negated:
            self.i += 1
        if s[self.i : self.i + 1] == "]":
            self.i += 1
            return "[\\x{0}-\\x{10FFFF}]" if negated else "[^\\x{0}-\\x{10FFFF}]"
        parts: list[tuple[str, bool]] = []  # (RE2 text, is it one character?)
        while True:
            c = s[self.i]
            if c == "]":
                self.i += 1
                break
            if c == "\\":
                kind = s[self.i + 1]
                parts.append((self._escape(in_class=True), kind not in "dDwWsSpP"))
            elif c == "-":
                parts.append((_RANGE, False))
                self.i += 1
            elif c == "[" and s[self.i + 1 : self.i + 2] == ":":
                raise _NoTranslation  # RE2 would read a POSIX class here
            else:
                parts.append((_literal(c), True))
                self.i += 1
        return ("[^" if negated else "[") + _rejoin_ranges(parts) + "]"


_RANGE = "\x00range"


def _rejoin_ranges(parts: list[tuple[str, bool]]) -> str:
    """Class items joined; an unescaped hyphen between two characters is a range, else literal."""
    out: list[str] = []
    index = 0
    can_start = False  # is the last item written a character a range may start from?
    while index < len(parts):
        text, single = parts[index]
        if text == _RANGE:
            after = parts[index + 1] if index + 1 < len(parts) else None
            if can_start and after is not None and after[1]:
                out.append("-" + after[0])
                index += 2
                can_start = False
                continue
            out.append("\\-")
            can_start = False
        else:
            out.append(text)
            can_start = single
        index += 1
    return "".join(out)


def _literal(char: str) -> str:
    if char in "\\.+*?()|[]{}^$-":
        return "\\" + char
    if 0xD800 <= ord(char) <= 0xDFFF:
        raise _NoTranslation  # a lone surrogate in the pattern text
    return char
