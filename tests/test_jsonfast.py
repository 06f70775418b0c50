"""The fast JSON paths mean what the json module's do: journal lines (redacted), request bodies, and
the diffs' exact encodings. Each test compares with the json/redact reference, never with itself."""

from __future__ import annotations

import json
import math
from contextlib import ExitStack
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfn_debug.diff import Encodings, diff_models
from cfn_debug.invoke.base import encode_payload, encode_request
from cfn_debug.journal.session import _dumps
from cfn_debug.text import jsonfast
from cfn_debug.text import redact as redact_module
from cfn_debug.text.redact import (
    CREDENTIAL_CONTAINERS,
    REDACTED,
    SECRET_KEYS,
    may_hold_secret,
    redact,
    redact_large,
    redacted_json,
)

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
KELVIN = "\u212a"  # lower-cases to "k"
SECRET_STRINGS = [
    "AKIAABCDEFGHIJKLMNOP",
    "see ASIAABCDEFGHIJKLMNOP in the log",
    "aws_secret_access_key = " + "a" * 40,
    "'sessionToken': '" + "b" * 24 + "'",
    "a long plain string with nothing in it",
    "",
]
KEYS = [
    "Name",
    "Items",
    "accessKeyId",
    "ACCESSKEYID",
    "AccessKeyID",
    "secretAccessKey",
    "sessionToken",
    "SessionToKen",
    "bearerToken",
    "aws_access_key_id",
    "credentials",
    "CallerCredentials",
    "providerCredentials",
    f"session_to{KELVIN}en",
    f"Access{KELVIN}eyId",
    "Token",
]
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats()  # NaN and infinities included
    | st.sampled_from(SECRET_STRINGS)
    | st.text(max_size=24)
)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=5)
        | st.lists(children, max_size=3).map(tuple)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), children, max_size=5)
    ),
    max_leaves=25,
)


def typed(value: Any) -> Any:
    """A value with its JSON types spelt out: true is not 1, 1 is not 1.0, NaN equals NaN."""
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, dict):
        return ("object", [(k, typed(v)) for k, v in value.items()])
    return ("array", [typed(v) for v in value])


def splitting_everything() -> ExitStack:
    """Small inputs take the paths large models take: split, sliced and remembered."""
    stack = ExitStack()
    stack.enter_context(mock.patch.object(jsonfast, "SPLIT_MIN", 0))
    stack.enter_context(mock.patch.object(jsonfast, "SLICES", 2))
    stack.enter_context(mock.patch.object(redact_module, "_RECENT_MIN", 0))
    stack.enter_context(mock.patch.object(redact_module, "_SCAN_MIN", 0))
    return stack


