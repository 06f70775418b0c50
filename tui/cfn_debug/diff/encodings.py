"""A step's exact JSON encodings of its models' parts, shared by the checks, the diffs and the
journal so that each part is encoded once; and what is known of long arrays across steps (their
elements' fingerprints cut out of one exact encoding, kept by content, never object identity)."""

from __future__ import annotations

import marshal
from collections import Counter
from collections.abc import Iterable
from itertools import compress, count, islice, repeat
from operator import ne
from typing import Any

from cfn_debug.text.jsonfast import exact, holds


class ArrayFacts:
    """What is known of one array's content, found once per step, and for a long array with an
    exact encoding without ``null`` once per content (kept across steps, see :func:`_recalled`).

    ``prints``: one fingerprint per element, or None if an element has none. Equal fingerprints
    mean equal elements (the same JSON, the same types at every leaf, keys in the same order),
    so equal canonical keys; different ones may still be equal values (key order, 1 and 1.0),
    which the keys settle. For an array of objects with such an encoding they are the elements'
    own encodings, cut out of the array's (:func:`_pieces`: one C pass); otherwise marshal's
    encodings (:func:`_fingerprints`). The two kinds never coincide (a piece is empty or starts
    with ``"``, a marshal encoding with its type code), so arrays fingerprinted differently only
    share no fingerprint.
    """

    __slots__ = (
        "_booleans",
        "_distinct",
        "_found",
        "_positions",
        "cost",
        "fingerprinted",
        "pieces",
        "prints",
        "raw",
        "serial",
        "unique",
    )

    def __init__(self, raw: bytes | None, prints: list[bytes] | None) -> None:
        self.raw = raw  # the array's exact encoding (no null) when kept across steps, else None
        self.prints = prints
        self.pieces = prints is not None  # prints cut out of raw: exact, cheap to compare
        self.fingerprinted = self.pieces  # marshal's prints are made when first asked for
        self.serial = next(_SERIALS)  # names this content in the pairs kept across steps
        self._distinct: tuple[set[bytes], bool] | None = None
        self._positions: dict[bytes, int] | None = None
        self._booleans: bool | None = None
        self._found: dict[bytes, int] = {}  # find(), a few
        self.unique: bool | None = None  # all fingerprints distinct (None: not known yet)
        self.cost = 0

    def booleans(self) -> bool:
        """Whether the encoding (kept: raw) holds ``true`` or ``false``, found once."""
        if self._booleans is None:
            raw = self.raw or b""
            self._booleans = holds(raw, b"true") or holds(raw, b"false")
        return self._booleans

    def distinct(self) -> tuple[set[bytes], bool]:
        """The set of the fingerprints and whether they are all distinct (made once; the set is
        never changed in place)."""
        if self._distinct is None:
            prints = self.prints or []
            found = set(prints)
            self._distinct = (found, len(found) == len(prints))
            self.unique = self._distinct[1]
            self.grown(40 * len(prints))
        return self._distinct

    def is_unique(self) -> bool:
        """Whether the fingerprints are all distinct (the set made if not known otherwise)."""
        if self.unique is None:
            self.distinct()
        return bool(self.unique)

    def find(self, fingerprint: bytes) -> int:
        """The index of a fingerprint's first occurrence, -1 if there is none, looked for once
        (a C scan comparing lengths first): a changed element is looked for by the shape check
        and by each diff."""
        found = self._found.get(fingerprint)
        if found is None:
            if self._distinct is not None and fingerprint not in self._distinct[0]:
                found = -1
            else:
                try:
                    found = (self.prints or []).index(fingerprint)
                except ValueError:
                    found = -1
            self._found[fingerprint] = found
        return found

    def has(self, fingerprint: bytes) -> bool:
        if self._distinct is not None:
            return fingerprint in self._distinct[0]
        return self.find(fingerprint) >= 0

    def positions(self) -> dict[bytes, int]:
        """Fingerprint -> index (the fingerprints all distinct), made once."""
        if self._positions is None:
            prints = self.prints or []
            self._positions = dict(zip(prints, range(len(prints)), strict=True))
            self.grown(80 * len(prints))
        return self._positions

    def grown(self, more: int) -> None:
        self.cost += more
        if self.raw is not None:
            _bounded()


