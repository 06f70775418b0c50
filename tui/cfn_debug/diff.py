"""Schema-aware model diff: what changed between two resource models, keyed by JSON pointer.

Objects are compared key by key and arrays index by index, recursively, so a change deep inside
a model is reported at its own pointer (``/Config/Rules/0/Name``), not as "Config changed".
Arrays whose schema says ``insertionOrder: false`` are compared as multisets: only the elements
that appear more often on one side are reported (removed at their index in ``before``, added at
their index in ``after``), never an index shuffle. Multiset elements are compared with their own
nested unordered arrays sorted, so order never matters at any depth below such an array.

Scalars compare as JSON values: ``1`` equals ``1.0``, but ``true`` never equals ``1``.
"""

from __future__ import annotations

import json
import marshal
from collections import Counter
from collections.abc import Iterable
from itertools import compress, islice, repeat
from operator import ne
from typing import Any

from cfn_debug.jsonfast import exact, holds
from cfn_debug.records import Change, ChangeKind
from cfn_debug.schema import ResourceSchema, join_pointer

MULTISET_NOTE = "insertionOrder false: compared as a multiset"

#: Classes worth a note on a change, in the order the note lists them.
NOTED_CLASSES = (
    "primaryIdentifier",
    "additionalIdentifier",
    "readOnly",
    "writeOnly",
    "createOnly",
    "deprecated",
)


class Encodings:
    """Exact encodings (:func:`cfn_debug.jsonfast.exact`) of the containers diffs compare.

    Share one between the diffs of one step (the returned model is compared with the request,
    with the previous step's model and with what was requested): each large model is then encoded
    once. Keyed by ``id`` and holding the objects, so no id is reused while it lives; drop it with
    the step, since a model mutated afterwards would keep its old encoding.
    """

    def __init__(self) -> None:
        self._known: dict[int, tuple[Any, bytes | None]] = {}
        self._prints: dict[int, tuple[Any, list[bytes] | None]] = {}
        self._sets: dict[int, tuple[set[bytes], bool]] = {}  # by id of an array in _prints
        self._positions: dict[int, dict[bytes, int]] = {}  # by id of an array in _prints
        self._content: dict[int, bytes] = {}  # by id of an array in _known; b"": no key

    def fingerprints(self, values: list[Any]) -> list[bytes] | None:
        """:func:`_fingerprints` of an array, computed once per step (an unordered array of the
        returned model is compared with the request, the previous model and what was asked),
        and for a long array once per content: the last few long arrays' fingerprints are kept
        across steps keyed by their exact encoding (the previous step's model, the request),
        so an array parsed afresh with the same content is not fingerprinted again."""
        known = self._prints.get(id(values))
        if known is not None:
            return known[1]
        raw = self._content_key(values)
        prints = _recall(_RECENT_PRINTS, raw)
        if prints is None:
            prints = _fingerprints(values)
            if raw is not None and prints is not None:
                _remember(_RECENT_PRINTS, raw, prints)
        self._prints[id(values)] = (values, prints)
        return prints

    def unpaired(self, before: list[Any], after: list[Any]) -> set[bytes]:
        """The fingerprints not as frequent in ``after`` as in ``before`` (both fingerprinted).

        Sets where every fingerprint is distinct on both sides (the usual case: C loops only),
        counts otherwise; each array's set or count is made once per step.
        """
        old_set, old_unique = self._distinct(before)
        new_set, new_unique = self._distinct(after)
        if old_unique and new_unique:
            return old_set ^ new_set
        old_count, new_count = (
            Counter(self._prints[id(before)][1]),
            Counter(self._prints[id(after)][1]),
        )
        return set(old_count - new_count) | set(new_count - old_count)

    def positions(self, values: list[Any], wanted: set[bytes]) -> list[int] | None:
        """The indices, ascending, of the elements of ``values`` (fingerprinted, its set made by
        ``unpaired``) whose fingerprint is in ``wanted``; None when two of its fingerprints are
        equal (the caller then scans). Found by looking each wanted fingerprint up in a map of
        fingerprint to index, made once per step and kept across steps like the sets, instead
        of a pass over the whole array for each comparison. None too for a short array (a
        scan costs less than the map)."""
        if len(values) < _ALIGN_MIN or not self._distinct(values)[1]:
            return None
        found = self._positions.get(id(values))
        if found is None:
            raw = self._content_key(values)
            found = _recall(_RECENT_POSITIONS, raw)
            if found is None:
                prints = self._prints[id(values)][1] or []
                found = dict(zip(prints, range(len(prints)), strict=True))
                if raw is not None:
                    _remember(_RECENT_POSITIONS, raw, found)
            self._positions[id(values)] = found
        return sorted(found[p] for p in wanted if p in found)

    def _distinct(self, values: list[Any]) -> tuple[set[bytes], bool]:
        """The set of an array's fingerprints and whether they are all distinct (kept across
        steps like the fingerprints; the set is never changed in place)."""
        known = self._sets.get(id(values))
        if known is None:
            raw = self._content_key(values)
            known = _recall(_RECENT_SETS, raw)
            if known is None:
                prints = self._prints[id(values)][1] or []
                distinct = set(prints)
                known = (distinct, len(distinct) == len(prints))
                if raw is not None:
                    _remember(_RECENT_SETS, raw, known)
            self._sets[id(values)] = known
        return known

    def _content_key(self, values: list[Any]) -> bytes | None:
        """A long array's exact encoding, the key of what is kept across steps; None for a short
        array or one with a null (None and NaN both encode as null, and fingerprint apart)."""
        if len(values) < _ALIGN_MIN:
            return None
        known = self._content.get(id(values))  # asked for several times a step: scanned once
        if known is None:
            raw = self.of(values)  # the array is held by _known: its id is not reused
            known = self._content[id(values)] = (
                raw if raw is not None and not holds(raw, b"null") else b""
            )
        return known or None

    def of(self, value: Any) -> bytes | None:
        known = self._known.get(id(value))
        if known is not None:
            return known[1]
        raw = exact(value)
        self._known[id(value)] = (value, raw)
        return raw


