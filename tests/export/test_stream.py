"""export.stream.load gives what json.loads gives: the same value for any JSON text (however
the window cuts it), the same message, line and column for any text that is not JSON; and a
callbackContext that repeats from step to step is one object."""

from __future__ import annotations

import io
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cfn_debug.export.stream import JsonStreamError, load

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
STEP = st.dictionaries(st.sampled_from(["request", "result", "index", "x"]), VALUES, max_size=4)
RUN = st.fixed_dictionaries({"steps": st.lists(STEP | VALUES, max_size=4)}, optional={"a": VALUES})
TRANSCRIPT = st.fixed_dictionaries(
    {"runs": st.lists(RUN | VALUES, max_size=3) | VALUES}, optional={"format": VALUES}
)


def _outcome(text: str, chunk: int | None) -> tuple[Any, ...]:
    try:
        if chunk is None:
            return ("value", json.loads(text))
        return ("value", load(io.BytesIO(text.encode()), chunk))
    except (json.JSONDecodeError, JsonStreamError) as error:
        return ("error", error.msg, error.lineno, error.colno)


@settings(max_examples=300, deadline=None)
@given(TRANSCRIPT | VALUES, st.sampled_from([None, 0, 1, 2]), st.integers(1, 64))
def test_the_value_is_json_loads_value(doc: Any, indent: int | None, chunk: int) -> None:
    text = json.dumps(doc, indent=indent, ensure_ascii=bool(chunk % 2))
    assert _outcome(text, chunk) == _outcome(text, None)


@settings(max_examples=400, deadline=None)
@given(TRANSCRIPT, st.sampled_from([None, 1]), st.data(), st.integers(1, 32))
def test_a_damaged_text_fails_where_json_loads_fails(
    doc: Any, indent: int | None, data: st.DataObject, chunk: int
) -> None:
    text = json.dumps(doc, indent=indent)
    at = data.draw(st.integers(0, len(text)))
    cut = data.draw(st.integers(0, 3))
    extra = data.draw(st.sampled_from(["", ",", "}", "]", ":", '"', "x", " ", "\n", "1", "{", "["]))
    damaged = text[:at] + extra + text[at + cut :]
    assert _outcome(damaged, chunk) == _outcome(damaged, None)


def test_a_repeated_context_is_one_object() -> None:
    context = {"state": "x" * 1000, "n": [1, 2]}
    steps = [
        {
            "request": {"callbackContext": None},
            "result": {"progress": {"callbackContext": context}},
        },
        *[
            {
                "request": {"callbackContext": context},
                "result": {"progress": {"callbackContext": context}},
            }
            for _ in range(3)
        ],
        {
            "request": {"callbackContext": context},
            "result": {"progress": {"callbackContext": {"n": 2}}},
        },
        {"request": {"callbackContext": {"n": 2}}, "result": {"progress": {}}},
    ]
    text = json.dumps({"format": "f", "runs": [{"steps": steps}]})
    for chunk in (64, 1 << 20):  # a run walked step by step, and a run the window holds
        loaded = load(io.BytesIO(text.encode()), chunk=chunk)
        assert loaded == json.loads(text)
        got = loaded["runs"][0]["steps"]
        first = got[0]["result"]["progress"]["callbackContext"]
        for step in got[1:4]:
            assert step["request"]["callbackContext"] is first
            assert step["result"]["progress"]["callbackContext"] is first
        assert got[4]["request"]["callbackContext"] is first
        after = got[4]["result"]["progress"]["callbackContext"]
        assert got[5]["request"]["callbackContext"] is after