def _pieces(values: list[Any], raw: bytes) -> list[bytes] | None:
    """The elements' exact encodings cut out of ``raw``, their array's (brace-less), when every
    element is an object: ``},{`` then occurs once between each two elements, so when it occurs
    exactly ``len - 1`` times it occurs nowhere else (not in a string, not in a nested array of
    objects) and splitting at it gives each element's encoding. None otherwise."""
    if len(values) < 2 or raw[:2] != b"[{" or raw[-2:] != b"}]":
        return None
    if set(map(type, values)) != {dict}:
        return None  # a string could hold the ``},{`` a non-object element's border lacks
    pieces = raw.split(b"},{")  # not of raw[2:-2]: no copy of the whole
    if len(pieces) != len(values):
        return None
    pieces[0] = pieces[0][2:]
    pieces[-1] = pieces[-1][:-2]
    return pieces


_SERIALS = count()
#: Facts of recent long arrays, most recently used first, found by their exact encoding (equal
#: bytes, equal elements in the same order: the facts hold).
_RECENT: list[ArrayFacts] = []
#: ... at most about this many bytes in all (ArrayFacts.cost): they outlive the session's runs,
#: and 8 arrays of 250,000 short strings once held ~500 MB for good.
_RECENT_BYTES = 64 * 1024 * 1024
_RECENT_LIMIT = 8
#: The unpaired fingerprints of recent pairs of kept arrays, by their serials (smaller first):
#: the request and the previous step's model, compared last step, give with this step's
#: comparison of the previous model and the new one what the request and the new one differ in.
_RECENT_PAIRS: dict[tuple[int, int], set[bytes]] = {}
_PAIRS_KEPT = 16
_FEW_WANTED = 8  # positions: fingerprints looked for by list.index rather than in a map
_PAIR_MAX = 4096  # fingerprints in a pair kept (a few changes; a much changed pair is not kept)


def _recalled(raw: bytes) -> ArrayFacts | None:
    """The kept facts of the array encoded as ``raw`` (compared as bytes: by length, then by
    content), made the most recently used."""
    for index, facts in enumerate(_RECENT):
        if facts.raw == raw:
            if index:
                del _RECENT[index]
                _RECENT.insert(0, facts)
            return facts
    return None


def _used(facts: ArrayFacts) -> None:
    """Make kept facts the most recently used (each use in a step counts, so that the request's
    and the last models' facts outlive those of older models)."""
    if _RECENT and _RECENT[0] is not facts and facts in _RECENT:
        _RECENT.remove(facts)
        _RECENT.insert(0, facts)


def _kept(facts: ArrayFacts) -> None:
    _RECENT.insert(0, facts)
    _bounded()


def _bounded() -> None:
    """Drop the least recently used facts beyond the count or byte bound (the newest is kept
    whatever its size while it is in use: its step holds it anyway)."""
    while len(_RECENT) > 1 and (
        len(_RECENT) > _RECENT_LIMIT or sum(f.cost for f in _RECENT) > _RECENT_BYTES
    ):
        gone = _RECENT.pop()
        for pair in [p for p in _RECENT_PAIRS if gone.serial in p]:
            del _RECENT_PAIRS[pair]
    if len(_RECENT) == 1 and _RECENT[0].cost > _RECENT_BYTES:
        _RECENT.clear()


def _alive() -> dict[int, ArrayFacts]:
    """The kept facts that are fingerprinted, by serial."""
    return {f.serial: f for f in _RECENT if f.fingerprinted and f.prints is not None}


def _composed(old: ArrayFacts, new: ArrayFacts) -> set[bytes] | None:
    """The unpaired fingerprints of ``old`` and ``new`` (both kept, fingerprinted, all
    distinct) as the symmetric difference of two kept pairs through a third array, if there
    are two such pairs (no pass over any array); None otherwise."""
    alive = _alive()
    partners: dict[int, dict[int, set[bytes]]] = {old.serial: {}, new.serial: {}}
    for pair, found in _RECENT_PAIRS.items():
        for one, other in (pair, pair[::-1]):
            if one in partners and other in alive and other not in partners:
                partners[one][other] = found
    for third in reversed(partners[old.serial]):
        if third in partners[new.serial]:
            return partners[old.serial][third] ^ partners[new.serial][third]
    return None


