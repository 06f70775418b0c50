"""writeOnly values out of what `cfn-debug scenario` prints and writes (``--reveal-write-only``
shows them): the chains' steps as `cfn-debug run` masks them, and every text a scenario writes
itself (verdicts, notes, cleanup lines, the minimal failing input) scrubbed of the writeOnly
values its chains carried."""

from __future__ import annotations

from typing import Any

from cfn_debug.export.masking import MIN_SCRUB_LEN, WRITE_ONLY_MASK, Masker
from cfn_debug.records import RunRecord, Step
from cfn_debug.scenarios.results import ScenarioResult


class Scrubber:
    """The writeOnly values seen so far, and texts with them replaced by the mask."""

    def __init__(self, write_only: Any, *, reveal: bool = False) -> None:
        self.write_only = tuple(write_only)
        self.reveal = reveal or not self.write_only
        self.secrets: set[str] = set()
        self._ordered: list[str] = []

    def observe(self, steps: list[Step]) -> None:
        """Learn the writeOnly values in these steps' requests and answers."""
        if self.reveal or not steps:
            return
        holder = RunRecord("", "", None, steps[0].action, "", "", "", steps=list(steps))
        found = Masker(self.write_only, runs=[holder]).secrets
        if not found <= self.secrets:
            self.secrets |= found
            self._ordered = sorted(self.secrets, key=len, reverse=True)

    def text(self, value: str) -> str:
        for secret in self._ordered:
            if len(secret) >= MIN_SCRUB_LEN and secret in value:
                value = value.replace(secret, WRITE_ONLY_MASK)
        return value

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value


def masked_results(
    results: list[ScenarioResult], write_only: Any, *, reveal: bool = False
) -> list[dict[str, Any]]:
    """``[r.to_dict() for r in results]`` with every writeOnly value masked."""
    documents = [r.to_dict() for r in results]
    if reveal or not tuple(write_only):
        return documents
    runs = [a.run for r in results for a in r.actions]
    masker = Masker(write_only, runs=runs)
    scrub = Scrubber(write_only)
    for run in runs:
        scrub.observe(run.steps)
    for result, document in zip(results, documents, strict=True):
        for action, entry in zip(result.actions, document["actions"], strict=True):
            entry["run"] = masker.run_dict(action.run)
        for key in ("verdicts", "cleanup", "notes", "error"):
            document[key] = scrub.value(document[key])
        if document["minimal_input"] is not None:
            document["minimal_input"] = scrub.value(masker.mask_model(document["minimal_input"]))
    return documents
