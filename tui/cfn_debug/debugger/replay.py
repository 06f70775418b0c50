"""Replaying one step under the debugger (the dashboard's ``b``): exactly that step's request
(same callbackContext, model, clientRequestToken) sent once more, to a worker whose pdb stops at
the handler's entry, or, for a step that failed with a traceback, at the deepest frame of the
handler's own code in it.

The replay is a run of its own in the stream and the journal (``replay_of`` names the step), one
invocation long; ``compare`` tells its findings against the original step's.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfn_debug.events import EventSpec, parse_event
from cfn_debug.records import ChainEvent, Finding, RunEnded, RunRecord, RunStarted, Step
from cfn_debug.text.redact import REDACTED
from cfn_debug.text.tracebacks import last_traceback

_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
#: Directories of installed code: a frame there is a library's, not the handler's.
_LIBRARY_PARTS = ("site-packages", "dist-packages")


@dataclass(frozen=True)
class ReplayTarget:
    """Where pdb stops: the first line of the first function of ``entry`` that runs, or
    ``at`` (file, line)."""

    entry: str | None = None
    at: tuple[str, int] | None = None

    def describe(self) -> str:
        if self.at is not None:
            return f"{os.path.basename(self.at[0])}:{self.at[1]} (the line that raised)"
        return f"the handler's entry ({os.path.basename(self.entry or '?')})"


def _handler_module_file(code_dir: Path, handler: str) -> Path | None:
    module = handler.rpartition(".")[0]
    if not module:
        return None
    base = code_dir / module.replace(".", "/")
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return None


def _own_code(path: str, code_dir: Path) -> bool:
    """A file of the handler's code directory that no installed distribution vendored there."""
    try:
        resolved = Path(path).resolve()
        relative = resolved.relative_to(code_dir.resolve())
    except (OSError, ValueError):
        return False
    if any(part in _LIBRARY_PARTS for part in resolved.parts) or not resolved.is_file():
        return False
    top = relative.parts[0] if relative.parts else ""
    vendored = any(code_dir.glob(f"{top.removesuffix('.py')}-*.dist-info"))
    return not vendored


def failing_line(step: Step, code_dir: Path) -> tuple[str, int] | None:
    """The deepest frame of the handler's own code in the step's traceback (its logs, or a
    crash's stackTrace), else None."""
    lines: list[str] = []
    found = last_traceback(step.result.logs)
    if found is not None:
        lines = list(found.lines)
    elif step.result.stack_trace:
        lines = [line for entry in step.result.stack_trace for line in entry.splitlines()]
    deepest = None
    for line in lines:
        match = _FRAME.search(line)
        if match and _own_code(match.group("file"), code_dir):
            deepest = (str(Path(match.group("file")).resolve()), int(match.group("line")))
    return deepest


def replay_target(step: Step, code_dir: Path, handler: str) -> ReplayTarget:
    """For a failed step with a traceback, its raising line; else the handler's entry."""
    failed = step.result.status == "FAILED" or step.result.progress is None
    if failed:
        at = failing_line(step, code_dir)
        if at is not None:
            return ReplayTarget(at=at)
    entry = _handler_module_file(code_dir, handler)
    return ReplayTarget(entry=str(entry) if entry is not None else None)


def replay_event(run: RunRecord, step: Step, original: EventSpec | None = None) -> EventSpec:
    """The step's request as an event to send once, as written. Credentials redacted in the
    step come back from the original event (else the workspace's defaults or placeholders)."""
    name = f"{run.event_name} · replay of step #{step.index}"
    event = parse_event(step.request, name=name)
    creds = event.normalized.credentials
    if creds is not None and REDACTED in creds.values():
        own = original.normalized.credentials if original is not None else None
        event.normalized = dataclasses.replace(event.normalized, credentials=own)
    return event


async def marked(
    stream: AsyncIterator[ChainEvent], run: RunRecord, step: Step
) -> AsyncIterator[ChainEvent]:
    """``stream`` with its run marked as the replay of ``step`` of ``run``."""
    replay_of = f"{run.run_id}#{step.index}"
    async for event in stream:
        if isinstance(event, RunStarted | RunEnded):
            event.run.replay_of = replay_of
        yield event


@dataclass(frozen=True)
class ReplayComparison:
    same: tuple[Finding, ...]
    fixed: tuple[Finding, ...]  # the original's, not found again
    new: tuple[Finding, ...]

    def describe(self) -> str:
        if not self.fixed and not self.new:
            return f"the same findings as the original step ({len(self.same)})"
        return (
            f"{len(self.fixed)} of the original step's findings gone, {len(self.new)} new, "
            f"{len(self.same)} the same"
        )


def compare(original: Step, replayed: Step) -> ReplayComparison:
    def key(finding: Finding) -> tuple[str, Any]:
        return finding.rule_id, finding.pointer

    before = {key(f): f for f in original.findings}
    after = {key(f): f for f in replayed.findings}
    return ReplayComparison(
        same=tuple(f for k, f in after.items() if k in before),
        fixed=tuple(f for k, f in before.items() if k not in after),
        new=tuple(f for k, f in after.items() if k not in before),
    )
