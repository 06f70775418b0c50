"""JSON encoding of large models, fast and the same in meaning as the ``json`` module's.

orjson encodes a 5 MB model in a few milliseconds where ``json`` takes ~50, but it differs from
``json`` on some inputs: NaN and infinities become ``null``, integers beyond 64 bits, non-str keys,
subclasses, dataclasses and datetimes are refused or written otherwise. So orjson is used only for
parts where it cannot differ: :func:`exact` refuses the types it would write differently, and
:func:`splice` uses an orjson encoding only when it holds no ``null`` (a None, or a NaN orjson
wrote as null) and the caller's ``clean`` test passes; any other part is split up (objects by
member, long arrays by slice) or left to the caller's ``slow`` encoder.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import orjson

_OPTIONS = (
    orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)
#: Below this size (bytes of JSON) a part that cannot be used whole is not split up further.
SPLIT_MIN = 16 * 1024
#: Long arrays that cannot be used whole are encoded in this many slices.
SLICES = 16
#: Nesting below which ``splice`` leaves everything to ``slow``.
MAX_DEPTH = 32


def _refuse(value: Any) -> Any:
    raise TypeError(type(value).__name__)


def exact(value: Any) -> bytes | None:
    """orjson's encoding of ``value``, or None where it has no plain-JSON encoding.

    Refused: subclasses of str/int/dict/list, dataclasses, datetimes, any other non-JSON type,
    non-str keys, integers beyond 64 bits and nesting deeper than orjson's 255 levels. Two values
    equal as Python values encode to equal bytes only if their types agree at every leaf (1 is
    not 1.0, true is not 1). NaN and infinities are written as ``null``.
    """
    try:
        return orjson.dumps(value, default=_refuse, option=_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return None


#: Encodings at least this long have what ``holds`` finds in them remembered.
_REMEMBER_MIN = 64 * 1024
_REMEMBERED = 8  # a step looks at ~5 large encodings; each held costs its size
#: id of a large encoding -> (the encoding, {mark: whether it holds it}); the encodings are held,
#: so no id is reused while its entry lives, and bytes never change: the answers stay true.
_HOLDS: dict[int, tuple[bytes, dict[bytes, bool]]] = {}


#: References to an encoding when only ``_HOLDS`` holds it, as ``_make_room`` counts them: the
#: entry's tuple, the loop's name and ``sys.getrefcount``'s argument.
_ONLY_HERE = 3
#: How many of the newest entries are kept even when nobody else holds their encoding: an equal
#: encoding made afresh (a context or model sent again) shares their answers.
_KEEP_NEWEST = 2


def _make_room() -> None:
    """Forget remembered encodings that nothing else holds any more (beyond the newest
    ``_KEEP_NEWEST``), then the oldest while ``_REMEMBERED`` are held: a chain that sends a
    5 MB context at every step keeps the few encodings its current step uses, not the last
    ``_REMEMBERED`` steps' (each ~5 MB resident)."""
    keys = list(_HOLDS)
    for key in keys[: max(0, len(keys) - _KEEP_NEWEST)]:
        raw = _HOLDS[key][0]
        if sys.getrefcount(raw) <= _ONLY_HERE:
            del _HOLDS[key]
    while len(_HOLDS) >= _REMEMBERED:
        del _HOLDS[next(iter(_HOLDS))]


def holds(raw: bytes, mark: bytes) -> bool:
    """``mark in raw``, remembered for the last few large encodings: a step asks it of the same
    5 MB encoding several times (the diffs, the schema check, the journal each look for null),
    and of equal encodings made afresh (the model sent again, a request body that repeats the
    last one): an encoding equal to a remembered one (bytes compared, by length first, ~20x
    quicker than a search) shares its answers."""
    if len(raw) < _REMEMBER_MIN:
        return mark in raw
    known = _HOLDS.get(id(raw))
    if known is None or known[0] is not raw:
        answers: dict[bytes, bool] = next(
            (seen for other, seen in _HOLDS.values() if len(other) == len(raw) and other == raw),
            {},
        )
        _make_room()
        known = _HOLDS[id(raw)] = (raw, answers)
    found = known[1].get(mark)
    if found is None:
        found = known[1][mark] = mark in raw
    return found


