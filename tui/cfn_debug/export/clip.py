"""One piece of a step as text for the clipboard, masked exactly as an export masks it.

The dashboard's `y` copies the selected step's request, response, callbackContext or findings;
what it copies goes through the exporters' Masker (credentials redacted, writeOnly values masked),
so nothing reaches the clipboard that an export would not show.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from typing import Any

from cfn_debug.export.masking import Masker
from cfn_debug.records import RunRecord, Step

#: What `y` can copy, in the chooser's order: (id, title).
CLIPS: tuple[tuple[str, str], ...] = (
    ("request", "Request"),
    ("response", "Response"),
    ("context", "callbackContext"),
    ("findings", "Findings"),
)


def clip_text(
    run: RunRecord,
    steps: Sequence[Step],
    index: int,
    what: str,
    write_only: Iterable[str] = (),
) -> str:
    """``what`` (a CLIPS id) of step ``index`` of ``run`` (with ``steps`` streamed so far)."""
    whole = dataclasses.replace(run, steps=list(steps))
    masked = Masker(write_only, runs=[whole]).run(whole)
    step = masked.steps[index]
    if what == "request":
        return _json(step.request)
    if what == "response":
        result = step.result
        if result.progress is not None:
            return _json(result.progress)
        return "\n".join(
            part
            for part in (
                result.error_type,
                result.error_message,
                "".join(result.stack_trace),
                result.body_excerpt,
            )
            if part
        )
    if what == "context":
        progress = step.result.progress or {}
        return _json(progress.get("callbackContext"))
    if what == "findings":
        return "\n".join(
            f"{f.level.value} {f.rule_id}{' ' + f.pointer if f.pointer else ''}: {f.message}"
            for f in step.findings
        )
    raise ValueError(f"nothing to copy called {what!r}")


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)
