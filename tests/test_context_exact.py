"""A returned callbackContext is kept exactly as the handler wrote it: never replaced by an
earlier context that is merely ``==`` to it (Python's 1 == 1.0 == True, 0 == False, key order
ignored). Real loopback HTTP (the Lambda stub), the real chain, the journal written and loaded
back, the JSON export and its re-export."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from cfn_debug.chain import ChainOptions
from cfn_debug.export.json import load_transcript
from cfn_debug.journal.session import Journal, load_journal
from cfn_debug.records import RunEnded
from invoke.lambda_stub import LambdaStub, Reply
from test_chain import chain, collect

TUI = str(Path(__file__).resolve().parents[1] / "tui")

#: What the handler returns at each step, as bytes: the second context is == to the first
#: (1.0 == 1, False == 0, same keys in another order) but not the same JSON.
CONTEXTS = [
    b'{"n": 1, "flag": 0, "on": 1, "a": {"x": 1, "y": 2}}',
    b'{"n": 1.0, "flag": false, "on": true, "a": {"y": 2, "x": 1}}',
]


def answers(payload: Any) -> Reply:
    step = answers.calls  # type: ignore[attr-defined]
    answers.calls += 1  # type: ignore[attr-defined]
    if step < len(CONTEXTS):
        body = (
            b'{"status": "IN_PROGRESS", "callbackDelaySeconds": 0, "resourceModel": {"Name": "w"}'
            b', "callbackContext": ' + CONTEXTS[step] + b"}"
        )
    else:
        body = b'{"status": "SUCCESS", "resourceModel": {"Name": "w", "WidgetId": "w-1"}}'
    return Reply(body)


def encoded(value: Any) -> bytes:
    return json.dumps(value).encode()


async def test_an_equal_but_different_context_is_kept_as_returned(tmp_path: Path) -> None:
    answers.calls = 0  # type: ignore[attr-defined]
    journal_path = tmp_path / "j.jsonl"
    with LambdaStub() as stub, Journal(journal_path) as journal:
        stub.functions["TestEntrypoint"] = answers
        events = await collect(chain(stub, ChainOptions(max_delay_s=0)), journal.record)
    run = events[-1].run
    assert isinstance(events[-1], RunEnded) and len(run.steps) == 3
    # What the handler received at step 2 is what it returned at step 1, byte for byte.
    assert encoded(stub.received[2].payload["callbackContext"]) == CONTEXTS[1]
    assert encoded(run.steps[1].result.progress["callbackContext"]) == CONTEXTS[1]
    assert encoded(run.steps[2].request["callbackContext"]) == CONTEXTS[1]

    (loaded,) = load_journal(journal_path).runs
    assert encoded(loaded.steps[0].result.progress["callbackContext"]) == CONTEXTS[0]
    assert encoded(loaded.steps[1].request["callbackContext"]) == CONTEXTS[0]
    assert encoded(loaded.steps[1].result.progress["callbackContext"]) == CONTEXTS[1]
    assert encoded(loaded.steps[2].request["callbackContext"]) == CONTEXTS[1]

    exported, again = tmp_path / "t.json", tmp_path / "t2.json"
    for source, target in ((journal_path, exported), (exported, again)):
        done = subprocess.run(
            [sys.executable, "-m", "cfn_debug.cli", "export", str(source), "-o", str(target)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": TUI + os.pathsep + os.environ.get("PYTHONPATH", "")},
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-2000:]
    for path in (exported, again):
        (run_back,) = load_transcript(path).runs
        assert encoded(run_back.steps[1].result.progress["callbackContext"]) == CONTEXTS[1]
        assert encoded(run_back.steps[2].request["callbackContext"]) == CONTEXTS[1]
