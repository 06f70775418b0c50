"""JUnit XML as CI systems read it (Jenkins, GitLab, GitHub test reporters, junitparser).

``<testsuites>`` holds one ``<testsuite>`` per run and one ``<testcase>`` per step, named
"<event> step <n> <status>". Each MUST finding of a step is a ``<failure>`` (message, type = rule
id); an invocation that produced no ProgressEvent (crash, timeout, unreachable, ...) is an
``<error>``; SHOULD findings, the step's AWS calls and the handler's log lines go to
``<system-out>``. Chain-level findings get a testcase of their own, "<event> chain". Times are
seconds. Scenario results come first, one testcase per scenario (``export.scenario_report``).

Handler output may hold characters XML 1.0 cannot carry at all (ANSI colour escapes, NULs): they
are written as visible ``\\xNN`` escapes instead of making the file unreadable.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from cfn_debug.aws_calls import call_line
from cfn_debug.export.formatting import contract_sentence, step_status
from cfn_debug.export.markup import xml_attr, xml_text
from cfn_debug.export.masking import Masker
from cfn_debug.export.scenario_report import (
    scenario_run_ids,
    scenarios_of,
    write_scenario_suite,
)
from cfn_debug.records import Action, Finding, Level, OutcomeKind, RunRecord, Step


def _headline(message: str, limit: int = 200) -> str:
    """The first line of a message, for the one-line ``message`` attribute CI tools show."""
    line = message.strip().splitlines()[0] if message.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _time(value: float) -> str:
    return f"{max(value, 0.0):.3f}"


def _finding_text(finding: Finding, action: Action) -> str:
    lines = [f"{finding.level.value} {finding.rule_id}: {finding.message}"]
    if finding.pointer:
        lines.append(f"at {finding.pointer}")
    sentence = contract_sentence(finding.rule_id, action)
    if sentence:
        lines.append(f"contract: {sentence}")
    return "\n".join(lines)


def _write_case(
    name: str,
    classname: str,
    time_s: float,
    findings: list[Finding],
    step: Step | None,
    action: Action,
    out: TextIO,
) -> None:
    out.write(
        f'    <testcase name="{xml_attr(name)}" classname="{xml_attr(classname)}" '
        f'time="{_time(time_s)}">\n'
    )
    for finding in findings:
        if finding.level is Level.MUST:
            out.write(
                f'      <failure message="{xml_attr(_headline(finding.message))}" '
                f'type="{xml_attr(finding.rule_id)}">{xml_text(_finding_text(finding, action))}'
                "</failure>\n"
            )
    if step is not None and step.result.kind is not OutcomeKind.PROGRESS:
        result = step.result
        message = _headline(result.error_message or "") or result.kind.value
        detail = "\n".join(result.stack_trace) or result.body_excerpt
        out.write(
            f'      <error message="{xml_attr(message)}" type="{xml_attr(result.kind.value)}">'
            f"{xml_text(detail)}</error>\n"
        )
    should = [f for f in findings if f.level is not Level.MUST]
    logs = step.result.logs if step is not None else []
    calls = step.aws_calls if step is not None else []
    if should or logs or calls:
        out.write("      <system-out>")
        for finding in should:
            out.write(xml_text(_finding_text(finding, action)))
            out.write("\n")
        if calls:
            out.write("--- AWS calls ---\n")
            for call in calls:
                out.write(xml_text(call_line(call, params=True)))
                out.write("\n")
        if logs:
            out.write("--- handler logs ---\n")
            for line in logs:
                out.write(xml_text(line))
                out.write("\n")
        out.write("</system-out>\n")
    out.write("    </testcase>\n")


def _counts(run: RunRecord) -> tuple[int, int, int]:
    """tests, failures (testcases with a MUST finding), errors (invocations without an answer)."""
    tests = len(run.steps) + (1 if run.chain_findings else 0)
    failures = sum(1 for s in run.steps if any(f.level is Level.MUST for f in s.findings))
    failures += 1 if any(f.level is Level.MUST for f in run.chain_findings) else 0
    errors = sum(1 for s in run.steps if s.result.kind is not OutcomeKind.PROGRESS)
    return tests, failures, errors


def _write_suite(run: RunRecord, out: TextIO, project: str | None = None) -> None:
    tests, failures, errors = _counts(run)
    step_time = sum(s.duration_s for s in run.steps)
    name = f"{run.event_name} ({run.action.value})"
    out.write(
        f'  <testsuite name="{xml_attr(name)}" tests="{tests}" failures="{failures}" '
        f'errors="{errors}" skipped="0" time="{_time(run.total_s or step_time)}" '
        f'timestamp="{xml_attr(run.started_at)}">\n    <properties>\n'
    )
    for key, value in (
        ("project", project),
        ("function", run.function_name),
        ("endpoint", run.endpoint),
        ("event_path", run.event_path),
        ("end_reason", run.end_reason.value if run.end_reason else None),
        ("final_status", run.final_status),
    ):
        if value is not None:
            out.write(f'      <property name="{key}" value="{xml_attr(value)}"/>\n')
    out.write("    </properties>\n")
    classname = f"cfn-debug.{run.event_name}"
    for step in run.steps:
        _write_case(
            f"{run.event_name} step {step.index} {step_status(step)}",
            classname,
            step.duration_s,
            step.findings,
            step,
            run.action,
            out,
        )
    if run.chain_findings:
        _write_case(
            f"{run.event_name} chain", classname, 0.0, run.chain_findings, None, run.action, out
        )
    out.write("  </testsuite>\n")


def write_junit(
    runs: Iterable[RunRecord], meta: Mapping[str, Any], out: TextIO, masker: Masker
) -> None:
    """Write the JUnit XML report of ``runs`` (masked by ``masker``) to ``out``: the scenario
    results ``meta`` carries first (one testcase per scenario; their chains are theirs), then a
    suite per other run."""
    scenarios = scenarios_of(meta)
    theirs = scenario_run_ids(scenarios)
    runs = [run for run in runs if run.run_id not in theirs]
    projects = meta.get("run_projects")
    projects = projects if isinstance(projects, dict) else {}
    tests = failures = errors = skipped = 0
    total = 0.0
    for summary in scenarios:
        tests += 1
        outcome = summary.get("outcome")
        failures += outcome == "failed"
        errors += outcome in ("blocked", "error")
        skipped += outcome == "skipped"
        total += float(summary.get("total_s") or 0.0)
    for run in runs:
        t, f, e = _counts(run)
        tests, failures, errors = tests + t, failures + f, errors + e
        total += run.total_s or sum(s.duration_s for s in run.steps)
    name = f"cfn-debug {meta.get('project') or 'session'}"
    out.write(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites name="{xml_attr(name)}" tests="{tests}" failures="{failures}" '
        f'errors="{errors}" skipped="{skipped}" time="{_time(total)}">\n'
    )
    if scenarios:
        write_scenario_suite(scenarios, out)
    for run in masker.runs(runs, models=False):
        _write_suite(run, out, projects.get(run.run_id))
    out.write("</testsuites>\n")
