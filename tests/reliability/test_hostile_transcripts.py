"""Hostile journals and transcripts: a real session (tests/export's sample: three runs with
findings, diffs, logs and planted secrets) is journaled and exported, then one to three of its
fields anywhere are replaced with values of the wrong kind (escape sequences, surrogates, huge
numbers, containers, enum spellings) or deleted. What must hold: loading gives the session or a
JournalError naming the file, and every exporter then writes it; nothing else is ever raised (so
`export` and `open` answer with one line, never a traceback). Hypothesis, fixed seed."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfn_debug.errors import CfnDebugError
from cfn_debug.export.formats import FORMATS, export_session
from cfn_debug.export.json import transcript_from_data
from cfn_debug.journal.session import Journal, load_journal
from cfn_debug.records import RunEnded, RunStarted, StepCompleted
from export.export_sample import build_session

EXAMPLES = int(os.environ.get("RELIABILITY_EXAMPLES", "150"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=not os.environ.get("RELIABILITY_RANDOM"),
    database=None,
)
VALUES = [
    None, 1, -1, 1.5, True, "x", "\x1b[2J\udcff", [], {}, [1], {"a": 1}, "SUCCESS",
    "progress", "CREATE", "MUST", "changed", 10**300, -(10**4000),
]  # fmt: skip


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*here, index))
    return found


def _mutated(data: Any, draw: st.DrawFn) -> Any:
    data = json.loads(json.dumps(data))
    paths = [p for p in _paths(data) if len(p) >= 2]
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(paths))
        holder = data
        try:
            for key in where[:-1]:
                holder = holder[key]
            if draw(st.booleans()) and isinstance(holder, dict):
                del holder[where[-1]]
            else:
                holder[where[-1]] = draw(st.sampled_from(VALUES))
        except (KeyError, IndexError, TypeError):
            continue
    return data


@pytest.fixture(scope="module")
def journal_lines(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    path = tmp_path_factory.mktemp("base") / "base.jsonl"
    with Journal(path) as journal:
        for run in build_session().runs:
            journal.record(RunStarted(run))
            for step in run.steps:
                journal.record(StepCompleted(run.run_id, step))
            journal.record(RunEnded(run))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def transcript() -> Any:
    out = io.StringIO()
    export_session(build_session(), "json", out)
    return json.loads(out.getvalue())


def _export_everywhere(session: Any) -> None:
    for fmt in FORMATS:
        export_session(session, fmt, io.StringIO())


@given(data=st.data())
@SETTINGS
def test_a_damaged_journal_loads_and_exports_or_is_a_journal_error(
    data: st.DataObject, journal_lines: list[Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    lines = _mutated(journal_lines, data.draw)
    path = tmp_path_factory.mktemp("j") / "j.jsonl"
    text = "\n".join(json.dumps(line, default=str) for line in lines) + "\n"
    path.write_bytes(text.encode("utf-8", "backslashreplace"))
    try:
        session = load_journal(path)
    except CfnDebugError as error:
        assert error.path == str(path)
        return
    _export_everywhere(session)


@given(data=st.data())
@SETTINGS
def test_a_damaged_transcript_loads_and_exports_or_is_a_journal_error(
    data: st.DataObject, transcript: Any
) -> None:
    document = _mutated(transcript, data.draw)
    try:
        session = transcript_from_data(document, Path("t.json"))
    except CfnDebugError as error:
        assert error.path == "t.json"
        return
    _export_everywhere(session)
