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
from itertools import compress, islice
from operator import ne
from typing import Any

from cfn_debug.diff.encodings import _ALIGN_MAX_DIFFERENCES, _ALIGN_MIN, Encodings
from cfn_debug.records import Change, ChangeKind
from cfn_debug.schema import ResourceSchema, join_pointer
from cfn_debug.text.jsonfast import holds

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
        old, new = self.encodings.facts(before), self.encodings.facts(after)
        if old.pieces and new.pieces and old.prints is not None and new.prints is not None:
            # Python's == can differ only where the elements' encodings do (equal encodings
            # without null: equal values), so only those elements are compared by it; the answer
            # and when it is given up are the same as below, with the booleans found once per
            # content rather than by four scans of the encodings at every step.
            unequal = compress(range(common), map(ne, old.prints, new.prints))
            found = (i for i in unequal if before[i] != after[i])
            differing = list(islice(found, _ALIGN_MAX_DIFFERENCES + 1))
            if len(differing) > _ALIGN_MAX_DIFFERENCES:
                return None
            if self.encodings.booleans(old) or self.encodings.booleans(new):
                return None
            differing.extend(range(common, max(len(before), len(after))))
            return differing
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


_EXACT_SCALARS = frozenset({str, int, bool})


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