#: The last steps build_step made, each with the Encodings its redaction and diffs used (newest
#: first): the journal writes a step's models from those bytes instead of encoding them again.
_STEP_ENCODINGS: list[tuple[Any, Encodings]] = []
_STEPS_KEPT = 2


def remember_step_encodings(step: Any, encodings: Encodings) -> None:
    """Keep ``encodings`` for the journal line of ``step`` (build_step calls it as it returns
    the step; nothing changes a step's models afterwards)."""
    _STEP_ENCODINGS.insert(0, (step, encodings))
    del _STEP_ENCODINGS[_STEPS_KEPT:]


def step_encodings(step: Any) -> Encodings | None:
    """The Encodings ``step`` was built with, if it is one of the last few steps built."""
    for known, encodings in _STEP_ENCODINGS:
        if known is step:
            return encodings
    return None


def diff_models(
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
    schema: ResourceSchema | None,
    *,
    encodings: Encodings | None = None,
) -> list[Change]:
    """Every difference from ``before`` to ``after``; ``None`` is an empty model.

    Applying the changes to ``before`` in order (removals of array elements from the highest
    index down) gives ``after`` for ordered data. ``encodings``: see :class:`Encodings`.
    """
    differ = _Differ(schema, encodings or Encodings())
    if before is None and after is None:
        return []
    if not isinstance(before, dict | None) or not isinstance(after, dict | None):
        if _same(before, after):
            return []
        return [Change("", ChangeKind.CHANGED, before, after, differ.note(""))]
    differ.walk(before or {}, after or {}, "", "")
    return differ.changes


