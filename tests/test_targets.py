"""The target options `run` and `scenario` share: a negative limit stops either command with the
same one-line error (exit 2) before any event is read or endpoint started."""

from __future__ import annotations

import pytest

from cfn_debug.cli import main


@pytest.mark.parametrize("command", [["run", "no-such-event.json"], ["scenario", "all"]])
@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("--max-reinvoke", "--max-reinvoke: expected a number of re-invocations >= 0"),
        ("--max-delay", "--max-delay: expected a number of seconds >= 0"),
    ],
)
def test_negative_limit_is_a_usage_error(
    command: list[str], option: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*command, option, "-1"]) == 2
    assert capsys.readouterr().err.strip() == f"cfn-debug: error: {expected}"
