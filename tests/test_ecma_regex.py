"""cfn_debug.schema.ecma_regex: ECMA-262 meaning, the RE2 translation agrees with the ECMA engine,
and the engine choice for patterns that could backtrack catastrophically."""

from __future__ import annotations

import pytest
import regress
from hypothesis import given, settings
from hypothesis import strategies as st

from cfn_debug.schema.ecma_regex import _compile_re2, can_blow_up, compile_ecma

#: Patterns written the way AWS schemas write them, each exercising a translation rule.
TRANSLATED = [
    r"^[\u0020-\uD7FF\uE000-\uFFFD\uD800\uDC00-\uDBFF\uDFFF\t\r\n]*$",
    r"^[\u0020-\uD7FF\uE000-\uFFFD\uD800\uDBFF-\uDC00\uDFFF\t]*$",
    r"^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$",
    r"^\s*\S+\s*$",
    r"^a.b$",
    r"^[^\s]+$",
    r"^[a-z-]+$",
    r"^[a\-z]+$",
    r"^[-a]+$",
    r"^(?<name>[0-9]{2,3})x$",
    r"^\d+\.\w+\b",
    r"^(?:ab|cd)*$",
    r"^[\x41-\x5A]{1,3}$",
    r"\u00e9+",
    r"^arn:aws[\w-]*:s3:::[^/]+/.*$",
]
ALPHABET = "aAbcdxz09_-./:=+@ \t\n\r\u00a0\u2028\u3000éΩ٣\U0001f600\x00"


@pytest.mark.parametrize("pattern", TRANSLATED)
@settings(max_examples=150, deadline=None, derandomize=True)
@given(text=st.text(alphabet=ALPHABET, max_size=12))
def test_re2_translation_matches_what_the_ecma_engine_matches(pattern: str, text: str) -> None:
    ecma = regress.Regex(pattern, "u")
    linear = _compile_re2(pattern, unicode=True)
    assert linear is not None, pattern
    assert (linear(text) is not None) == (ecma.find(text) is not None)


def test_ecma_meaning_of_aws_patterns() -> None:
    astral = compile_ecma(TRANSLATED[0])
    assert astral.search("\U0001f600 ok") and not astral.search("\x07")
    letters = compile_ecma(TRANSLATED[2])
    assert letters.search("Größe 日本 ٣") and not letters.search("semi;colon")
    assert not compile_ecma(r"^\d$").search("٣")  # ECMA's \d is ASCII, Python's is not
    assert not compile_ecma(r"^a.b$").search("a\u2028b")  # . stops at every line terminator


def test_patterns_that_can_blow_up_are_told_apart() -> None:
    assert can_blow_up(r"^(a+)+$")
    assert can_blow_up(r"^(?=[a-z])([a-z]+-?)+$")
    assert can_blow_up(r"^(a|a)*$")
    assert not can_blow_up(r"^[a-z]+$")
    assert not can_blow_up(r"^(\d{1,3}\.){3}\d{1,3}$")
    assert not can_blow_up(r"^(?:arn:aws:[a-z]+)?$")
    assert compile_ecma(r"^(a+)+$").engine == "re2 (linear time)"
    assert compile_ecma(r"^[a-z]+$").engine.startswith("regress")


def test_a_pattern_no_engine_compiles_is_a_problem_not_an_exception() -> None:
    pattern = compile_ecma(r"^(?i)abc$")
    assert not pattern.usable
    assert "not an ECMA-262 regular expression" in (pattern.problem or "")
    assert pattern.search("anything")  # not checked: never a false alarm


def test_search_never_raises() -> None:
    for source in (r"^a+$", r"^(a+)+$", r"^(?=a)(a+)+$", r"(?i)x"):
        for value in ("\ud800", "", "a" * 10_000 + "!"):
            assert compile_ecma(source).search(value) in (True, False)