def _aligned_pair(known: ArrayFacts, other: ArrayFacts) -> set[bytes] | None:
    """The unpaired fingerprints of two arrays of the same length, ``known`` all distinct, that
    differ at a few indices (in order, by their pieces: C loops), or None. The fingerprints
    equal at their index are common to both; with ``known``'s distinct, those it has at the
    other indices are not among them, and ``other``'s there are not either unless ``known``
    has one elsewhere (then ``other`` repeats it: None). So ``other``'s are all distinct too
    (remembered), and the symmetric difference of the two sets is that of the few."""
    if known.unique is not True or not (known.pieces and other.pieces):
        return None
    mine, theirs = known.prints or [], other.prints or []
    if len(mine) != len(theirs):
        return None
    unequal = compress(range(len(mine)), map(ne, mine, theirs))
    at = list(islice(unequal, _ALIGN_MAX_DIFFERENCES + 1))
    if len(at) > _ALIGN_MAX_DIFFERENCES:
        return None
    gone = {mine[i] for i in at}
    came = [theirs[i] for i in at]
    new = set(came)
    if len(new) != len(came) or any(known.has(p) for p in new - gone):
        return None
    if other.unique is None:
        other.unique = True
    for index in at:  # where each of the few is, or that it is not there: no scan for them
        known._found.setdefault(mine[index], index)
        other._found.setdefault(theirs[index], index)
    for piece in gone - new:
        other._found.setdefault(piece, -1)
    for piece in new - gone:
        known._found.setdefault(piece, -1)
    return gone ^ new


def _pair_key(a: ArrayFacts, b: ArrayFacts) -> tuple[int, int]:
    return (a.serial, b.serial) if a.serial < b.serial else (b.serial, a.serial)


#: A multiset of at least this many elements is first compared in order (_aligned_differences),
#: and kept to that comparison when at most this many elements differ.
_ALIGN_MIN = 256
_ALIGN_MAX_DIFFERENCES = 64


def _fingerprints(values: list[Any]) -> list[bytes] | None:
    """An exact encoding of each value (marshal, no shared references), or None if one has none.

    Equal bytes mean the same types and values in the same order, so equal canonical keys;
    different bytes may still be equal values (key order, 1 and 1.0), which the keys settle.
    """
    try:
        return list(map(marshal.dumps, values, repeat(2)))
    except ValueError:
        return None


