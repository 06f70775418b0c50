"""What every transcript format says alike: a step's status, its timing, a rule's sentence, and
which parts of a run a transcript shows (the formats differ only in markup)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from cfn_debug.contract.rules import rule  # the catalogue alone: no checks, no jsonschema
from cfn_debug.records import (
    WARN_FRACTION,
    Action,
    Change,
    Finding,
    Level,
    OutcomeKind,
    RunRecord,
    Step,
)
from cfn_debug.text.terminal import printable

if TYPE_CHECKING:
    from cfn_debug.export.masking import Masker

_META_LABELS = (
    ("project", "Project"),
    ("endpoint", "Endpoint"),
    ("version", "cfn-debug"),
    ("created", "Created"),
)


def meta_items(meta: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(label, value) of the transcript's header: project, endpoint, version, created (if set)."""
    return [(label, meta[key]) for key, label in _META_LABELS if meta.get(key) not in (None, "")]


def write_only_note(masker: Masker) -> str:
    """How writeOnly values are shown: revealed, masked, or not known (no schema)."""
    if masker.reveal_write_only:
        return "revealed (--reveal-write-only)"
    if masker.masks_write_only:
        return "masked"
    return "not known (no schema given), not masked"


def aws_calls_note(run: RunRecord) -> str | None:
    """What a run's steps say instead of AWS calls (a runtime whose calls are not recorded), or
    None."""
    return next((s.result.aws_calls_note for s in run.steps if s.result.aws_calls_note), None)


def step_status(step: Step) -> str:
    """SUCCESS, FAILED, IN_PROGRESS (from the ProgressEvent), else the outcome kind, upper case."""
    status = step.result.status
    if step.result.kind is OutcomeKind.PROGRESS and status:
        return status
    return step.result.kind.value.upper()


def step_error_code(step: Step) -> str | None:
    progress = step.result.progress
    code = progress.get("errorCode") if isinstance(progress, dict) else None
    return code if isinstance(code, str) and code else None


def status_label(step: Step) -> str:
    """The step's status with its ProgressEvent errorCode, e.g. ``FAILED (NotFound)``."""
    status = step_status(step)
    error_code = step_error_code(step)
    return f"{status} ({error_code})" if error_code else status


def step_problem(step: Step) -> str | None:
    """One line on what went wrong in a step: an outcome without a ProgressEvent, or FAILED."""
    result = step.result
    if result.kind is not OutcomeKind.PROGRESS:
        detail = ": ".join(x for x in (result.error_type, result.error_message) if x)
        return f"{result.kind.value}: {detail}" if detail else result.kind.value
    if result.status == "FAILED":
        code = step_error_code(step)
        progress = result.progress or {}
        message = progress.get("message") if isinstance(progress.get("message"), str) else ""
        head = f"FAILED ({code})" if code else "FAILED"
        return f"{head}: {message}" if message else f"{head}, with no message"
    return None


def status_class(status: str | None) -> str:
    """A CSS-ish class for a status: success, failed, progress or other."""
    if status == "SUCCESS":
        return "success"
    if status == "IN_PROGRESS" or status == "PENDING":
        return "progress"
    if status is None:
        return "other"
    return "failed" if status != "CANCELLED" else "other"


def run_status(run: RunRecord) -> str:
    if run.final_status:
        return run.final_status
    if run.steps:
        return step_status(run.steps[-1])
    return run.end_reason.value.upper() if run.end_reason else "NO STEPS"


def step_problems(run: RunRecord) -> list[tuple[Step, str]]:
    """The run's steps that went wrong, each with its step_problem line."""
    return [(s, p) for s in run.steps if (p := step_problem(s))]


def problem_detail(step: Step) -> list[str]:
    """The lines that show a step's problem: its stack trace, else its response body's lines."""
    return step.result.stack_trace or step.result.body_excerpt.splitlines()


def finding_counts(run: RunRecord) -> tuple[int, int]:
    """(MUST, SHOULD) findings of a run."""
    must = sum(1 for f in run.findings if f.level is Level.MUST)
    return must, len(run.findings) - must


def end_reason_text(run: RunRecord) -> str:
    return run.end_reason.value if run.end_reason else "not recorded"


def findings_with_contract(run: RunRecord) -> Iterator[tuple[Finding, str | None]]:
    """Each finding of a run with the contract sentence its rule enforces for the run's action:
    the sentence once per run and rule (with its first finding), not once per step."""
    quoted: set[str] = set()
    for finding in run.findings:
        sentence = (
            None if finding.rule_id in quoted else contract_sentence(finding.rule_id, run.action)
        )
        quoted.add(finding.rule_id)
        yield finding, sentence


def model_changes(run: RunRecord) -> list[tuple[str, list[Change]]]:
    """(title, changes) of each step's model diffs, against the previous step then its request."""
    tables: list[tuple[str, list[Change]]] = []
    for step in run.steps:
        if step.diff_previous:
            tables.append((f"Step {step.index}, against the previous step:", step.diff_previous))
        if step.diff_request:
            tables.append((f"Step {step.index}, against its request:", step.diff_request))
    return tables


def timing_class(duration_s: float, limit_s: float) -> str:
    """ok, warn (past WARN_FRACTION of the limit) or over (past the limit)."""
    if limit_s > 0 and duration_s > limit_s:
        return "over"
    if limit_s > 0 and duration_s > WARN_FRACTION * limit_s:
        return "warn"
    return "ok"


def seconds(value: float) -> str:
    if value >= 100:
        return f"{value:.0f} s"
    if value >= 1:
        return f"{value:.2f} s"
    return f"{value * 1000:.1f} ms"


def delay_text(step: Step) -> str:
    """The callbackDelaySeconds a step asked for, or "none"."""
    return seconds(step.callback_delay_s) if step.callback_delay_s else "none"


def duration_vs_limit(step: Step) -> str:
    percent = 100 * step.duration_s / step.limit_s if step.limit_s > 0 else 0.0
    return f"{seconds(step.duration_s)} / {step.limit_s:g} s ({percent:.0f}%)"


def findings_summary(step: Step) -> str:
    if not step.findings:
        return "none"
    return ", ".join(f"{f.level.value} {f.rule_id}" for f in step.findings)


@lru_cache(maxsize=512)
def contract_sentence(rule_id: str, action: Action | None = None) -> str | None:
    """The handler-contract sentence(s) a rule enforces (those naming ``action`` when given).

    The rule catalogue is optional for exports: an unknown rule, or no catalogue, gives None.
    """
    try:
        entry = rule(rule_id)
        sentence = entry.contract_for(action) if action is not None else entry.contract
    except Exception:
        return None
    return sentence.strip() if isinstance(sentence, str) and sentence.strip() else None


def compact_json(value: Any) -> str:
    """One line of JSON for a table cell (non-JSON values as their repr)."""
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def pretty_json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def visible(value: str) -> str:
    """Control characters (terminal colour escapes, NULs, a carriage return that would overwrite
    a line on a terminal) and lone surrogates as visible ``\\xNN`` / ``\\udcff`` text.

    Handler output often carries ANSI colours; in a document they are noise, in XML invalid.
    """
    return printable(value)