class _Differ:
    def __init__(self, schema: ResourceSchema | None, encodings: Encodings) -> None:
        self.schema = schema
        self.encodings = encodings
        self.changes: list[Change] = []
        self._notes: dict[str, str] = {}

    def note(self, pattern: str, *extra: str) -> str:
        """The property classes of a pointer pattern (cached), then ``extra``."""
        base = self._notes.get(pattern)
        if base is None:
            base = ""
            if self.schema is not None:
                classes = self.schema.classes_of_pattern(pattern)
                base = ", ".join(c for c in NOTED_CLASSES if c in classes)
            if len(self._notes) < 4096:
                self._notes[pattern] = base
        return "; ".join(p for p in (base, *extra) if p)

    def walk(self, before: Any, after: Any, pointer: str, pattern: str) -> None:
        """Compare two values at ``pointer``; ``pattern`` is the pointer with ``*`` indices."""
        if isinstance(before, dict) and isinstance(after, dict):
            self._objects(before, after, pointer, pattern)
        elif isinstance(before, list) and isinstance(after, list):
            if self.schema is not None and self.schema.unordered_at(pattern):
                self._multiset(before, after, pointer, pattern)
            else:
                self._sequence(before, after, pointer, pattern)
        elif not _same(before, after):
            self.changes.append(
                Change(pointer, ChangeKind.CHANGED, before, after, self.note(pattern))
            )

    def _objects(
        self, before: dict[str, Any], after: dict[str, Any], pointer: str, pattern: str
    ) -> None:
        for key, old in before.items():
            if key not in after:
                child, child_pattern = join_pointer(pointer, key), join_pointer(pattern, key)
                self.changes.append(
                    Change(child, ChangeKind.REMOVED, old, None, self.note(child_pattern))
                )
                continue
            new = after[key]
            if not _identical(old, new, self.encodings):
                self.walk(old, new, join_pointer(pointer, key), join_pointer(pattern, key))
        for key, new in after.items():
            if key not in before:
                child, child_pattern = join_pointer(pointer, key), join_pointer(pattern, key)
                self.changes.append(
                    Change(child, ChangeKind.ADDED, None, new, self.note(child_pattern))
                )

    def _aligned_differences(self, before: list[Any], after: list[Any]) -> list[int] | None:
        """The indices where two arrays that are mostly equal in order differ, or None.

        Python's ``==`` (C loops) is exact here unless a ``true``/``false`` could meet a ``1`` or
        ``0``; so it is used only when neither array's exact encoding holds a boolean. None
        (use the fingerprints) when that cannot be told or more than a few elements differ, as
        in a reordered array.
        """
        common = min(len(before), len(after))
        if common < _ALIGN_MIN:
            return None
        found = compress(range(common), map(ne, before[:common], after[:common]))
        differing = list(islice(found, _ALIGN_MAX_DIFFERENCES + 1))
        if len(differing) > _ALIGN_MAX_DIFFERENCES:
            return None  # reordered, or much changed: the fingerprints tell
        raw_before, raw_after = self.encodings.of(before), self.encodings.of(after)
        if raw_before is None or raw_after is None:
            return None
        if any(holds(raw, b) for raw in (raw_before, raw_after) for b in (b"true", b"false")):
            return None
        differing.extend(range(common, max(len(before), len(after))))
        return differing

    def _sequence(self, before: list[Any], after: list[Any], pointer: str, pattern: str) -> None:
        items = pattern + "/*"
        common = min(len(before), len(after))
        for index in _candidates(before, after, common):
            if not _identical(before[index], after[index], self.encodings):
                self.walk(before[index], after[index], join_pointer(pointer, index), items)
        for index in range(len(before) - 1, common - 1, -1):
            child = join_pointer(pointer, index)
            self.changes.append(
                Change(child, ChangeKind.REMOVED, before[index], None, self.note(items))
            )
        for index in range(common, len(after)):
            child = join_pointer(pointer, index)
            self.changes.append(
                Change(child, ChangeKind.ADDED, None, after[index], self.note(items))
            )

    def _multiset(self, before: list[Any], after: list[Any], pointer: str, pattern: str) -> None:
        item_pattern = pattern + "/*"
        aligned = self._aligned_differences(before, after)
        if aligned is not None:
            old_prints = new_prints = None
            if not aligned:
                return
        else:
            old_prints = self.encodings.fingerprints(before)
            new_prints = self.encodings.fingerprints(after)
        if aligned is not None:
            # the same elements at the same indices pair off; the rest need canonical keys
            old_keys = {
                i: canonical_key(before[i], self.schema, item_pattern)
                for i in aligned
                if i < len(before)
            }
            new_keys = {
                i: canonical_key(after[i], self.schema, item_pattern)
                for i in aligned
                if i < len(after)
            }
        elif old_prints is not None and new_prints is not None:
            touched = self.encodings.unpaired(before, after)
            if not touched:
                return  # equal fingerprints pair off into equal elements: nothing to report
            # A fingerprint as frequent on both sides pairs off into equal elements, which can
            # never be reported: only the elements of the other fingerprints need canonical
            # keys (once per distinct fingerprint: equal prints, equal keys), found by C loops.
            keys: dict[bytes, str] = {}
            old_at = self.encodings.positions(before, touched)
            new_at = self.encodings.positions(after, touched)
            old_keys = {
                i: _key_of(keys, old_prints[i], before[i], self.schema, item_pattern)
                for i in (
                    old_at
                    if old_at is not None
                    else compress(range(len(before)), map(touched.__contains__, old_prints))
                )
            }
            new_keys = {
                i: _key_of(keys, new_prints[i], after[i], self.schema, item_pattern)
                for i in (
                    new_at
                    if new_at is not None
                    else compress(range(len(after)), map(touched.__contains__, new_prints))
                )
            }
        else:
            old_keys = {
                i: canonical_key(v, self.schema, item_pattern) for i, v in enumerate(before)
            }
            new_keys = {i: canonical_key(v, self.schema, item_pattern) for i, v in enumerate(after)}
        surplus_old = Counter(old_keys.values()) - Counter(new_keys.values())
        surplus_new = Counter(new_keys.values()) - Counter(old_keys.values())
        removed: list[int] = []
        for index in reversed(old_keys):  # ascending keys: highest index first
            if surplus_old[old_keys[index]] > 0:
                surplus_old[old_keys[index]] -= 1
                removed.append(index)
        for index in removed:  # highest index first, so removals apply in order
            child = join_pointer(pointer, index)
            self.changes.append(
                Change(
                    child,
                    ChangeKind.REMOVED,
                    before[index],
                    None,
                    self.note(item_pattern, MULTISET_NOTE),
                )
            )
        for index, key in new_keys.items():
            if surplus_new[key] > 0:
                surplus_new[key] -= 1
                child = join_pointer(pointer, index)
                self.changes.append(
                    Change(
                        child,
                        ChangeKind.ADDED,
                        None,
                        after[index],
                        self.note(item_pattern, MULTISET_NOTE),
                    )
                )


