"""The multiset diff's shortcuts for long arrays (compared in order first, fingerprints once per
step) report what the plain canonical-key comparison reports."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from cfn_debug.diff import Encodings, canonical_key, diff_models
from cfn_debug.records import ChangeKind
from cfn_debug.schema import load_schema

SCHEMA = load_schema(Path(__file__).parent / "fixtures" / "schemas" / "widget.json")


def _tags(count: int) -> list[dict[str, Any]]:
    return [{"Key": f"key-{i}", "Value": f"value-{i}"} for i in range(count)]


def _surplus(before: list[Any], after: list[Any]) -> tuple[Counter[str], Counter[str]]:
    old = Counter(canonical_key(v, SCHEMA, "/Tags/*") for v in before)
    new = Counter(canonical_key(v, SCHEMA, "/Tags/*") for v in after)
    return old - new, new - old


def _reported(before: list[Any], after: list[Any], encodings: Encodings | None = None) -> Any:
    changes = diff_models({"Tags": before}, {"Tags": after}, SCHEMA, encodings=encodings)
    removed = Counter(
        canonical_key(c.before, SCHEMA, "/Tags/*") for c in changes if c.kind is ChangeKind.REMOVED
    )
    added = Counter(
        canonical_key(c.after, SCHEMA, "/Tags/*") for c in changes if c.kind is ChangeKind.ADDED
    )
    for change in changes:  # each change names the element at its index
        index = int(change.pointer.rsplit("/", 1)[1])
        side = before if change.kind is ChangeKind.REMOVED else after
        assert change.before if change.kind is ChangeKind.REMOVED else change.after
        assert (change.before or change.after) == side[index]
    return removed, added


def test_one_value_changed_deep_in_a_long_unordered_array_is_found() -> None:
    before = _tags(3000)
    after = copy.deepcopy(before)
    after[1234]["Value"] = "changed"
    changes = diff_models({"Tags": before}, {"Tags": after}, SCHEMA)
    assert [(c.pointer, c.kind) for c in changes] == [
        ("/Tags/1234", ChangeKind.REMOVED),
        ("/Tags/1234", ChangeKind.ADDED),
    ]


def test_true_is_not_one_in_a_long_unordered_array() -> None:
    before = [{"Key": f"k{i}", "Value": 1} for i in range(1000)]
    after = copy.deepcopy(before)
    after[500]["Value"] = True  # == to Python, not to JSON
    assert [c.kind for c in diff_models({"Tags": before}, {"Tags": after}, SCHEMA)] == [
        ChangeKind.REMOVED,
        ChangeKind.ADDED,
    ]


def test_key_order_and_int_float_do_not_count_as_changes_in_a_long_array() -> None:
    before = _tags(500)
    after = [{"Value": t["Value"], "Key": t["Key"]} for t in reversed(before)]
    assert diff_models({"Tags": before}, {"Tags": after}, SCHEMA) == []
    numbers_before = [{"Key": f"k{i}", "Value": i} for i in range(500)]
    numbers_after = [{"Key": f"k{i}", "Value": float(i)} for i in range(500)]
    assert diff_models({"Tags": numbers_before}, {"Tags": numbers_after}, SCHEMA) == []


def test_a_shared_encodings_gives_the_same_answers_for_every_diff_of_a_step() -> None:
    before = _tags(400)
    after = copy.deepcopy(before)
    after[7]["Value"] = "x"
    requested = copy.deepcopy(after)
    encodings = Encodings()  # as build_step shares it: the arrays are fingerprinted once
    assert _reported(before, after, encodings) == _surplus(before, after)
    assert _reported(requested, after, encodings) == (Counter(), Counter())
    after.append({"Key": "new", "Value": "v"})  # a new step: a new Encodings
    assert _reported(before, after) == _surplus(before, after)


_mutation = st.tuples(
    st.sampled_from(["value", "bool", "drop", "add", "dup"]), st.integers(0, 10**6)
)


def _mutated(
    size: int, mutations: list[tuple[str, int]], shuffle: bool, rnd: Any
) -> tuple[list[Any], list[Any]]:
    """``size`` tags, and a copy with ``mutations`` applied (then shuffled if asked)."""
    before: list[Any] = _tags(size)
    after: list[Any] = json.loads(json.dumps(before))
    for kind, at in mutations:
        index = at % len(after)
        if kind == "value":
            after[index]["Value"] = f"v{at}"
        elif kind == "bool":
            after[index]["Value"] = at % 2 == 0
        elif kind == "drop" and len(after) > 1:
            del after[index]
        elif kind == "add":
            after.insert(index, {"Key": f"n{at}", "Value": "n"})
        elif kind == "dup":
            after.append(copy.deepcopy(after[index]))
    if shuffle:
        rnd.shuffle(after)
    return before, after


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.integers(256, 700),
    st.lists(_mutation, max_size=80),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_long_multisets_report_the_plain_surplus(
    size: int, mutations: list[tuple[str, int]], shuffle: bool, rnd: Any
) -> None:
    before, after = _mutated(size, mutations, shuffle, rnd)
    assert _reported(before, after) == _surplus(before, after)


def test_fingerprints_kept_across_steps_never_hide_a_change_made_in_place() -> None:
    """Fingerprints of long arrays are kept across steps keyed by the array's exact encoding:
    an array changed in place deep inside (same object, new content) is fingerprinted again."""
    before = _tags(600)
    after = list(reversed(copy.deepcopy(before)))  # reordered: the fingerprint path
    assert diff_models({"Tags": before}, {"Tags": after}, SCHEMA) == []
    after[10]["Value"] = "changed in place"  # the same list and dict objects, new content
    changes = diff_models({"Tags": before}, {"Tags": after}, SCHEMA)
    assert [(c.pointer, c.kind) for c in changes] == [
        ("/Tags/589", ChangeKind.REMOVED),
        ("/Tags/10", ChangeKind.ADDED),
    ]
    again = json.loads(json.dumps(after))  # a new object with the same content: same answer
    assert diff_models({"Tags": before}, {"Tags": again}, SCHEMA) == changes


def test_none_and_nan_encode_alike_but_are_never_taken_for_each_other() -> None:
    """The cross-step fingerprints are keyed by the exact encoding, where None and NaN are both
    null: an array holding either is never served the other's fingerprints."""
    with_none = [{"Key": f"k{i}", "Value": None} for i in range(300)]
    with_nan = [{"Key": f"k{i}", "Value": float("nan")} for i in range(300)]
    reordered = list(reversed(with_none))
    assert diff_models({"Tags": with_none}, {"Tags": reordered}, SCHEMA) == []
    changes = diff_models({"Tags": with_none}, {"Tags": list(reversed(with_nan))}, SCHEMA)
    assert len(changes) == 600


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    st.integers(256, 600),
    st.lists(_mutation, max_size=40),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_positions_looked_up_report_the_changes_a_scan_reports(
    size: int, mutations: list[tuple[str, int]], shuffle: bool, rnd: Any
) -> None:
    """The indices of the unpaired elements of a long array are looked up in a map of
    fingerprint to index (kept across steps) rather than scanned for: the same changes, in the
    same order, at the same pointers, as the scan."""
    before, after = _mutated(size, mutations, shuffle, rnd)
    looked_up = diff_models({"Tags": before}, {"Tags": after}, SCHEMA)
    again = diff_models({"Tags": before}, {"Tags": json.loads(json.dumps(after))}, SCHEMA)
    with mock.patch.object(Encodings, "positions", lambda self, values, wanted: None):
        scanned = diff_models({"Tags": before}, {"Tags": after}, SCHEMA)
    assert looked_up == scanned
    assert again == scanned  # the maps kept across steps (same content, new objects)