def listed(value: Any) -> Any:
    """``value`` with tuples made lists (redact_large may leave a tuple where redact does not)."""
    if isinstance(value, dict):
        return {k: listed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [listed(v) for v in value]
    return value


@SETTINGS
@given(values, st.integers(min_value=0, max_value=3))
def test_redact_large_equals_redact(value: Any, split_depth: int) -> None:
    expected = typed(listed(redact(value)))
    for stack in (ExitStack(), splitting_everything()):
        with stack:
            got = redact_large(value, split_depth=split_depth)
            again = redact_large(value, split_depth=split_depth, encode=Encodings().of)
        assert typed(listed(got)) == expected
        assert typed(listed(again)) == expected


@SETTINGS
@given(values, st.integers(min_value=0, max_value=3))
def test_redacted_json_means_what_dumps_of_redact_means(value: Any, split_depth: int) -> None:
    expected = json.loads(_dumps(redact(value)))
    for stack in (ExitStack(), splitting_everything()):
        with stack:
            got = redacted_json(value, _dumps, split_depth=split_depth)
            got_again = redacted_json(value, _dumps, split_depth=split_depth)  # remembered
        assert typed(json.loads(got)) == typed(expected)
        assert got_again == got


@SETTINGS
@given(values)
def test_request_body_means_what_json_dumps_means(value: Any) -> None:
    payload = {"credentials": {"accessKeyId": "AKIAABCDEFGHIJKLMNOP"}, "request": value}
    expected = json.loads(json.dumps(payload, separators=(",", ":")))
    for stack in (ExitStack(), splitting_everything()):
        with stack:
            body = encode_payload(payload)
        assert typed(json.loads(body)) == typed(expected)


def test_every_secret_key_spelling_is_seen_by_the_byte_scan() -> None:
    for name in sorted(SECRET_KEYS | CREDENTIAL_CONTAINERS):
        spellings = [name, name.upper(), name.title(), name.replace("k", KELVIN)]
        for key in spellings:
            raw = json.dumps({key: {"x": 1}}, ensure_ascii=False).encode()
            assert may_hold_secret(raw), key
    for text in SECRET_STRINGS[:4]:
        assert may_hold_secret(json.dumps([text]).encode()), text
    assert not may_hold_secret(json.dumps({"Name": "plain", "Items": [1, 2.5]}).encode())


def big_model(items: int = 3000) -> dict[str, Any]:
    return {
        "Name": "big",
        "Items": [{"Key": f"key-{i}", "Value": "v" * 40, "Weight": i} for i in range(items)],
    }


def test_a_large_clean_model_is_passed_unwalked_and_a_dirty_one_redacted() -> None:
    clean = big_model()
    request = {"credentials": {"sessionToken": "t" * 30}, "request": {"desired": clean}}
    out = redact_large(request, split_depth=2)
    assert out["credentials"] == {"sessionToken": REDACTED}
    assert out["request"]["desired"] is clean  # not copied
    dirty = big_model()
    dirty["Items"][2900]["Value"] = "AKIAABCDEFGHIJKLMNOP"
    out = redact_large({"resourceModel": dirty}, split_depth=1)
    assert out["resourceModel"]["Items"][2900]["Value"] == REDACTED
    assert out["resourceModel"] == redact({"resourceModel": dirty})["resourceModel"]
    assert dirty["Items"][2900]["Value"] == "AKIAABCDEFGHIJKLMNOP"  # the input is untouched


def test_a_secret_deep_in_a_large_model_is_redacted_the_rest_kept() -> None:
    model = big_model()
    model["Items"][2500]["Note"] = "leaked AKIAABCDEFGHIJKLMNOP here"
    model["Items"][10][f"Session{KELVIN}ey"] = "a plain value"
    model["Items"][11][f"sessionto{KELVIN}en"] = "abcdefghijklmnopqrstuvwxyz"
    line = redacted_json({"step": {"request": {"desiredResourceState": model}}}, _dumps)
    assert b"AKIAABCDEFGHIJKLMNOP" not in line
    assert b"abcdefghijklmnopqrstuvwxyz" not in line
    loaded = json.loads(line)["step"]["request"]["desiredResourceState"]
    assert loaded == json.loads(_dumps(redact(model)))
    assert loaded["Items"][2500]["Note"] == f"leaked {REDACTED} here"
    assert loaded["Items"][11][f"sessionto{KELVIN}en"] == REDACTED
    assert loaded["Items"][2999] == model["Items"][2999]


def test_nan_infinity_big_ints_and_odd_keys_in_a_large_model_keep_their_meaning() -> None:
    oddities: list[tuple[Any, Any]] = [
        ("Weight", math.nan),
        ("Weight", -math.inf),
        ("Weight", 10**30),
        ("Weight", None),
        ("Weight", True),
        (3, "an int key"),
    ]
    for key, odd in oddities:  # one per model, so each is the only thing orjson gets wrong
        model = big_model()
        model["Items"][1234][key] = odd
        reference = typed(json.loads(json.dumps(model)))
        for encoded in (redacted_json(model, _dumps), encode_payload(model)):
            loaded = json.loads(encoded)
            assert typed(loaded) == reference, (key, odd)
            assert typed(loaded["Items"][1234][str(key)]) == typed(odd)


# --- diffs with shared exact encodings ------------------------------------------------------------

pairs = st.tuples(values, values) | values.map(lambda v: (v, json.loads(json.dumps(v))))


@SETTINGS
@given(st.dictionaries(st.sampled_from(KEYS), values, max_size=4), st.data())
def test_diffs_are_the_same_with_and_without_the_orjson_encodings(before: Any, data: Any) -> None:
    """Models reach the diff parsed from JSON, so both sides go through JSON first: a tuple is
    the same JSON array as a list, which the encodings see and the marshal reference does not
    (found by a derandomized CI run: ``{"Name": {"Name": ()}}`` against ``[]``)."""
    before = json.loads(json.dumps(before))
    after = json.loads(
        json.dumps(
            data.draw(
                st.sampled_from([before, {}])
                | st.dictionaries(st.sampled_from(KEYS), values, max_size=4)
            )
        )
    )
    shared = Encodings()
    with_orjson = diff_models(before, after, None, encodings=shared)
    again = diff_models(before, after, None, encodings=shared)
    # the marshal path, as before
    with mock.patch("cfn_debug.diff.encodings.exact", lambda value: None):
        reference = diff_models(before, after, None)
    assert [typed(c.to_dict()) for c in with_orjson] == [typed(c.to_dict()) for c in reference]
    assert [c.to_dict() for c in again] == [c.to_dict() for c in with_orjson]


def test_encodings_tell_true_from_1_and_none_from_nan_in_large_models() -> None:
    before, after = big_model(), big_model()
    after["Items"][100]["Weight"] = float(after["Items"][100]["Weight"])  # 100 -> 100.0: same
    after["Items"][200]["Weight"] = True if before["Items"][200]["Weight"] else 1
    before["Items"][300]["Weight"] = None
    after["Items"][300]["Weight"] = math.nan
    changes = diff_models(before, after, None, encodings=Encodings())
    assert [c.pointer for c in changes] == ["/Items/200/Weight", "/Items/300/Weight"]
    assert diff_models(before, before, None, encodings=Encodings()) == []


def test_encodings_keep_their_objects_so_an_id_is_not_reused() -> None:
    shared = Encodings()
    first = shared.of([1, 2, 3])  # a temporary: kept alive by the memo
    assert shared.of([4, 5, 6]) != first


def plain_body(payload: dict[str, Any]) -> bytes:
    """The request body as encode_request made it before its models' members were encoded on
    their own: the whole payload by orjson when it has no null, else the Splicer."""
    whole = jsonfast.exact(payload)
    if whole is not None and b"null" not in whole:
        return whole
    return jsonfast.Splicer(
        lambda v: json.dumps(v, separators=(",", ":")), ensure_ascii=True, split_depth=1
    ).encode(payload)


@SETTINGS
@given(
    st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), values, max_size=4),
    st.sampled_from([("request", "desiredResourceState"), ("requestData", "resourceProperties")]),
)
def test_a_body_with_its_model_members_encoded_apart_is_the_same_bytes(
    model: dict[str, Any], place: tuple[str, str]
) -> None:
    """encode_request puts a large request model's members in as encoded apart (to share them
    with the step's secret scan and diffs): the same bytes as the body encoded whole, and each
    shared encoding is that member's exact encoding (every member counts as large here)."""
    from cfn_debug.invoke import base

    holder, key = place
    payload = {"action": "CREATE", holder: {"clientRequestToken": "t", key: model}}
    with mock.patch.object(base, "_MEMBER_MIN", 0), mock.patch.object(base, "_MEMBER_LEN_MIN", 0):
        body, members = encode_request(payload)
    assert body == plain_body(payload)
    for member, raw in members:
        assert any(member is value for value in model.values())
        assert raw == jsonfast.exact(member)