def remember_holds(raw: bytes, mark: bytes, found: bool) -> None:
    """Remember that ``mark in raw`` is ``found`` (told by a scan made for another reason, such
    as the secret scan's single pass), for :func:`holds`; only large encodings are kept."""
    if len(raw) < _REMEMBER_MIN:
        return
    known = _HOLDS.get(id(raw))
    if known is None or known[0] is not raw:
        _make_room()
        known = _HOLDS[id(raw)] = (raw, {})
    known[1][mark] = found


class Splicer:
    """Encode JSON-like values the way ``slow`` does, using orjson for the parts where it can.

    ``slow(value)`` is the reference encoder (compact separators: ``,`` and ``:``);
    ``member(key, value)`` encodes one member's value of an object (defaults to ``slow``); a
    member is split up further only if ``descend(key)``; an orjson encoding is used only if
    ``clean(raw)``. ``ensure_ascii`` must be what ``slow`` uses for keys. ``encode`` is
    :func:`exact` or a memo of it (the encodings a step's diffs made).
    """

    def __init__(
        self,
        slow: Callable[[Any], str],
        *,
        member: Callable[[str, Any], str] | None = None,
        descend: Callable[[str], bool] = lambda key: True,
        clean: Callable[[bytes], bool] = lambda raw: True,
        ensure_ascii: bool = False,
        split_depth: int = 0,
        encode: Callable[[Any], bytes | None] = exact,
    ) -> None:
        self.encode_exact = encode
        self.slow = slow
        self.member = member or (lambda key, value: slow(value))
        self.descend = descend
        self.clean = clean
        self.ensure_ascii = ensure_ascii
        self.split_depth = split_depth

    def encode(self, value: Any) -> bytes:
        """``slow(value)`` in meaning, as UTF-8."""
        return b"".join(self.parts(value))  # one copy of the (large) parts, not one per level

    def parts(self, value: Any) -> list[bytes]:
        """:meth:`encode` in pieces, not joined (a writer can hand them to ``os.writev``)."""
        parts: list[bytes] = []
        self._text(value, 0, parts)
        return parts

    def _slow(self, value: Any) -> bytes:
        return self.slow(value).encode("utf-8", "backslashreplace")

    def _text(self, value: Any, depth: int, out: list[bytes]) -> None:
        kind = type(value)
        if (kind is not dict and kind is not list) or depth >= MAX_DEPTH:
            out.append(self._slow(value))
            return
        if depth >= self.split_depth and not (kind is dict and self._dirty_keys(value)):
            raw = self.encode_exact(value)
            if raw is None:
                out.append(self._slow(value))
                return
            if not holds(raw, b"null") and self.clean(raw):
                out.append(raw)
                return
            if len(raw) < SPLIT_MIN:
                out.append(self._slow(value))
                return
        if kind is dict:
            self._object(value, depth, out)
        else:
            self._array(value, out)

    def _dirty_keys(self, value: dict[Any, Any]) -> bool:
        """Whether a key of ``value`` itself fails ``clean`` (so encoding it whole is wasted)."""
        keys = [key for key in value if type(key) is str]
        return bool(keys) and not self.clean(
            json.dumps(keys, ensure_ascii=False).encode("utf-8", "backslashreplace")
        )

    def _object(self, value: dict[Any, Any], depth: int, out: list[bytes]) -> None:
        if any(type(key) is not str for key in value):
            out.append(self._slow(value))  # json's own spelling of non-str keys
            return
        out.append(b"{")
        for number, (key, item) in enumerate(value.items()):
            name = json.dumps(key, ensure_ascii=self.ensure_ascii)
            out.append((("," if number else "") + name + ":").encode("utf-8", "backslashreplace"))
            kind = type(item)
            if (kind is dict or kind is list) and self.descend(key):
                self._text(item, depth + 1, out)
            else:
                out.append(self.member(key, item).encode("utf-8", "backslashreplace"))
        out.append(b"}")

    def _array(self, value: list[Any], out: list[bytes]) -> None:
        size = max(1, -(-len(value) // SLICES))
        out.append(b"[")
        for start in range(0, len(value), size):
            chunk = value[start : start + size]
            raw = exact(chunk)
            if start:
                out.append(b",")
            if raw is not None and not holds(raw, b"null") and self.clean(raw):
                out.append(raw[1:-1])
            else:
                out.append(self._slow(chunk)[1:-1])
        out.append(b"]")
