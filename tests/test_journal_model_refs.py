"""A resource model that repeats in a chain is written to the journal once (``model_refs``) and
loads back whole; a model that is only alike (the same object changed in place, 1 for 1.0, a
NaN for a null) is written again, and a reference that points nowhere is a clear JournalError."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cfn_debug.chain import build_step
from cfn_debug.diff import Encodings
from cfn_debug.errors import JournalError
from cfn_debug.events import Shape, build_payload, parse_event
from cfn_debug.invoke.base import encode_request
from cfn_debug.invoke.outcome import classify
from cfn_debug.journal.session import Journal, load_journal
from cfn_debug.records import Action, RunEnded, RunRecord, RunStarted, Step, StepCompleted
from cfn_debug.text.redact import REDACTED


def model(items: int = 200, **extra: Any) -> dict[str, Any]:
    return {
        "Name": "m",
        "Items": [{"Key": f"k{i}", "Value": "v" * 20, "Weight": i} for i in range(items)],
        **extra,
    }


def answer(returned: dict[str, Any], status: str = "IN_PROGRESS") -> bytes:
    return json.dumps({"status": status, "resourceModel": returned}).encode()


def chain_step(
    index: int, desired: dict[str, Any], body: bytes, shape: Shape = Shape.SAM
) -> StepCompleted:
    """A step built as run_chain builds it, as the event it yields (with the step's encodings,
    seeded with the request body's)."""
    event = parse_event(
        {"action": "CREATE", "request": {"desiredResourceState": desired}}, name="e"
    )
    payload = build_payload(event.normalized, shape, desired=desired, client_request_token="t")
    encodings = Encodings(encode_request(payload)[1])
    step = build_step(
        index=index,
        action=Action.CREATE,
        function_name="F",
        request=payload,
        result=classify(body, duration_s=0.001),
        started_at="2026-01-01T00:00:00+00:00",
        schema=None,
        desired=desired,
        previous=None,
        original_desired=desired,
        previous_steps=[],
        encodings=encodings,
    )
    return StepCompleted("r", step, encodings)


def journal_of(path: Path, steps: Iterable[StepCompleted]) -> list[dict[str, Any]]:
    """Each step journaled as it is built (as run_chain's consumer does)."""
    run = RunRecord(run_id="r", event_name="e", event_path=None, action=Action.CREATE,
                    function_name="F", endpoint="x", started_at="s")  # fmt: skip
    with Journal(path) as journal:
        journal.record(RunStarted(run))
        for step in steps:
            journal.record(step)
        journal.record(RunEnded(run))
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def request_model(step: Step) -> Any:
    inner = step.request.get("request") or step.request.get("requestData")
    return inner.get("desiredResourceState", inner.get("resourceProperties"))


@pytest.mark.parametrize("shape", [Shape.SAM, Shape.HANDLER_REQUEST])
def test_each_request_carrying_the_model_returned_before_refers_to_it(
    tmp_path: Path, shape: Shape
) -> None:
    """As run_chain does: the next request's model is the model the step before returned."""
    steps: list[Step] = []

    def chain() -> Iterator[StepCompleted]:
        desired = model()
        for index in range(4):
            event = chain_step(index, desired, answer(model(Name=f"returned-{index}")), shape)
            steps.append(event.step)
            yield event
            desired = event.step.result.progress["resourceModel"]

    lines = journal_of(tmp_path / "j.jsonl", chain())
    step_lines = [line for line in lines if line["type"] == "step"]
    assert [line.get("model_refs") for line in step_lines] == [
        None,
        *({"request": [i, "result"]} for i in range(3)),
    ]
    (run,) = load_journal(tmp_path / "j.jsonl").runs
    for loaded, step in zip(run.steps, steps, strict=True):
        assert request_model(loaded) == request_model(step)
        assert loaded.result.progress == step.result.progress
    assert request_model(run.steps[3]) == model(Name="returned-2")


def test_the_same_model_sent_and_returned_at_every_step_is_written_once(tmp_path: Path) -> None:
    same = model(2000)
    path = tmp_path / "j.jsonl"
    lines = journal_of(path, (chain_step(i, same, answer(same)) for i in range(5)))
    size = len(json.dumps(same))
    assert path.stat().st_size < 2 * size  # once, not 10 times
    assert lines[2]["model_refs"] == {"result": [0, "request"]}  # its own request's
    assert lines[3]["model_refs"] == {"request": [0, "request"], "result": [0, "request"]}
    (run,) = load_journal(path).runs
    for loaded in run.steps:
        assert request_model(loaded) == same and loaded.result.progress["resourceModel"] == same


def test_a_model_changed_in_place_between_steps_is_written_again(tmp_path: Path) -> None:
    """No cache by identity: the one object sent twice, changed in between."""
    shared = model()
    first = chain_step(0, shared, answer({"Name": "x"}))
    journal = Journal(tmp_path / "j.jsonl")
    run = RunRecord(run_id="r", event_name="e", event_path=None, action=Action.CREATE,
                    function_name="F", endpoint="x", started_at="s")  # fmt: skip
    journal.record(RunStarted(run))
    journal.record(first)
    shared["Items"][7]["Value"] = "changed"  # the step above is journaled: its line is written
    second = chain_step(1, shared, answer({"Name": "x"}))
    journal.record(second)
    journal.close()
    (loaded,) = load_journal(tmp_path / "j.jsonl").runs
    assert request_model(loaded.steps[1])["Items"][7]["Value"] == "changed"
    assert request_model(loaded.steps[0])["Items"][7]["Value"] == "v" * 20


@pytest.mark.parametrize(
    ("before", "after"),
    [(1, 1.0), (1, True), (0.0, -0.0), ([1], [1.0]), ([None], [math.nan]), ("1", 1)],
)
def test_models_alike_but_not_equal_are_both_written(
    tmp_path: Path, before: Any, after: Any
) -> None:
    steps = (
        chain_step(i, model(Extra=extra), answer({"Name": "x"}))
        for i, extra in enumerate((before, after))
    )
    lines = journal_of(tmp_path / "j.jsonl", steps)
    assert "request" not in lines[3]["model_refs"]  # lines: session, run_started, step 0, 1
    (run,) = load_journal(tmp_path / "j.jsonl").runs
    got = request_model(run.steps[1])["Extra"]
    assert type(got) is type(after) and repr(got) == repr(after)


def test_a_referred_model_keeps_its_secrets_redacted(tmp_path: Path) -> None:
    secret = model(Password="x", Nested={"sessionToken": "s" * 30})
    path = tmp_path / "j.jsonl"
    lines = journal_of(path, (chain_step(i, secret, answer(secret)) for i in range(3)))
    assert lines[3]["model_refs"] == {"request": [0, "request"], "result": [0, "request"]}
    assert "s" * 30 not in path.read_text()
    (run,) = load_journal(path).runs
    assert request_model(run.steps[2])["Nested"] == {"sessionToken": REDACTED}


@pytest.mark.parametrize(
    "refs",
    [
        {"request": [7, "result"]},  # no such step
        {"request": [0, "elsewhere"]},
        {"result": [0, "request"]},  # its result has a model of its own: no place for it
        {"request": "0"},
        ["request"],
        {"request": [True, "result"]},
    ],
)
def test_a_reference_that_points_nowhere_is_a_clear_error(tmp_path: Path, refs: Any) -> None:
    same = model(5)
    path = tmp_path / "j.jsonl"
    steps = (chain_step(i, same, answer({"Name": f"other{i}"})) for i in range(2))
    lines = journal_of(path, steps)
    assert lines[3]["model_refs"] == {"request": [0, "request"]}
    lines[3]["model_refs"] = refs
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(JournalError) as caught:
        load_journal(path)
    assert "line 4" in str(caught.value) and "model_refs" in str(caught.value)


def test_a_line_that_could_not_be_written_is_never_referred_to(tmp_path: Path) -> None:
    """A step line whose write fails (here: the journal's descriptor made read-only, so writev
    fails as on a full disk) is not in the file: the next step, carrying the same model and
    context, writes them in full, and the journal loads."""
    import os

    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    run = RunRecord(run_id="r", event_name="e", event_path=None, action=Action.CREATE,
                    function_name="F", endpoint="x", started_at="s")  # fmt: skip
    journal.record(RunStarted(run))
    journal.record(chain_step(0, model(), answer({"Name": "a"})))
    again = model(Name="again")
    lost = chain_step(1, again, answer({"Name": "b"}))
    descriptor = journal._fd
    assert descriptor is not None
    writable = os.dup(descriptor)
    read_only = os.open(path, os.O_RDONLY)
    os.dup2(read_only, descriptor)
    with pytest.raises(JournalError):
        journal.record(lost)
    os.dup2(writable, descriptor)
    for fd in (writable, read_only):
        os.close(fd)
    journal.record(chain_step(2, again, answer({"Name": "c"})))
    journal.close()
    (loaded,) = load_journal(path).runs
    assert [step.index for step in loaded.steps] == [0, 2]
    assert request_model(loaded.steps[1]) == again
