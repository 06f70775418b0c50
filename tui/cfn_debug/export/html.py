"""The HTML transcript: one self-contained file in the dashboard's colours.

Inline CSS only, no scripts, no external assets (fonts, images, stylesheets): it opens from a mail
attachment or a CI artifact as it is. Every value a handler produced goes through html.escape.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape
from typing import Any, TextIO

from cfn_debug.aws_calls import RAISED_MARK, error_text, status_text
from cfn_debug.export.formatting import (
    aws_calls_note,
    delay_text,
    duration_vs_limit,
    end_reason_text,
    finding_counts,
    findings_with_contract,
    meta_items,
    model_changes,
    pretty_json,
    problem_detail,
    run_status,
    seconds,
    status_class,
    status_label,
    step_problems,
    step_status,
    timing_class,
    visible,
    write_only_note,
)
from cfn_debug.export.masking import Masker
from cfn_debug.export.scenario_report import scenarios_of, write_scenarios_html
from cfn_debug.records import Change, Finding, RunRecord, Step
from cfn_debug.text.redact import redact_text

# The dashboard's palette (Textual's dark theme): background, surface, text, and the status colours.
_CSS = """
:root { color-scheme: dark; }
body { background: #121212; color: #e0e0e0; margin: 0; padding: 1.5rem 2rem;
  font: 14px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; }