#: Fingerprints of recent long arrays, keyed by the array's exact encoding (equal bytes, equal
#: elements in the same order: the fingerprints hold). Least recently used dropped first.
_RECENT_PRINTS: dict[bytes, list[bytes]] = {}
_RECENT_SETS: dict[bytes, tuple[set[bytes], bool]] = {}
_RECENT_POSITIONS: dict[bytes, dict[bytes, int]] = {}
_RECENT_LIMIT = 8
#: ... and at most about this many bytes each (_cost): they outlive the session's runs, and 8
#: arrays of 250,000 short strings held ~500 MB for good.
_RECENT_BYTES = 64 * 1024 * 1024


def _cost(
    entry: tuple[bytes, list[bytes] | tuple[set[bytes], bool] | dict[bytes, int]],
) -> int:
    """Bytes an entry holds, about: its key, the elements' encodings, ~64 B per element (a
    position map's ~100 B: a dict entry and an int)."""
    raw, value = entry
    if isinstance(value, dict):
        return 2 * len(raw) + 100 * len(value)
    return 2 * len(raw) + 64 * len(value if isinstance(value, list) else value[0])


def _recall(recent: dict[bytes, Any], raw: bytes | None) -> Any:
    """What is kept under ``raw`` (None if nothing), made the most recently used."""
    if raw is None or raw not in recent:
        return None
    recent[raw] = value = recent.pop(raw)
    return value


