"""Loading a journal whose steps refer to earlier ones (model and context references) is one pass:
each reference is a lookup, not a scan of the run's steps so far (12,000 steps took 19-31 s
with a scan per step). Counted, not timed: how often a step's index is read while loading."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cfn_debug.journal.session import load_journal
from cfn_debug.records import Step
from test_journal_model_refs import answer, chain_step, journal_of, model

STEPS = 1_500


def test_references_are_resolved_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    same = model(5)
    path = tmp_path / "j.jsonl"
    lines = journal_of(path, (chain_step(i, same, answer(same)) for i in range(STEPS)))
    assert sum(1 for line in lines if line.get("model_refs")) >= STEPS - 1
    reads = 0
    original = Step.__getattribute__

    def counting(self: Any, name: str) -> Any:
        nonlocal reads
        if name == "index":
            reads += 1
        return original(self, name)

    monkeypatch.setattr(Step, "__getattribute__", counting)
    (run,) = load_journal(path).runs
    monkeypatch.undo()
    assert len(run.steps) == STEPS
    assert run.steps[-1].result.progress["resourceModel"] == same
    assert reads < 10 * STEPS, f"{reads} reads of a step's index for {STEPS} steps"
