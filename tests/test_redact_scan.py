"""The byte scan that lets redaction pass a large clean model unwalked: its RE2 search finds a
secret's mark exactly where the plain test (ASCII-lowered bytes, seven ``in`` tests) finds one,
and ``may_hold_secret`` says False only where ``redact`` changes nothing."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfn_debug.journal.session import _dumps, _entry_line
from cfn_debug.text import jsonfast
from cfn_debug.text import redact as redact_module
from cfn_debug.text.redact import _MARKS, may_hold_secret, redact
from test_jsonfast import typed, values

SETTINGS = settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _respelled(mark: bytes, cases: list[bool]) -> bytes:
    return bytes(
        c - 32 if upper and 97 <= c <= 122 else c for c, upper in zip(mark, cases, strict=False)
    )


#: The marks in any case, cut short or with a byte changed, beside bytes that fold to letters
#: elsewhere (Latin-1 capitals, KELVIN SIGN and LONG S in UTF-8) and plain filler.
pieces = st.one_of(
    st.builds(
        _respelled, st.sampled_from(_MARKS), st.lists(st.booleans(), min_size=13, max_size=13)
    ),
    st.sampled_from(_MARKS).flatmap(
        lambda mark: st.integers(1, len(mark) - 1).map(lambda n: mark[:n])
    ),
    st.sampled_from(
        [b"\xe2\x84\xaa", b"\xc5\xbf", b"\xc0", b"\xcb", b"\xdf", b"\xff", b'"', b"_", b" "]
    ),
    st.binary(max_size=8),
    st.text(alphabet="acdeiklnorstyAKOS_", max_size=12).map(str.encode),
)
texts = st.lists(pieces, max_size=12).map(b"".join)


@SETTINGS
@given(texts, st.integers(0, 5000))
def test_the_re2_search_finds_a_mark_exactly_where_the_plain_test_does(
    raw: bytes, pad: int
) -> None:
    search = redact_module._searcher()
    assert search is not None  # google-re2 is a dependency
    for text in (raw, b"x" * pad + raw, raw + b"y" * pad):
        assert search(text) == redact_module._holds_mark_plain(text), text
        # and may_hold_secret answers by it alike, past the size where it uses RE2
        long_text = text + b" " * redact_module._SEARCH_MIN
        assert redact_module._holds_mark(long_text) == redact_module._holds_mark_plain(long_text)
        # the same pass told jsonfast.holds whether it holds null (remembered when large)
        literal = (b"", b"null", b"true", b"false")[pad % 4]
        large = text + b" " * jsonfast._REMEMBER_MIN + literal
        assert search(large) == redact_module._holds_mark_plain(large)
        for asked in (b"null", b"true", b"false"):
            assert jsonfast.holds(large, asked) == (asked in large)


@SETTINGS
@given(
    st.recursive(
        st.none() | st.integers() | st.text(alphabet="aceikKnorstyAS_\u212a\u017f ", max_size=30),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.text(alphabet="aceikKnorstyAS_\u212a\u017f", max_size=20), inner)
        ),
        max_leaves=12,
    )
)
def test_a_value_found_clean_is_one_redact_leaves_unchanged(value: object) -> None:
    raw = json.dumps(value, ensure_ascii=False).encode() + b" " * redact_module._SEARCH_MIN
    if not may_hold_secret(raw):
        assert redact(value) == value


def test_letters_that_fold_to_ascii_only_outside_latin_1_are_no_mark_for_the_search() -> None:
    """KELVIN SIGN and LONG S fold to k and s in Unicode: the search must not read them so (the
    plain test does not; may_hold_secret catches a KELVIN SIGN by itself)."""
    search = redact_module._searcher()
    assert search is not None
    for text in ("o\u212aen", "acce\u017f\u017fkeyid", "a\u017fia", "a\u212aia"):
        raw = text.encode() * 2000
        assert search(raw) is False and redact_module._holds_mark_plain(raw) is False, text
    assert may_hold_secret("o\u212aen".encode() * 2000)


@SETTINGS
@given(
    st.lists(
        st.tuples(
            st.sampled_from([b"a", b"b", b"null", b"nul", b"\x00"]),
            st.integers(0, 3),
            st.sampled_from([b"null", b"true"]),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_holds_answers_for_the_bytes_asked_even_when_equal_ones_were_asked_before(
    asks: list[tuple[bytes, int, bytes]],
) -> None:
    """Encodings equal in content share remembered answers, and only those: a fresh bytes
    object equal to a remembered one, or as long but not equal, is answered for itself."""
    from cfn_debug.text import jsonfast

    size = jsonfast._REMEMBER_MIN
    for piece, where, mark in asks:
        raw = bytearray(b"x" * size)
        raw[where * 7 : where * 7 + len(piece)] = piece  # the same length, some contents equal
        raw = bytes(raw)
        assert jsonfast.holds(raw, mark) == (mark in raw)


@SETTINGS
@given(st.data())
def test_a_small_journal_line_means_what_dumps_of_redact_means(data: st.DataObject) -> None:
    """A small step line is written by orjson when it cannot differ from ``_dumps(redact())``:
    NaN and infinities (orjson's null), big integers, lone surrogates, tuples, secrets."""
    value = data.draw(values)
    entry = {"type": "step", "run_id": "r", "step": {"request": value, "index": 1}}
    line = _entry_line(entry, object(), None)  # type: ignore[arg-type]  # no build_step encodings
    if isinstance(line, list):  # what orjson cannot encode at all goes to the spliced path
        line = b"".join(line)
    raw = line.encode("utf-8", "backslashreplace") if isinstance(line, str) else line
    expected = _dumps(redact(entry)).encode("utf-8", "backslashreplace")
    assert typed(json.loads(raw)) == typed(json.loads(expected))