def _remember(recent: dict[bytes, Any], raw: bytes, value: Any) -> None:
    """Keep ``value`` under ``raw``, least recently used dropped first; an entry over the bound
    is not kept."""
    if _cost((raw, value)) > _RECENT_BYTES:
        return
    recent[raw] = value
    while len(recent) > _RECENT_LIMIT or sum(map(_cost, recent.items())) > _RECENT_BYTES:
        del recent[next(iter(recent))]


_EXACT_SCALARS = frozenset({str, int, bool})
#: A multiset of at least this many elements is first compared in order (_aligned_differences),
#: and kept to that comparison when at most this many elements differ.
_ALIGN_MIN = 256
_ALIGN_MAX_DIFFERENCES = 64


def _candidates(before: list[Any], after: list[Any], common: int) -> Iterable[int]:
    """The indices below ``common`` where the two arrays may differ.

    An index is left out only when both elements have the same type, one of str/int/bool, and
    are equal: nothing to report there. Found by C loops (one long array of strings or numbers
    with a single change then costs no Python call per element).
    """
    head_before, head_after = before[:common], after[:common]
    types = list(map(type, head_before))
    if types != list(map(type, head_after)) or not set(types) <= _EXACT_SCALARS:
        return range(common)
    return compress(range(common), map(ne, head_before, head_after))


def _fingerprints(values: list[Any]) -> list[bytes] | None:
    """An exact encoding of each value (marshal, no shared references), or None if one has none.

    Equal bytes mean the same types and values in the same order, so equal canonical keys;
    different bytes may still be equal values (key order, 1 and 1.0), which the keys settle.
    """
    try:
        return list(map(marshal.dumps, values, repeat(2)))
    except ValueError:
        return None


def _key_of(
    cache: dict[bytes, str],
    fingerprint: bytes,
    value: Any,
    schema: ResourceSchema | None,
    pattern: str,
) -> str:
    key = cache.get(fingerprint)
    if key is None:
        key = cache[fingerprint] = canonical_key(value, schema, pattern)
    return key


def canonical_key(value: Any, schema: ResourceSchema | None, pattern: str) -> str:
    """A string equal for two values that are equal as the schema sees them.

    Object keys are sorted; arrays below ``pattern`` that the schema marks insertionOrder false
    have their elements sorted (by their own canonical keys), at any depth.
    """
    if schema is None or not schema.has_unordered_below(pattern):
        return _dumps(value)
    return _dumps(_canonical(value, schema, pattern))


def _canonical(value: Any, schema: ResourceSchema, pattern: str) -> Any:
    if not schema.has_unordered_below(pattern):
        return value
    if isinstance(value, dict):
        return {k: _canonical(v, schema, join_pointer(pattern, k)) for k, v in value.items()}
    if isinstance(value, list):
        items = [_canonical(v, schema, pattern + "/*") for v in value]
        if schema.unordered_at(pattern):
            return sorted(items, key=_dumps)
        return items
    return value


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)


def _same(a: Any, b: Any) -> bool:
    """JSON equality of two scalars (or mismatched kinds): booleans are not numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b


def _identical(a: Any, b: Any, encodings: Encodings) -> bool:
    """A fast, safe "nothing to report below here": Python equality confirmed by an encoding.

    Python's ``==`` says ``True == 1``; the JSON encoding tells them apart. When the two
    disagree (or the value cannot be encoded) the caller walks the values to find out.
    """
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict | list):
        # orjson (strict: see jsonfast.exact) tells true from 1 and 1 from 1.0, some five times
        # faster than marshal, and each model is encoded once per step (encodings). Equal bytes
        # without a null are equal values (only NaN and None are written as null).
        raw_a = encodings.of(a)
        raw_b = encodings.of(b) if raw_a is not None else None
        if raw_a is not None and raw_b is not None:
            if raw_a != raw_b:
                return False
            return not holds(raw_a, b"null") or a == b
        if a != b:
            return False
        # marshal (version 2: no shared references) is an exact encoding that tells true from
        # 1, several times faster than JSON; equal bytes imply equal JSON encodings
        try:
            return marshal.dumps(a, 2) == marshal.dumps(b, 2)
        except ValueError:
            pass
        try:
            return json.dumps(a) == json.dumps(b)
        except (TypeError, ValueError):
            return False
    return a == b
