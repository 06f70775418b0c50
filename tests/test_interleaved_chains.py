"""Two chains run at once in one process (the dashboard's watch re-run beside the user's run,
scenarios): each step is built from its own request body's encodings and each journal line is
written from its own step's, whatever order the chains' requests, answers and lines come in."""

from __future__ import annotations

import asyncio
import gc
import json
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from cfn_debug.chain import ChainOptions, run_chain
from cfn_debug.diff import Encodings
from cfn_debug.events import Shape, parse_event
from cfn_debug.invoke.local import LocalInvoker
from cfn_debug.journal.session import Journal, load_journal
from cfn_debug.records import RunEnded, RunRecord, StepCompleted
from invoke.lambda_stub import LambdaStub

STEPS = 4
#: An encoding at least this long is a large one (a request model's member this long is
#: encoded on its own for the body, see invoke.base).
LARGE = 64 * 1024


def model(tag: str) -> dict[str, Any]:
    """A model whose Items (about 80 KB of JSON) are this tag's alone (by their first)."""
    items = [{"Key": f"key-{i}", "Value": "v" * 24} for i in range(2000)]
    return {"Name": tag, "Items": [{"Key": tag, "Value": ""}, *items]}


def answering(name: str) -> Any:
    """A function that answers IN_PROGRESS with a new model until its last step, slowly enough
    that the other chain's request is sent while this one's is in flight."""

    def function(payload: dict[str, Any]) -> dict[str, Any]:
        time.sleep(0.05)
        done = (payload.get("callbackContext") or {}).get("n", 0)
        return {
            "status": "SUCCESS" if done == STEPS - 1 else "IN_PROGRESS",
            "resourceModel": model(f"{name}-{done}"),
            "callbackContext": {"n": done + 1},
        }

    return function


async def run(
    stub: LambdaStub, name: str, journal: Journal | None, made: Counter[str]
) -> RunRecord:
    """One chain of function ``name``, each event journaled as it comes; ``made`` counts the
    large encodings the journal made itself (none when it was handed the step's)."""
    event = parse_event(
        {"action": "CREATE", "request": {"desiredResourceState": model(f"{name}-desired")}},
        name=name,
    )
    invoker = LocalInvoker(stub.url)
    stream = run_chain(
        invoker,
        event,
        function_name=name,
        shape=Shape.SAM,
        schema=None,
        options=ChainOptions(),
    )
    try:
        async for item in stream:
            before = sum(ENCODED.values())
            if journal is not None:
                journal.record(item)
            if isinstance(item, StepCompleted):
                made[item.run_id] += sum(ENCODED.values()) - before
            if isinstance(item, RunEnded):
                return item.run
    finally:
        await invoker.aclose()
    raise AssertionError("the chain did not end")


def times_made(counts: Counter[bytes], tag: str) -> int:
    """How many times the Items of ``model(tag)`` were encoded."""
    start = b'[{"Key":"%s"' % tag.encode()
    return sum(n for raw, n in counts.items() if raw.startswith(start))


#: Every large encoding orjson made (by content), while counting.
ENCODED: Counter[bytes] = Counter()
TOKEN = re.compile(rb'"clientRequestToken":"[^"]*"')


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[bytes]:
    dumps = orjson.dumps

    def counting(*args: Any, **kwargs: Any) -> bytes:
        raw = dumps(*args, **kwargs)
        if len(raw) >= LARGE:  # the same content in either run: the request tokens differ
            ENCODED[TOKEN.sub(b"", raw)] += 1
        return raw

    ENCODED.clear()
    monkeypatch.setattr(orjson, "dumps", counting)
    return ENCODED


async def test_two_chains_at_once_encode_and_journal_each_step_from_its_own_bytes(
    tmp_path: Path, counted: Counter[bytes]
) -> None:
    with LambdaStub() as stub:
        stub.functions["A"] = answering("A")
        stub.functions["B"] = answering("B")
        # one after the other: what each chain's steps encode
        alone_made: Counter[str] = Counter()
        with Journal(tmp_path / "alone.jsonl") as journal:
            for name in ("A", "B"):
                await run(stub, name, journal, alone_made)
        alone = Counter(counted)
        counted.clear()
        # at once: A's request is in flight while B's is encoded and sent, and back again
        together_made: Counter[str] = Counter()
        with Journal(tmp_path / "together.jsonl") as journal:
            runs = await asyncio.gather(
                run(stub, "A", journal, together_made), run(stub, "B", journal, together_made)
            )
        together = Counter(counted)
    assert [len(r.steps) for r in runs] == [STEPS, STEPS]
    lines = (tmp_path / "together.jsonl").read_bytes().splitlines()
    order = [json.loads(line)["step"]["function_name"] for line in lines if b'"step"' in line[:20]]
    assert order != sorted(order), "the chains' steps did not interleave"
    # each line from its own step's encodings: the journal encoded nothing large itself
    assert sum(alone_made.values()) == 0 and sum(together_made.values()) == 0
    # each step seeded with its own body's encodings: no more encoding at once than apart
    assert together == alone
    # a returned model's Items are encoded where they came back (its step's checks, diffs and
    # line) and once more in the body that sends them back (that step's checks, diffs and line
    # reuse the body's), never again
    for name in ("A", "B"):
        made = [times_made(together, f"{name}-{k}") for k in range(STEPS)]
        assert made == [2] * (STEPS - 1) + [1], name
    # and each line holds its own step: the journal loads back to what each chain made
    loaded = {r.function_name: r for r in load_journal(tmp_path / "together.jsonl").runs}
    for made in runs:
        back = loaded[made.function_name]
        assert [s.to_dict() for s in back.steps] == [s.to_dict() for s in made.steps]
        assert back.steps[-1].result.progress["resourceModel"] == model(
            f"{made.function_name}-{STEPS - 1}"
        )


async def test_a_finished_run_keeps_no_step_s_encodings() -> None:
    """The encodings go with the step's event, not the step: a run (which keeps every step)
    holds none of them once its events are consumed, journaled or not (a 5 MB context replayed
    30 times would otherwise keep 30 encodings of it)."""
    gc.collect()
    before = {id(o) for o in gc.get_objects() if isinstance(o, Encodings)}  # other tests'
    with LambdaStub() as stub:
        stub.functions["A"] = answering("A")
        done = await run(stub, "A", None, Counter())
    gc.collect()
    assert len(done.steps) == STEPS
    assert [o for o in gc.get_objects() if isinstance(o, Encodings) and id(o) not in before] == []