def test_a_large_model_s_members_are_shared_with_the_step_and_a_null_keeps_the_plain_path() -> None:
    model = big_model(items=3000)
    payload = {"action": "CREATE", "request": {"desiredResourceState": model}}
    body, members = encode_request(payload)
    assert body == plain_body(payload)
    (shared,) = members
    assert shared[0] is model["Items"] and shared[1] == jsonfast.exact(model["Items"])
    model["Items"][7]["Weight"] = float("nan")  # orjson writes NaN as null; json as NaN
    body, members = encode_request(payload)
    assert body == plain_body(payload) and b"NaN" in body
    assert members == ()


def test_remembered_encodings_nobody_holds_are_forgotten() -> None:
    """``holds`` remembers what it found in large encodings; one that nothing else holds any more
    (last step's 5 MB body) is let go beyond the newest few, so a chain sending a large context
    at every step does not keep the last eight steps' bodies resident; ones still held stay."""
    jsonfast._HOLDS.clear()
    kept = [b"k%d" % n + b"x" * (1 << 17) for n in range(2)]
    for raw in kept:
        assert not jsonfast.holds(raw, b"null")
    for n in range(8):  # each dropped once asked about, as a step's body is
        assert not jsonfast.holds(b"d%d" % n + b"y" * (1 << 17), b"null")
    held = [entry[0] for entry in jsonfast._HOLDS.values()]
    assert all(any(raw is entry for entry in held) for raw in kept)
    assert len(held) <= len(kept) + 3, len(held)  # + the newest few
    jsonfast._HOLDS.clear()
