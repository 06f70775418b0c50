"""The schema-aware model diff."""

from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cfn_debug.diff import MULTISET_NOTE, canonical_key, diff_models
from cfn_debug.records import Change, ChangeKind
from cfn_debug.schema import load_schema, split_pointer

SCHEMA = load_schema(Path(__file__).parent / "fixtures" / "schemas" / "widget.json")


def _by_pointer(changes: list[Change]) -> dict[str, Change]:
    pointers = [c.pointer for c in changes]
    assert len(pointers) == len(set(pointers)), f"duplicate pointers: {pointers}"
    return {c.pointer: c for c in changes}


# --- examples ---


def test_nested_change_is_reported_at_its_own_pointer() -> None:
    before = {"Config": {"Mode": "fast", "Rules": [{"Name": "a"}]}, "Size": 1}
    after = {"Config": {"Mode": "safe", "Rules": [{"Name": "a"}]}, "Size": 1}
    assert diff_models(before, after, None) == [
        Change("/Config/Mode", ChangeKind.CHANGED, "fast", "safe")
    ]


def test_added_and_removed_properties() -> None:
    changes = _by_pointer(diff_models({"A": 1, "B": {"x": 1}}, {"A": 1, "C": [1]}, None))
    assert changes["/B"] == Change("/B", ChangeKind.REMOVED, {"x": 1}, None)
    assert changes["/C"] == Change("/C", ChangeKind.ADDED, None, [1])
    assert set(changes) == {"/B", "/C"}


def test_pointer_tokens_are_escaped() -> None:
    changes = diff_models({"a/b": {"c~d": 1}}, {"a/b": {"c~d": 2}}, None)
    assert [c.pointer for c in changes] == ["/a~1b/c~0d"]


def test_none_models() -> None:
    assert diff_models(None, None, None) == []
    assert diff_models(None, {"A": 1}, None) == [Change("/A", ChangeKind.ADDED, None, 1)]
    assert diff_models({"A": 1}, None, None) == [Change("/A", ChangeKind.REMOVED, 1, None)]


def test_booleans_are_not_numbers_but_ints_equal_floats() -> None:
    assert diff_models({"A": 1}, {"A": 1.0}, None) == []
    assert diff_models({"A": [1, {"b": 0}]}, {"A": [True, {"b": False}]}, None) == [
        Change("/A/0", ChangeKind.CHANGED, 1, True),
        Change("/A/1/b", ChangeKind.CHANGED, 0, False),
    ]


def test_ordered_arrays_report_indices() -> None:
    changes = diff_models({"Labels": ["a", "b", "c"]}, {"Labels": ["a", "x"]}, SCHEMA)
    assert changes == [
        Change("/Labels/1", ChangeKind.CHANGED, "b", "x"),
        Change("/Labels/2", ChangeKind.REMOVED, "c", None),
    ]


def test_unordered_array_shuffle_is_no_change() -> None:
    before = {"Tags": [{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}]}
    after = {"Tags": [{"Value": "2", "Key": "b"}, {"Key": "a", "Value": "1"}]}
    assert diff_models(before, after, SCHEMA) == []
    # without the schema the same arrays are ordered: a shuffle is a change
    assert diff_models(before, after, None) != []


def test_unordered_array_reports_added_and_removed_elements() -> None:
    before = {"Tags": [{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}]}
    after = {"Tags": [{"Key": "b", "Value": "2"}, {"Key": "a", "Value": "9"}]}
    changes = diff_models(before, after, SCHEMA)
    assert changes == [
        Change("/Tags/0", ChangeKind.REMOVED, {"Key": "a", "Value": "1"}, None, MULTISET_NOTE),
        Change("/Tags/1", ChangeKind.ADDED, None, {"Key": "a", "Value": "9"}, MULTISET_NOTE),
    ]


def test_multiset_counts_duplicates() -> None:
    changes = diff_models({"Tags": [1, 1, 2]}, {"Tags": [2, 1]}, SCHEMA)
    assert [(c.kind, c.before) for c in changes] == [(ChangeKind.REMOVED, 1)]


