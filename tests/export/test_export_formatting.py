"""What every format says alike: statuses, timing classes, problems, durations."""

from __future__ import annotations

import pytest

from cfn_debug.export.formatting import (
    seconds,
    status_class,
    step_problem,
    step_status,
    timing_class,
    visible,
)
from cfn_debug.journal.session import Session


def test_step_problem_names_what_went_wrong(session: Session) -> None:
    create, update, read = session.runs
    assert step_problem(create.steps[0]) is None
    assert step_problem(update.steps[0]) == "crash: KeyError: 'Password' <hunter2-PASSWORD-export>"
    assert step_problem(read.steps[0]) == "timeout"
    failed = create.steps[2]
    assert failed.result.progress is not None
    failed.result.progress.update(status="FAILED", errorCode="NotFound", message="")
    assert step_problem(failed) == "FAILED (NotFound), with no message"
    failed.result.progress["message"] = "widget gone"
    assert step_problem(failed) == "FAILED (NotFound): widget gone"
    assert step_status(failed) == "FAILED"


@pytest.mark.parametrize(
    ("duration", "limit", "expected"),
    [(1.0, 60.0, "ok"), (45.0, 60.0, "ok"), (45.1, 60.0, "warn"), (60.5, 60.0, "over")],
)
def test_timing_class(duration: float, limit: float, expected: str) -> None:
    assert timing_class(duration, limit) == expected


@pytest.mark.parametrize(
    ("status", "css"),
    [("SUCCESS", "success"), ("FAILED", "failed"), ("IN_PROGRESS", "progress"), (None, "other")],
)
def test_status_class(status: str | None, css: str) -> None:
    assert status_class(status) == css


def test_seconds_and_visible() -> None:
    assert [seconds(v) for v in (0.0123, 1.5, 250.0)] == ["12.3 ms", "1.50 s", "250 s"]
    assert visible("a\x1b[0m\x00\tb\n") == "a\\x1b[0m\\x00\tb\n"
