"""The Markdown transcript, to paste into a pull request or an issue (GitHub-flavoured tables).

Everything a handler produced is untrusted text: table cells escape pipes and Markdown
punctuation, code spans pick a backtick fence longer than any run inside them, and log blocks a
fence longer than any line of backticks in the logs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape as html_escape
from typing import Any, TextIO

from cfn_debug.aws_calls import RAISED_MARK, error_text, status_text
from cfn_debug.export.formatting import (
    aws_calls_note as _aws_calls_note,
)
from cfn_debug.export.formatting import (
    compact_json,
    delay_text,
    duration_vs_limit,
    end_reason_text,
    finding_counts,
    findings_summary,
    findings_with_contract,
    meta_items,
    model_changes,
    problem_detail,
    run_status,
    seconds,
    status_label,
    step_problems,
    timing_class,
    visible,
    write_only_note,
)
from cfn_debug.export.markup import code, fence_for, text
from cfn_debug.export.masking import Masker
from cfn_debug.export.scenario_report import scenarios_of, write_scenarios_markdown
from cfn_debug.records import Change, Finding, RunRecord, Step

_MAX_CELL = 200


def _cell_value(value: Any) -> str:
    if value is None:
        return ""
    rendered = compact_json(value)
    if len(rendered) > _MAX_CELL:
        rendered = rendered[: _MAX_CELL - 1] + "…"
    return code(rendered)


def _status_cell(step: Step) -> str:
    return text(status_label(step))


def _write_header(meta: Mapping[str, Any], masker: Masker, out: TextIO) -> None:
    out.write("# cfn-debug session transcript\n\n")
    for label, value in meta_items(meta):
        out.write(f"- {label}: {code(str(value), in_table=False)}\n")
    note = write_only_note(masker)
    out.write(f"- Credentials: redacted; writeOnly values: {note}\n\n")


def _write_finding(finding: Finding, sentence: str | None, out: TextIO) -> None:
    where = f" (step {finding.step})" if finding.step is not None else " (chain)"
    pointer = f" at {code(finding.pointer, in_table=False)}" if finding.pointer else ""
    out.write(
        f"- **{finding.level.value}** {code(finding.rule_id, in_table=False)}{where}{pointer}: "
        f"{text(finding.message)}\n"
    )
    if sentence:
        out.write(f"  > Contract: {text(sentence)}\n")


def _write_changes(title: str, changes: list[Change], out: TextIO) -> None:
    out.write(f"{title}\n\n| Pointer | Change | Before | After | Note |\n|---|---|---|---|---|\n")
    for change in changes:
        out.write(
            f"| {code(change.pointer or '/')} | {change.kind.value} | {_cell_value(change.before)}"
            f" | {_cell_value(change.after)} | {text(change.note)} |\n"
        )
    out.write("\n")


def _write_details(summary: str, lines: list[str], out: TextIO) -> None:
    fence = fence_for(lines)
    out.write(f"<details><summary>{html_escape(summary)}</summary>\n\n{fence}text\n")
    for line in lines:
        out.write(visible(line.replace("\r", "")))
        out.write("\n")
    out.write(f"{fence}\n\n</details>\n\n")


def _write_run(run: RunRecord, out: TextIO) -> None:
    status = run_status(run)
    out.write(
        f"## {text(run.event_name)} · {run.action.value} · {text(status)} · "
        f"{seconds(run.total_s)}\n\n"
    )
    must, should = finding_counts(run)
    out.write(
        f"Function {code(run.function_name, in_table=False)} at "
        f"{code(run.endpoint, in_table=False)}, started {text(run.started_at)}; "
        f"{len(run.steps)} step(s), ended: {text(end_reason_text(run))}; "
        f"findings: {must} MUST, {should} SHOULD.\n\n"
    )
    out.write("| Step | Status | Duration / limit | Delay | Findings |\n")
    out.write("|---:|---|---|---:|---|\n")
    for step in run.steps:
        timing = duration_vs_limit(step)
        mark = {"ok": "", "warn": " ⚠", "over": " ❌ over the limit"}[
            timing_class(step.duration_s, step.limit_s)
        ]
        out.write(
            f"| {step.index} | {_status_cell(step)} | {timing}{mark} | {delay_text(step)} | "
            f"{text(findings_summary(step))} |\n"
        )
    out.write("\n")

    if run.findings:
        out.write("### Findings\n\n")
        for finding, sentence in findings_with_contract(run):
            _write_finding(finding, sentence, out)
        out.write("\n")

    changes = model_changes(run)
    if changes:
        out.write("### Model changes\n\n")
        for title, table in changes:
            _write_changes(title, table, out)

    problems = step_problems(run)
    if problems:
        out.write("### Invocation errors\n\n")
        for step, problem in problems:
            out.write(f"- Step {step.index}: {text(problem)}\n")
        out.write("\n")
        for step, _ in problems:
            if lines := problem_detail(step):
                _write_details(f"Step {step.index}: {step.result.kind.value} detail", lines, out)

    _write_aws_calls(run, out)

    logged = [s for s in run.steps if s.result.logs]
    if logged:
        out.write("### Handler logs\n\n")
        for step in logged:
            count = len(step.result.logs)
            _write_details(f"Step {step.index}: {count} log line(s)", step.result.logs, out)


def _write_aws_calls(run: RunRecord, out: TextIO) -> None:
    """The AWS calls of every step: one table row each, a failed one flagged, the raising one
    marked."""
    if not any(step.aws_calls for step in run.steps):
        note = _aws_calls_note(run)
        if note:  # a runtime whose calls are not recorded (Go, Java): said, not an empty list
            out.write(f"### AWS calls\n\n{text(note)}\n\n")
        return
    out.write("### AWS calls\n\n| Step | Call | Status | Duration | Error | Parameters |\n")
    out.write("|---:|---|---|---:|---|---|\n")
    for step in run.steps:
        for call in step.aws_calls:
            flag = f" **{RAISED_MARK}**" if call.raised else (" ❌" if call.failed else "")
            out.write(
                f"| {step.index} | {code(call.name)}{flag} | {text(status_text(call))} | "
                f"{call.duration_ms:.1f} ms | {text(error_text(call))} | "
                f"{_cell_value(call.params) if call.params else ''} |\n"
            )
    out.write("\n")


def write_markdown(
    runs: Iterable[RunRecord], meta: Mapping[str, Any], out: TextIO, masker: Masker
) -> None:
    """Write the Markdown transcript of ``runs`` (masked by ``masker``) to ``out``."""
    _write_header(meta, masker, out)
    write_scenarios_markdown(scenarios_of(meta), out)
    for run in masker.runs(runs, models=False):
        _write_run(run, out)