def test_nested_unordered_arrays_inside_unordered_arrays() -> None:
    before = {"Config": {"Rules": [{"Name": "r", "Ports": [1, 2, 3]}, {"Name": "s"}]}}
    after = {"Config": {"Rules": [{"Name": "s"}, {"Name": "r", "Ports": [3, 1, 2]}]}}
    assert diff_models(before, after, SCHEMA) == []
    after["Config"]["Rules"][1]["Ports"] = [3, 1, 4]
    kinds = [(c.pointer, c.kind) for c in diff_models(before, after, SCHEMA)]
    assert kinds == [("/Config/Rules/0", ChangeKind.REMOVED), ("/Config/Rules/1", ChangeKind.ADDED)]


def test_notes_name_property_classes() -> None:
    before = {"WidgetId": "w-1", "Name": "a", "Password": "p", "Config": {"Mode": "fast"}}
    after = {"WidgetId": "w-2", "Name": "b", "Config": {"Mode": "safe"}, "Colour": "red"}
    notes = {c.pointer: c.note for c in diff_models(before, after, SCHEMA)}
    assert notes == {
        "/WidgetId": "primaryIdentifier, readOnly",
        "/Name": "createOnly",
        "/Password": "writeOnly",
        "/Config/Mode": "createOnly",
        "/Colour": "deprecated",
    }


def test_changes_round_trip_through_json() -> None:
    changes = diff_models({"Tags": [{"Key": "a", "Value": "1"}]}, {"Tags": []}, SCHEMA)
    assert [Change.from_dict(c.to_dict()) for c in changes] == changes


# --- properties ---

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False, allow_infinity=False, width=16)
    | st.sampled_from(["", "a", "b", "a/b", "~"])
)
_keys = st.sampled_from(["A", "B", "C", "a/b", "~x", "0"])
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=12,
)
_models = st.dictionaries(_keys, _values, max_size=5)


def _json_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _apply(document: Any, changes: list[Change]) -> Any:
    """Apply changes in order, as the diff documents them; an independent interpreter."""
    root = {"": copy.deepcopy(document)}
    for change in changes:
        tokens = ["", *split_pointer(change.pointer)]
        parent: Any = root
        for token in tokens[:-1]:
            parent = parent[int(token)] if isinstance(parent, list) else parent[token]
        last = tokens[-1]
        if isinstance(parent, list):
            index = int(last)
            if change.kind is ChangeKind.ADDED:
                parent.insert(index, copy.deepcopy(change.after))
            elif change.kind is ChangeKind.REMOVED:
                del parent[index]
            else:
                parent[index] = copy.deepcopy(change.after)
        elif change.kind is ChangeKind.REMOVED:
            del parent[last]
        else:
            parent[last] = copy.deepcopy(change.after)
    return root[""]


@settings(max_examples=100, deadline=None)
@given(_models)
def test_a_model_against_itself_is_empty(model: dict[str, Any]) -> None:
    assert diff_models(model, model, None) == []
    assert diff_models(model, copy.deepcopy(model), SCHEMA) == []


@settings(max_examples=100, deadline=None)
@given(_models, _models)
def test_applying_the_changes_gives_after(before: dict[str, Any], after: dict[str, Any]) -> None:
    changes = diff_models(before, after, None)
    _by_pointer(changes)
    assert _json_equal(_apply(before, changes), after)


@settings(max_examples=100, deadline=None)
@given(_models, _models)
def test_reversed_diff_swaps_added_and_removed(
    before: dict[str, Any], after: dict[str, Any]
) -> None:
    swap = {ChangeKind.ADDED: ChangeKind.REMOVED, ChangeKind.REMOVED: ChangeKind.ADDED}
    forward = {(c.pointer, swap.get(c.kind, c.kind)) for c in diff_models(before, after, None)}
    backward = {(c.pointer, c.kind) for c in diff_models(after, before, None)}
    assert forward == backward


_tags = st.lists(
    st.fixed_dictionaries({"Key": st.sampled_from("abc"), "Value": st.sampled_from("xy")}),
    max_size=6,
)


@settings(max_examples=100, deadline=None)
@given(_tags, st.randoms(use_true_random=False))
def test_permuting_an_unordered_array_is_no_change(tags: list[dict[str, str]], rnd: Any) -> None:
    shuffled = list(tags)
    rnd.shuffle(shuffled)
    assert diff_models({"Tags": tags}, {"Tags": shuffled}, SCHEMA) == []