class Encodings:
    """Exact encodings (:func:`cfn_debug.text.jsonfast.exact`) of the containers diffs compare, and
    the facts (:class:`ArrayFacts`) of the arrays they compare as multisets.

    Share one between the diffs and checks of one step (the returned model is compared with the
    request, with the previous step's model and with what was requested, and checked against the
    schema) and its journal line: each large model is then encoded, and each long array
    fingerprinted, once. Keyed by ``id`` and holding the objects, so no id is reused while it
    lives; drop it with the step's event, since a model mutated afterwards would keep its old
    encoding. ``seeds``: encodings made already, as :meth:`seed` takes them.
    """

    def __init__(self, seeds: Iterable[tuple[Any, bytes]] = ()) -> None:
        self._known: dict[int, tuple[Any, bytes | None]] = {}
        for value, raw in seeds:
            self._known[id(value)] = (value, raw)
        self._facts: dict[int, tuple[Any, ArrayFacts]] = {}
        self._pairs: dict[tuple[int, int], set[bytes]] = {}  # unpaired sets, by facts serials

    def facts(self, values: list[Any]) -> ArrayFacts:
        """The facts of an array, found once per step; a long array's (at least _ALIGN_MIN
        elements) with an exact encoding without ``null`` are kept across steps by that
        encoding, so an array parsed afresh with the same content is not fingerprinted again.
        (None and NaN both encode as null: an array holding one is fingerprinted each step.)"""
        known = self._facts.get(id(values))
        if known is not None:
            if known[1].raw is not None:
                _used(known[1])
            return known[1]
        raw = self.of(values) if len(values) >= _ALIGN_MIN else None
        facts = _recalled(raw) if raw is not None else None  # kept: no null (no scan)
        if facts is None and raw is not None and holds(raw, b"null"):
            raw = None
        if facts is None:
            facts = ArrayFacts(raw, _pieces(values, raw) if raw is not None else None)
            if raw is not None:
                facts.cost = 2 * len(raw) + 48 * len(values)
                _kept(facts)
        self._facts[id(values)] = (values, facts)
        return facts

    def fingerprints(self, values: list[Any]) -> list[bytes] | None:
        """:attr:`ArrayFacts.prints` of an array (see :meth:`facts`), marshal's made now if
        they are not yet (once per step, or once per content for a kept array)."""
        return self._printed(values).prints

    def _printed(self, values: list[Any]) -> ArrayFacts:
        """:meth:`facts`, fingerprinted."""
        facts = self.facts(values)
        if not facts.fingerprinted:
            facts.prints = _fingerprints(values)
            facts.fingerprinted = True
            if facts.raw is not None and facts.prints is not None:
                facts.grown(sum(map(len, facts.prints)))
        return facts

    def unpaired(self, before: list[Any], after: list[Any]) -> set[bytes]:
        """The fingerprints not as frequent in ``after`` as in ``before`` (both fingerprinted).

        Sets where every fingerprint is distinct on both sides (the usual case: C loops only),
        counts otherwise; each array's set or count is made once per content. Between two kept
        arrays the answer is kept too, and when one of them was compared with a third kept array
        (the request with the previous step's model) the answer is the symmetric difference of
        that pair's and the other pair's: fingerprints distinct on all sides, the unpaired ones
        are the symmetric difference of the two sets, and that operation is associative.
        """
        return self._unpaired(self._printed(before), self._printed(after))

    def _unpaired(self, old: ArrayFacts, new: ArrayFacts) -> set[bytes]:
        if old.raw is not None and new.raw is not None and old.pieces and new.pieces:
            # kept arrays of objects: known, composed, or told by an in-order comparison
            # through an array compared with one of them before (no set of either made)
            key = _pair_key(old, new)
            found = self._pairs.get(key)
            found = _RECENT_PAIRS.get(key) if found is None else found
            found = _composed(old, new) if found is None else found
            found = self._through_aligned(old, new) if found is None else found
            if found is not None:
                self._remember_pair(key, found)
                return found
        old_set, old_unique = old.distinct()
        new_set, new_unique = new.distinct()
        if not (old_unique and new_unique):
            old_count, new_count = Counter(old.prints), Counter(new.prints)
            return set(old_count - new_count) | set(new_count - old_count)
        key = _pair_key(old, new)
        found = self._pairs.get(key)
        if found is not None:
            return found
        if old.raw is None or new.raw is None:  # not kept: this step's only
            found = self._pairs[key] = old_set ^ new_set
            return found
        found = _RECENT_PAIRS.get(key)
        if found is None:
            found = self._through_a_third(old, new)
            if found is None:
                found = old_set ^ new_set
        self._remember_pair(key, found)
        return found

    def elements_beyond(self, values: list[Any], reference: ArrayFacts) -> list[Any] | None:
        """The elements of ``values`` (a long array with kept facts) whose fingerprint the kept
        array ``reference`` lacks, in order; every other element equals one of ``reference``'s.
        None when that cannot be told cheaply (a fingerprint twice on a side, none at all)."""
        facts = self._printed(values)
        if facts.prints is None or facts.raw is None:
            return None
        if not reference.fingerprinted or reference.prints is None or reference.raw is None:
            return None
        # a fingerprint of values the reference lacks is unpaired (as sets or as counts), and
        # equal fingerprints are equal elements: one of each is enough
        unpaired = self._unpaired(reference, facts)
        if len(unpaired) <= _FEW_WANTED:
            at = sorted(i for i in map(facts.find, unpaired) if i >= 0)
        else:
            known = facts.positions()
            at = sorted(known[p] for p in unpaired if p in known)
        return [values[i] for i in at]

    def kept(self) -> list[ArrayFacts]:
        """The facts kept across steps, most recently used first."""
        return list(_RECENT)

    def _through_a_third(self, old: ArrayFacts, new: ArrayFacts) -> set[bytes] | None:
        """``old`` against ``new`` through a third kept array: the symmetric difference of the
        kept pairs (old, third) and (third, new) when both are kept (no pass over the arrays);
        else through the most recent kept pair of one of them with a third, the other pair made
        now (one set operation, as the direct answer would cost) and kept, for a comparison of
        the third with the other to come (the previous step's model with the new one)."""
        found = _composed(old, new)
        if found is not None:
            return found
        alive = _alive()
        # the third kept longest first: the request's array, compared with every new model
        for third, pair, other in sorted(
            (pair[0] if pair[1] == one.serial else pair[1], pair, other)
            for pair in _RECENT_PAIRS
            for one, other in ((old, new), (new, old))
            if one.serial in pair and other.serial not in pair
        ):
            facts = alive.get(third)
            if facts is None or not facts.distinct()[1]:
                continue
            first, second = _RECENT_PAIRS[pair], facts.distinct()[0] ^ other.distinct()[0]
            self._remember_pair(_pair_key(facts, other), second)
            return first ^ second
        return None

    def _through_aligned(self, old: ArrayFacts, new: ArrayFacts) -> set[bytes] | None:
        """``old`` against ``new`` (kept arrays of objects) by an in-order comparison
        (:func:`_aligned_pair`), of the two or of one with a third kept array paired with the
        other before (the model two steps back, in the same order): no set made."""
        for first, second in ((old, new), (new, old)):
            found = _aligned_pair(first, second)
            if found is not None:
                return found
        alive = _alive()
        for pair in reversed(list(_RECENT_PAIRS)):
            for one, other in ((old, new), (new, old)):
                if one.serial not in pair or other.serial in pair:
                    continue
                third = alive.get(pair[0] if pair[1] == one.serial else pair[1])
                if third is None or not third.pieces:
                    continue
                second = _aligned_pair(third, other)
                second = _aligned_pair(other, third) if second is None else second
                if second is not None:
                    first = _RECENT_PAIRS[pair]
                    self._remember_pair(_pair_key(third, other), second)
                    return first ^ second
        return None

    def booleans(self, facts: ArrayFacts) -> bool:
        """Whether a kept array's encoding holds ``true`` or ``false``
        (:meth:`ArrayFacts.booleans`), told without a scan where it can be: when a kept array
        whose encoding holds neither is paired with it at no cost (both fingerprinted, all
        distinct), only the elements it lacks can hold one (a mark never straddles two elements'
        encodings: their border is ``},{``)."""
        if facts._booleans is None and facts.pieces and facts.raw is not None:
            for known in _RECENT if facts.is_unique() else ():
                if known is facts or known._booleans is not False or not known.pieces:
                    continue
                if not known.is_unique():
                    continue
                key = _pair_key(known, facts)
                found = self._pairs.get(key)
                found = _RECENT_PAIRS.get(key) if found is None else found
                found = _composed(known, facts) if found is None else found
                if found is not None:
                    facts._booleans = any(
                        b"true" in piece or b"false" in piece for piece in found if facts.has(piece)
                    )
                    break
        return facts.booleans()

    def _remember_pair(self, key: tuple[int, int], found: set[bytes]) -> None:
        self._pairs[key] = found
        if len(found) > _PAIR_MAX:
            return
        _RECENT_PAIRS.pop(key, None)
        _RECENT_PAIRS[key] = found
        while len(_RECENT_PAIRS) > _PAIRS_KEPT:
            del _RECENT_PAIRS[next(iter(_RECENT_PAIRS))]

    def positions(self, values: list[Any], wanted: set[bytes]) -> list[int] | None:
        """The indices, ascending, of the elements of ``values`` (fingerprinted) whose
        fingerprint is in ``wanted``; None when two of its fingerprints are equal (the caller
        then scans). A few wanted fingerprints (the usual case: a few changes) are looked for
        by ``list.index`` (C loops comparing lengths first); more are looked up in a map of
        fingerprint to index made once per content (:meth:`ArrayFacts.positions`). None too
        for a short array (a scan costs less)."""
        if len(values) < _ALIGN_MIN:
            return None
        facts = self._printed(values)
        prints = facts.prints
        if prints is None or not facts.is_unique():
            return None
        if len(wanted) <= _FEW_WANTED:
            return sorted(i for i in map(facts.find, wanted) if i >= 0)
        found = facts.positions()
        return sorted(found[p] for p in wanted if p in found)

    def seed(self, value: Any, raw: bytes) -> None:
        """Take ``raw`` as ``value``'s encoding (``jsonfast.exact(value)``, made this step by
        another part: the request body's, ``invoke.base.encode_request``)."""
        self._known[id(value)] = (value, raw)

    def of(self, value: Any) -> bytes | None:
        known = self._known.get(id(value))
        if known is not None:
            return known[1]
        raw = exact(value)
        self._known[id(value)] = (value, raw)
        return raw