h1 { color: #0178d4; font-size: 1.4rem; margin: 0 0 .5rem; }
h2 { font-size: 1.15rem; margin: 2rem 0 .4rem; padding: .4rem .6rem; background: #1e1e1e;
  border-left: 4px solid #0178d4; }
h3 { font-size: 1rem; color: #b0b0b0; margin: 1.2rem 0 .3rem; }
dl.meta { display: grid; grid-template-columns: max-content auto; gap: .1rem 1rem; margin: 0; }
dl.meta dt { color: #9e9e9e; } dl.meta dd { margin: 0; }
nav a, nav a:visited { color: #56b6f0; }
table { border-collapse: collapse; margin: .3rem 0 .8rem; background: #1e1e1e; }
th, td { border: 1px solid #333; padding: .2rem .6rem; text-align: left; vertical-align: top; }
th { background: #262626; color: #9e9e9e; font-weight: normal; }
td.num { text-align: right; }
.success { color: #4ebf71; } .failed { color: #e5534b; } .progress { color: #ffa62b; }
.other { color: #b0b0b0; }
tr.call-failed td { color: #e5534b; }
tr.success td.status { border-left: 4px solid #4ebf71; }
tr.failed td.status { border-left: 4px solid #e5534b; }
tr.progress td.status { border-left: 4px solid #ffa62b; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: 3px; background: #262626; }
.t-warn { color: #ffa62b; } .t-over { color: #e5534b; font-weight: bold; }
.must { color: #e5534b; font-weight: bold; } .should { color: #ffa62b; font-weight: bold; }
blockquote { margin: .2rem 0 .4rem 1.5rem; padding-left: .6rem; border-left: 2px solid #444;
  color: #9e9e9e; }
code { color: #d7ba7d; }
pre { background: #0b0b0b; border: 1px solid #333; padding: .5rem .7rem; margin: .3rem 0;
  white-space: pre-wrap; word-break: break-all; }
details { margin: .2rem 0; } summary { cursor: pointer; color: #b0b0b0; }
ul { margin: .2rem 0; padding-left: 1.2rem; }
"""


def _e(value: object) -> str:
    return escape(visible(str(value)), quote=True)


def _write_meta(meta: Mapping[str, Any], masker: Masker, out: TextIO) -> None:
    out.write('<dl class="meta">\n')
    for label, value in meta_items(meta):
        out.write(f"<dt>{label}</dt><dd><code>{_e(value)}</code></dd>\n")
    note = write_only_note(masker)
    out.write(f"<dt>Masking</dt><dd>credentials redacted; writeOnly values {note}</dd>\n</dl>\n")


def _step_row(run_no: int, step: Step, out: TextIO) -> None:
    status = step_status(step)
    timing = timing_class(step.duration_s, step.limit_s)
    findings = (
        ", ".join(
            f'<span class="{f.level.value.lower()}">{_e(f.level.value)}</span> {_e(f.rule_id)}'
            for f in step.findings
        )
        or "none"
    )
    delay = _e(delay_text(step))
    out.write(
        f'<tr id="run-{run_no}-step-{step.index}" class="{status_class(status)}">'
        f'<td class="num">{step.index}</td>'
        f'<td class="status {status_class(status)}">{_e(status_label(step))}</td>'
        f'<td class="t-{timing}">{_e(duration_vs_limit(step))}</td>'
        f'<td class="num">{delay}</td><td>{findings}</td></tr>\n'
    )


def _write_finding(finding: Finding, sentence: str | None, out: TextIO) -> None:
    level = finding.level.value
    where = f"step {finding.step}" if finding.step is not None else "chain"
    pointer = f" at <code>{_e(finding.pointer)}</code>" if finding.pointer else ""
    out.write(
        f'<li><span class="{level.lower()}">{_e(level)}</span> <code>{_e(finding.rule_id)}</code>'
        f" ({_e(where)}){pointer}: {_e(finding.message)}"
    )
    if sentence:
        lines = "<br>".join(_e(line) for line in sentence.splitlines())
        out.write(f"<blockquote>Contract: {lines}</blockquote>")
    out.write("</li>\n")


def _write_changes(title: str, changes: list[Change], out: TextIO) -> None:
    out.write(
        f"<p>{_e(title)}</p>\n<table><tr><th>Pointer</th><th>Change</th><th>Before</th>"
        "<th>After</th><th>Note</th></tr>\n"
    )
    for change in changes:
        before = "" if change.before is None else f"<pre>{_e(pretty_json(change.before))}</pre>"
        after = "" if change.after is None else f"<pre>{_e(pretty_json(change.after))}</pre>"
        out.write(
            f"<tr><td><code>{_e(change.pointer or '/')}</code></td><td>{_e(change.kind.value)}"
            f"</td><td>{before}</td><td>{after}</td><td>{_e(change.note)}</td></tr>\n"
        )
    out.write("</table>\n")


def _write_pre(summary: str, lines: list[str], out: TextIO) -> None:
    out.write(f"<details><summary>{_e(summary)}</summary><pre>")
    for line in lines:
        out.write(_e(line))
        out.write("\n")
    out.write("</pre></details>\n")


def _write_run(run_no: int, run: RunRecord, out: TextIO) -> None:
    status = run_status(run)
    out.write(
        f'<section id="run-{run_no}"><h2>{_e(run.event_name)} · {_e(run.action.value)} · '
        f'<span class="badge {status_class(status)}">{_e(status)}</span> · '
        f"{_e(seconds(run.total_s))}</h2>\n"
    )
    must, should = finding_counts(run)
    out.write(
        f"<p>Function <code>{_e(run.function_name)}</code> at <code>{_e(run.endpoint)}</code>, "
        f"started {_e(run.started_at)}; {len(run.steps)} step(s), ended: "
        f"{_e(end_reason_text(run))}; findings: {must} MUST, {should} SHOULD.</p>\n"
    )
    out.write(
        "<table><tr><th>Step</th><th>Status</th><th>Duration / limit</th><th>Delay</th>"
        "<th>Findings</th></tr>\n"
    )
    for step in run.steps:
        _step_row(run_no, step, out)
    out.write("</table>\n")

    if run.findings:
        out.write("<h3>Findings</h3>\n<ul>\n")
        for finding, sentence in findings_with_contract(run):
            _write_finding(finding, sentence, out)
        out.write("</ul>\n")

    changes = model_changes(run)
    if changes:
        out.write("<h3>Model changes</h3>\n")
        for title, table in changes:
            _write_changes(title, table, out)

    problems = step_problems(run)
    if problems:
        out.write("<h3>Invocation errors</h3>\n")
        for step, problem in problems:
            if lines := problem_detail(step):
                _write_pre(f"Step {step.index}: {problem}", lines, out)
            else:
                out.write(f"<p>Step {step.index}: {_e(problem)}</p>\n")

    _write_aws_calls(run, out)

    logged = [s for s in run.steps if s.result.logs]
    if logged:
        out.write("<h3>Handler logs</h3>\n")
        for step in logged:
            _write_pre(
                f"Step {step.index}: {len(step.result.logs)} log line(s)", step.result.logs, out
            )
    out.write("</section>\n")


def _write_aws_calls(run: RunRecord, out: TextIO) -> None:
    """The AWS calls of every step; a failed call in red, the one that raised marked."""
    if not any(step.aws_calls for step in run.steps):
        note = aws_calls_note(run)
        if note:  # a runtime whose calls are not recorded (Go, Java): said, not an empty list
            out.write(f"<h3>AWS calls</h3>\n<p>{escape(note)}</p>\n")
        return
    out.write(
        "<h3>AWS calls</h3>\n<table><tr><th>Step</th><th>Call</th><th>Status</th>"
        "<th>Duration</th><th>Error</th><th>Parameters</th></tr>\n"
    )
    for step in run.steps:
        for call in step.aws_calls:
            row = ' class="call-failed"' if call.failed else ""
            mark = f' <span class="must">{_e(RAISED_MARK)}</span>' if call.raised else ""
            params = f"<pre>{_e(pretty_json(call.params))}</pre>" if call.params else ""
            out.write(
                f'<tr{row}><td class="num">{step.index}</td><td><code>{_e(call.name)}</code>'
                f"{mark}</td><td>{_e(status_text(call))}</td>"
                f'<td class="num">{call.duration_ms:.1f} ms</td><td>{_e(error_text(call))}</td>'
                f"<td>{params}</td></tr>\n"
            )
    out.write("</table>\n")


def write_html(
    runs: Iterable[RunRecord], meta: Mapping[str, Any], out: TextIO, masker: Masker
) -> None:
    """Write the standalone HTML transcript of ``runs`` (masked by ``masker``) to ``out``."""
    runs = list(runs)
    title = f"cfn-debug transcript: {meta.get('project') or 'session'}"
    out.write(
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        "<header><h1>cfn-debug session transcript</h1>\n"
    )
    _write_meta(meta, masker, out)
    out.write("</header>\n")

    write_scenarios_html(scenarios_of(meta), out)
    if len(runs) > 1:
        out.write("<nav><h3>Runs</h3><ul>\n")
        for i, run in enumerate(runs):
            status = run_status(run)
            out.write(
                f'<li><a href="#run-{i}">{_e(redact_text(run.event_name))} · '
                f'{_e(run.action.value)}</a> <span class="{status_class(status)}">'
                f"{_e(redact_text(status))}</span></li>\n"
            )
        out.write("</ul></nav>\n")
    for i, run in enumerate(masker.runs(runs, models=False)):
        _write_run(i, run, out)
    out.write("</body>\n</html>\n")