@settings(max_examples=100, deadline=None)
@given(_tags, _tags)
def test_multiset_changes_give_after_as_a_multiset(
    before: list[dict[str, str]], after: list[dict[str, str]]
) -> None:
    changes = diff_models({"Tags": before}, {"Tags": after}, SCHEMA)
    assert all(c.note.endswith(MULTISET_NOTE) for c in changes)
    result = _apply({"Tags": before}, changes)["Tags"]
    key = sorted  # elements are flat dicts of strings: sort their item tuples
    assert key(tuple(sorted(t.items())) for t in result) == key(
        tuple(sorted(t.items())) for t in after
    )


# --- the fingerprinted multiset against the plain one ---

_elements = st.recursive(
    st.sampled_from([1, 1.0, True, 0, False, "a", None]) | st.just(float("nan")),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["Key", "Value", "Ports"]), inner, max_size=3)
    ),
    max_leaves=6,
)


def _plain_multiset(before: list[Any], after: list[Any], pattern: str) -> list[tuple[str, int]]:
    """The multiset comparison with a canonical key per element and nothing else (what the diff
    did before it fingerprinted elements): (kind, index) in the order the diff reports them."""
    old = [canonical_key(v, SCHEMA, pattern) for v in before]
    new = [canonical_key(v, SCHEMA, pattern) for v in after]
    surplus_old, surplus_new = Counter(old) - Counter(new), Counter(new) - Counter(old)
    out = []
    for index in range(len(before) - 1, -1, -1):
        if surplus_old[old[index]] > 0:
            surplus_old[old[index]] -= 1
            out.append(("removed", index))
    for index, key in enumerate(new):
        if surplus_new[key] > 0:
            surplus_new[key] -= 1
            out.append(("added", index))
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(_elements, max_size=6), st.lists(_elements, max_size=6), st.randoms())
def test_fingerprinted_multiset_reports_what_the_plain_one_does(
    before: list[Any], after: list[Any], rnd: Any
) -> None:
    if rnd.random() < 0.5:  # often a permutation of the same elements, re-spelt
        after = [copy.deepcopy(v) for v in before]
        rnd.shuffle(after)
    for pointer, pattern in (("/Tags", "/Tags/*"), ("/Config/Rules", "/Config/Rules/*")):
        model_before: dict[str, Any] = {}
        model_after: dict[str, Any] = {}
        tokens = split_pointer(pointer)
        for model, items in ((model_before, before), (model_after, after)):
            node = model
            for token in tokens[:-1]:
                node = node.setdefault(token, {})
            node[tokens[-1]] = items
        changes = [
            (c.kind.value, int(c.pointer.rsplit("/", 1)[1]))
            for c in diff_models(model_before, model_after, SCHEMA)
        ]
        assert changes == _kinds(before, after, pattern)


def _kinds(before: list[Any], after: list[Any], pattern: str) -> list[tuple[str, int]]:
    kind = {"removed": ChangeKind.REMOVED.value, "added": ChangeKind.ADDED.value}
    return [(kind[k], i) for k, i in _plain_multiset(before, after, pattern)]


def test_multiset_keys_see_through_key_order_and_nested_order() -> None:
    before = {"Config": {"Rules": [{"Name": "r", "Ports": [1, 2]}, {"Ports": [3], "Name": "s"}]}}
    after = {"Config": {"Rules": [{"Name": "s", "Ports": [3]}, {"Ports": [2, 1], "Name": "r"}]}}
    assert diff_models(before, after, SCHEMA) == []
    after["Config"]["Rules"][0]["Ports"] = [3.0]  # JSON 3.0 is not 3 to the multiset key
    assert [c.kind for c in diff_models(before, after, SCHEMA)] == [
        ChangeKind.REMOVED,
        ChangeKind.ADDED,
    ]


def test_identical_subtrees_tell_true_from_one() -> None:
    before = {"Labels": [1, {"a": [0, 1]}], "Tags": [{"Key": True}]}
    after = {"Labels": [True, {"a": [0, True]}], "Tags": [{"Key": 1}]}
    assert before == after  # Python's == cannot tell
    assert [(c.pointer, c.kind) for c in diff_models(before, after, SCHEMA)] == [
        ("/Labels/0", ChangeKind.CHANGED),
        ("/Labels/1/a/1", ChangeKind.CHANGED),
        ("/Tags/0", ChangeKind.REMOVED),
        ("/Tags/0", ChangeKind.ADDED),
    ]
