"""Schema patterns whose backtracking grows polynomially (not only nested repeats) are matched in
linear time, or only on short values: the Timestream bucket-name pattern of AWS's own schemas
is cubic in a backtracking engine (a 4,000-character value kept `run` busy for minutes)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cfn_debug.schema.ecma_regex import POLYNOMIAL_MAX_LENGTH, compile_ecma, super_linear

TIMESTREAM_BUCKET = "^[0-9a-z]+[0-9a-z\\.\\-]*[0-9a-z]+$"


@pytest.mark.parametrize(
    "pattern",
    [TIMESTREAM_BUCKET, "[a-z]+b", "^a*a*a*c$", "^(x|y)\\d+\\s*\\d+$"],
)
def test_super_linear_patterns_go_to_the_linear_engine(pattern: str) -> None:
    assert super_linear(pattern)
    assert compile_ecma(pattern).engine == "re2 (linear time)"


def test_linear_patterns_stay_on_regress() -> None:
    for pattern in ("^[a-z0-9][\\.\\-a-z0-9]{1,61}[a-z0-9]$", "^[a-zA-Z0-9]+$", "^\\d{4}$"):
        assert not super_linear(pattern), pattern
        assert compile_ecma(pattern).engine.startswith("regress"), pattern


def test_one_re2_cannot_say_is_checked_only_on_short_values() -> None:
    pattern = "^(?=x)[a-z]+[a-z]*y$"  # lookahead: RE2 cannot; two unbounded repeats
    compiled = compile_ecma(pattern)
    assert str(POLYNOMIAL_MAX_LENGTH) in compiled.engine
    assert compiled.search("x" + "a" * 5000)  # not checked: "matches"
    assert not compiled.search("xab")


def test_the_timestream_pattern_on_a_4000_character_value_answers() -> None:
    """In a child with a generous limit: the backtracking engine took minutes on it."""
    code = (
        "from cfn_debug.schema.ecma_regex import compile_ecma\n"
        f"print(compile_ecma({TIMESTREAM_BUCKET!r}).search('a' * 4000 + '_'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stdout.strip() == "False", done.stderr[-2000:]
