"""The crash-safe journal: append per event, load back, survive a torn last line."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cfn_debug.errors import JournalError
from cfn_debug.journal.session import Journal, load_journal
from cfn_debug.locations import default_journal_path
from cfn_debug.records import (
    Action,
    Change,
    ChangeKind,
    DelayStarted,
    EndReason,
    Finding,
    InvokeResult,
    Level,
    OutcomeKind,
    RunEnded,
    RunRecord,
    RunStarted,
    Step,
    StepCompleted,
)
from cfn_debug.text.redact import REDACTED


def make_run(run_id: str = "r1", steps: int = 2) -> RunRecord:
    run = RunRecord(
        run_id=run_id,
        event_name="create",
        event_path="sample_events/create.json",
        action=Action.CREATE,
        function_name="TestEntrypoint",
        endpoint="http://127.0.0.1:3001",
        started_at="2026-01-01T00:00:00+00:00",
    )
    for i in range(steps):
        status = "IN_PROGRESS" if i < steps - 1 else "SUCCESS"
        run.steps.append(
            Step(
                index=i,
                action=Action.CREATE,
                function_name="TestEntrypoint",
                request={"action": "CREATE", "callbackContext": {"n": i}},
                result=InvokeResult(
                    OutcomeKind.PROGRESS,
                    duration_s=0.1 * (i + 1),
                    progress={"status": status, "resourceModel": {"Id": "1"}},
                    logs=[f"line {i}"],
                ),
                started_at=f"2026-01-01T00:00:0{i}+00:00",
                limit_s=60.0,
                findings=[Finding("R1", Level.SHOULD, "msg", "/resourceModel", i)],
                diff_request=[Change("/Id", ChangeKind.ADDED, None, "1", "readOnly")],
            )
        )
    run.end_reason = EndReason.TERMINAL
    run.final_status = "SUCCESS"
    run.chain_findings = [Finding("C1", Level.MUST, "chain", None, None)]
    run.total_s = 0.5
    return run


def record_run(journal: Journal, run: RunRecord, *, end: bool = True) -> None:
    journal.record(RunStarted(dataclasses.replace(run, steps=[])))
    for step in run.steps:
        journal.record(StepCompleted(run.run_id, step))
        journal.record(DelayStarted(run.run_id, step.index, 0.0, 0.0, 0.0))
    if end:
        journal.record(RunEnded(run))


def test_journal_round_trips_runs(tmp_path) -> None:
    path = tmp_path / "deep" / "j.jsonl"
    run_a, run_b = make_run("a"), make_run("b", steps=3)
    with Journal(path, project="/p") as journal:
        record_run(journal, run_a)
        record_run(journal, run_b)
    session = load_journal(path)
    assert session.runs == [run_a, run_b]
    assert session.problems == []
    assert (session.project, session.endpoint) == ("/p", "http://127.0.0.1:3001")
    assert session.meta["project"] == "/p" and session.created
    # one line per durable event: header, 2 x (start + steps + end)
    assert len(path.read_text().splitlines()) == 1 + (1 + 2 + 1) + (1 + 3 + 1)


def test_each_step_is_on_disk_before_the_next_event(tmp_path) -> None:
    path = tmp_path / "j.jsonl"
    run = make_run()
    journal = Journal(path)
    journal.record(RunStarted(dataclasses.replace(run, steps=[])))
    journal.record(StepCompleted(run.run_id, run.steps[0]))
    # read by another process while the journal is still open: nothing is buffered
    out = subprocess.run(
        [sys.executable, "-c", f"print(len(open({str(path)!r}).read().splitlines()))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "3"
    session = load_journal(path)
    assert session.runs[0].end_reason is None
    assert session.runs[0].steps == [run.steps[0]]
    journal.close()


def test_torn_last_line_is_reported_not_fatal(tmp_path) -> None:
    path = tmp_path / "j.jsonl"
    run = make_run(steps=3)
    with Journal(path) as journal:
        record_run(journal, run, end=False)
    text = path.read_text()
    path.write_text(text[: len(text) - 40])  # the last step line cut mid-write
    session = load_journal(path)
    assert len(session.runs[0].steps) == 2
    assert len(session.problems) == 1 and "line 5: torn last line" in session.problems[0]


def test_corruption_before_the_end_is_an_error_naming_the_line(tmp_path) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path) as journal:
        record_run(journal, make_run())
    lines = path.read_text().splitlines()
    lines[2] = lines[2][:10]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(JournalError) as caught:
        load_journal(path)
    assert caught.value.field == "line 3"
    with pytest.raises(JournalError, match="no such journal"):
        load_journal(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "step", "run_id": "nope", "step": {}}\n{"type": "x"}\n')
    with pytest.raises(JournalError) as caught:
        load_journal(bad)
    assert caught.value.field == "line 1"


def test_journal_lines_are_redacted(tmp_path) -> None:
    path = tmp_path / "j.jsonl"
    run = make_run(steps=1)
    run.steps[0].request = {"credentials": {"accessKeyId": "AKIAIOSFODNN7EXAMPLE"}}
    run.steps[0].result.logs = ["secret AKIAIOSFODNN7EXAMPLE here"]
    with Journal(path) as journal:
        record_run(journal, run)
    text = path.read_text()
    assert "AKIAIOSFODNN7EXAMPLE" not in text
    step = json.loads(text.splitlines()[2])["step"]
    assert step["request"]["credentials"]["accessKeyId"] == REDACTED


def test_default_journal_location_follows_xdg_state_home(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    path = default_journal_path()
    assert path.parent == tmp_path / "cfn-debug" / "journals"
    assert path.suffix == ".jsonl"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_journal_path().is_relative_to(Path(tmp_path / "home/.local/state/cfn-debug"))


def test_a_large_step_is_journaled_redacted_and_loads_back_whole(tmp_path) -> None:
    """A step with 300 KB models takes the journal's orjson path: what loads back is the redacted
    step, a NaN stays a NaN and a credential deep inside a model is still caught."""
    path = tmp_path / "big.jsonl"
    items = [{"Key": f"key-{i}", "Value": "v" * 40, "Weight": i} for i in range(5000)]
    model = {"Name": "big", "Items": items}
    returned = {**model, "Items": [*items[:-1], {"Key": "leak", "Value": "AKIAIOSFODNN7EXAMPLE"}]}
    returned["Ratio"] = float("nan")
    run = make_run(steps=1)
    step = run.steps[0]
    step.request = {
        "credentials": {"accessKeyId": "AKIAIOSFODNN7EXAMPLE", "sessionToken": "t" * 30},
        "request": {"clientRequestToken": "tok", "desiredResourceState": model},
    }
    step.result.progress = {"status": "SUCCESS", "resourceModel": returned}
    with Journal(path) as journal:
        record_run(journal, run)
    assert b"AKIAIOSFODNN7EXAMPLE" not in path.read_bytes()
    loaded = load_journal(path).runs[0].steps[0]
    assert loaded.request["request"]["desiredResourceState"] == model
    assert loaded.request["credentials"] == {"accessKeyId": REDACTED, "sessionToken": REDACTED}
    back = loaded.result.progress["resourceModel"]
    assert back["Items"][:-1] == items[:-1]
    assert back["Items"][-1] == {"Key": "leak", "Value": REDACTED}
    assert back["Ratio"] != back["Ratio"]  # NaN, not null


def test_a_large_step_line_from_the_encodings_build_step_made_means_the_step(tmp_path) -> None:
    """The journal writes a large step's models from the encodings build_step made for its diffs
    and secret scan (handed over on the StepCompleted): the line means what
    json.dumps(redact(entry)) means, credentials redacted, and is the line written when no such
    encodings are at hand."""
    from cfn_debug.chain import build_step
    from cfn_debug.diff import Encodings
    from cfn_debug.invoke.outcome import classify
    from cfn_debug.journal.session import _dumps, _step_dict
    from cfn_debug.schema import load_schema
    from cfn_debug.text.redact import redact

    schema = load_schema(Path(__file__).parent / "fixtures" / "schemas" / "widget.json")
    tags = [{"Key": f"key-{i:05d}", "Value": f"value-{i:05d}"} for i in range(3000)]
    desired = {"Name": "w", "Tags": tags}
    added = {"Key": "k", "Value": "\u00e9"}  # not ASCII: written as UTF-8
    returned = {**desired, "WidgetId": "w-1", "Tags": [*reversed(tags), added]}
    request = {
        "credentials": {"accessKeyId": "AKIAABCDEFGHIJKLMNOP", "secretAccessKey": "s" * 40},
        "request": {"desiredResourceState": desired, "clientRequestToken": "t"},
    }
    answer = json.dumps({"status": "SUCCESS", "resourceModel": returned}).encode()
    encodings = Encodings()
    step = build_step(
        index=0,
        action=Action.CREATE,
        function_name="F",
        request=request,
        result=classify(answer, duration_s=0.1),
        started_at="now",
        schema=schema,
        desired=desired,
        previous=None,
        original_desired=desired,
        previous_steps=[],
        encodings=encodings,
    )
    with Journal(tmp_path / "from-step.jsonl") as journal:
        journal.record(StepCompleted("r1", step, encodings))
    with Journal(tmp_path / "afresh.jsonl") as journal:
        journal.record(StepCompleted("r1", step))
    line = (tmp_path / "from-step.jsonl").read_bytes().splitlines()[1]
    assert len(line) > 100_000
    assert line == (tmp_path / "afresh.jsonl").read_bytes().splitlines()[1]
    expected = {"type": "step", "run_id": "r1", "step": _step_dict(step)}
    assert json.loads(line) == json.loads(_dumps(redact(expected)))
    assert b"AKIAABCDEFGHIJKLMNOP" not in line


def test_a_line_in_pieces_is_written_whole_and_in_order_through_short_writes(
    tmp_path, monkeypatch
) -> None:
    """A large line goes to writev in pieces: more pieces than one call takes (IOV_MAX), and
    short writes (the kernel may write less than asked: a signal, a file size limit; here each
    real writev is given at most 100,000 bytes) that cut a piece in the middle lose nothing."""
    import os

    from cfn_debug.journal import session

    real_writev = os.writev
    calls: list[int] = []

    def short_writev(descriptor: int, buffers: list[memoryview]) -> int:
        taken, room = [], 100_000
        for buffer in buffers:
            if room <= 0:
                break
            taken.append(buffer[:room])
            room -= len(taken[-1])
        assert len(buffers) <= 1024  # IOV_MAX
        calls.append(len(buffers))
        return real_writev(descriptor, taken)

    monkeypatch.setattr(session.os, "writev", short_writev)
    pieces = [bytes([65 + i % 26]) * (i % 700) for i in range(3000)]
    pieces.insert(1500, b"x" * 300_000)
    path = tmp_path / "pieces"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        session._write_all(descriptor, pieces)
    finally:
        os.close(descriptor)
    assert path.read_bytes() == b"".join(pieces)
    assert len(calls) > 3
