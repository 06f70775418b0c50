"""The answer's parse (invoke.outcome._loads) is json.loads, exactly: msgspec's faster decoder
where it reads the text, json's wherever it refuses it. Any JSON value, encoded every way json
can encode it, then damaged byte by byte, and arbitrary bytes: the same value (types, key order,
NaN) or the same error as json.loads."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cfn_debug.invoke.outcome import _exact_loads, _loads


def tagged(value: Any) -> Any:
    """``value`` with every leaf's type beside it and every object's key order kept."""
    if isinstance(value, dict):
        return ("object", [(k, tagged(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("array", [tagged(v) for v in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    if isinstance(value, float):
        return ("float", value.hex())  # -0.0 apart from 0.0, every bit compared
    return (type(value).__name__, value)


def outcome(parse: Any, raw: bytes) -> Any:
    try:
        return ("value", tagged(parse(raw)))
    except (ValueError, RecursionError) as error:  # JSONDecodeError, UnicodeDecodeError, digits
        return ("error", type(error).__name__, str(error))


leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),
    st.sampled_from(["\ud800", "\udcff", "\udfff\ud800", "\u2028", "\x00", "\x7f"]),
)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


@st.composite
def encodings(draw: st.DrawFn) -> bytes:
    value = draw(values)
    text = json.dumps(
        value,
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.sampled_from([None, 0, 2])),
        separators=draw(st.sampled_from([None, (",", ":"), (" , ", " : ")])),
    )
    try:
        raw = text.encode(draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-32-le"])))
    except UnicodeEncodeError:  # a lone surrogate written as itself (ensure_ascii off)
        raw = text.encode("utf-8", "surrogatepass")
    for _ in range(draw(st.integers(min_value=0, max_value=3))):  # damage it, or not
        if not raw:
            break
        at = draw(st.integers(min_value=0, max_value=len(raw) - 1))
        raw = raw[:at] + bytes([draw(st.integers(0, 255))]) + raw[at + 1 :]
    return raw


@settings(max_examples=1500, deadline=None, derandomize=True, database=None)
@given(raw=st.one_of(encodings(), st.binary(max_size=40)))
def test_the_fast_parse_gives_what_json_gives(raw: bytes) -> None:
    assert outcome(_exact_loads, raw) == outcome(json.loads, raw)


@pytest.mark.parametrize(
    "raw",
    [
        b"[NaN, Infinity, -Infinity]",  # msgspec refuses them
        b'"\\ud800"',  # an escaped lone surrogate
        b'"\xed\xa0\x80"',  # json decodes bytes with surrogatepass
        b"\xef\xbb\xbf{}",  # a BOM
        '{"a": 1}'.encode("utf-16"),
        b"1e400",  # json: inf; msgspec: out of range
        b"9" * 5000,  # the digit limit: json's own ValueError
        b"123456789012345678901234567890",  # beyond 64 bits: an int, whole
        b'{"b": 1, "a": 2, "b": 3}',
        b"[" * 5000 + b"]" * 5000,
    ],
)
def test_what_msgspec_refuses_is_json_s(raw: bytes) -> None:
    assert outcome(_exact_loads, raw) == outcome(json.loads, raw)


def test_a_large_body_too() -> None:
    model = {"Items": [{"Key": f"k{i}", "Big": 10**30 + i, "F": i / 7} for i in range(20_000)]}
    raw = json.dumps({"status": "SUCCESS", "resourceModel": model}).encode()
    assert len(raw) > 64 * 1024  # the collector-paused path
    assert outcome(_loads, raw) == outcome(json.loads, raw)
