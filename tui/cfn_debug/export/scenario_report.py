"""Scenario results in the export formats: JUnit, Markdown and HTML.

A scenario arrives as its summary (plain data: ``cfn_debug.scenarios.summary``; the journal's
``scenario_ended`` entries, or `scenario --junit`'s results). In JUnit each scenario is one
``<testcase>`` of a ``cfn-debug scenarios`` suite: a failed MUST (verdict or counted finding) is a
``<failure>``, a scenario that was blocked or could not run an ``<error>``, one that did not apply
``<skipped>``; its steps (each action, how it ended, its findings), verdicts, notes and cleanup go
to ``<system-out>``. The chains a scenario ran are the scenario's: a transcript shows them under
it, not again as runs of their own (:func:`scenario_run_ids`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any, TextIO

from cfn_debug.export.formatting import visible
from cfn_debug.export.markup import code, fence_for, text, xml_attr, xml_text

SUITE_NAME = "cfn-debug scenarios"
_ERROR_OUTCOMES = ("blocked", "error")


def scenarios_of(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The scenario summaries a session's metadata carries (none for a session without)."""
    found = meta.get("scenarios")
    return [s for s in found if isinstance(s, dict)] if isinstance(found, list) else []


def scenario_run_ids(summaries: Iterable[Mapping[str, Any]]) -> set[str]:
    """The run ids of every chain the scenarios ran."""
    return {
        str(action.get("run_id"))
        for summary in summaries
        for action in summary.get("actions") or []
        if isinstance(action, dict) and action.get("run_id")
    }


def _failed_musts(summary: Mapping[str, Any]) -> list[str]:
    lines = [
        f"MUST {v.get('rule_id')}: {v.get('message')}"
        for v in summary.get("verdicts") or []
        if v.get("status") == "fail" and v.get("level") == "MUST"
    ]
    for action in summary.get("actions") or []:
        if action.get("purpose") != "scenario":
            continue
        for finding in action.get("findings") or []:
            if finding.get("counted") and finding.get("level") == "MUST":
                lines.append(
                    f"MUST {finding.get('rule_id')} ({action.get('label')}): "
                    f"{finding.get('message')}"
                )
    return lines


def _why(summary: Mapping[str, Any]) -> str:
    notes = summary.get("notes") or []
    return str(summary.get("error") or (notes[-1] if notes else summary.get("outcome")))


def _text_lines(summary: Mapping[str, Any]) -> list[str]:
    """The scenario as lines: its steps with their findings, verdicts, notes and cleanup."""
    lines = [f"{summary.get('name')}: {summary.get('title')} -> {summary.get('outcome')}"]
    for number, action in enumerate(summary.get("actions") or [], 1):
        extra = " (cleanup)" if action.get("purpose") == "cleanup" else ""
        lines.append(
            f"step {number}{extra}: {action.get('label')} [{action.get('action')}] ended "
            f"{action.get('ended')}"
        )
        waived = set(action.get("waived") or [])
        for finding in action.get("findings") or []:
            mark = "" if finding.get("counted") else " (not counted)"
            if finding.get("rule_id") in waived:
                mark = " (provoked on purpose, not counted)"
            level, rule_id = finding.get("level"), finding.get("rule_id")
            lines.append(f"    {level} {rule_id}{mark}: {finding.get('message')}")
    for verdict in summary.get("verdicts") or []:
        lines.append(
            f"verdict {str(verdict.get('status', '')).upper()} {verdict.get('level')} "
            f"{verdict.get('rule_id')}: {verdict.get('message')}"
        )
    lines.extend(f"note: {note}" for note in summary.get("notes") or [])
    lines.extend(f"cleanup: {line}" for line in summary.get("cleanup") or [])
    if summary.get("minimal_input") is not None:
        lines.append(f"minimal failing input sent: {summary.get('minimal_input')}")
    return lines


def _counts(summaries: Sequence[Mapping[str, Any]]) -> tuple[int, int, int, int]:
    failures = errors = skipped = 0
    for summary in summaries:
        outcome = summary.get("outcome")
        if outcome == "failed":
            failures += 1
        elif outcome in _ERROR_OUTCOMES:
            errors += 1
        elif outcome == "skipped":
            skipped += 1
    return len(summaries), failures, errors, skipped


def write_scenario_suite(summaries: Sequence[Mapping[str, Any]], out: TextIO) -> None:
    """One ``<testsuite>`` with a ``<testcase>`` per scenario (see the module docstring)."""
    tests, failures, errors, skipped = _counts(summaries)
    total = sum(float(s.get("total_s") or 0.0) for s in summaries)
    out.write(
        f'  <testsuite name="{SUITE_NAME}" tests="{tests}" failures="{failures}" '
        f'errors="{errors}" skipped="{skipped}" time="{total:.3f}">\n'
    )
    for summary in summaries:
        name = str(summary.get("name"))
        time_s = max(float(summary.get("total_s") or 0.0), 0.0)
        out.write(
            f'    <testcase name="{xml_attr(name)}" classname="cfn-debug.scenario" '
            f'time="{time_s:.3f}">\n'
        )
        outcome = summary.get("outcome")
        if outcome == "failed":
            musts = _failed_musts(summary) or [f"{name} failed"]
            out.write(
                f'      <failure message="{xml_attr(musts[0][:200])}" type="MUST">'
                f"{xml_text(chr(10).join(musts))}</failure>\n"
            )
        elif outcome in _ERROR_OUTCOMES:
            out.write(
                f'      <error message="{xml_attr(_why(summary)[:200])}" type="{outcome}">'
                f"{xml_text(_why(summary))}</error>\n"
            )
        elif outcome == "skipped":
            out.write(f'      <skipped message="{xml_attr(_why(summary)[:200])}"/>\n')
        out.write(f"      <system-out>{xml_text(chr(10).join(_text_lines(summary)))}\n")
        out.write("</system-out>\n    </testcase>\n")
    out.write("  </testsuite>\n")


def write_scenarios_junit(
    summaries: Sequence[Mapping[str, Any]], meta: Mapping[str, Any], out: TextIO
) -> None:
    """A JUnit document of the scenarios alone (`cfn-debug scenario --junit FILE`)."""
    tests, failures, errors, skipped = _counts(summaries)
    total = sum(float(s.get("total_s") or 0.0) for s in summaries)
    name = f"cfn-debug {meta.get('project') or 'scenarios'}"
    out.write(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites name="{xml_attr(name)}" tests="{tests}" failures="{failures}" '
        f'errors="{errors}" skipped="{skipped}" time="{total:.3f}">\n'
    )
    write_scenario_suite(summaries, out)
    out.write("</testsuites>\n")


# --- Markdown and HTML ------------------------------------------------------------------------

_MARK = {
    "passed": "✔ passed",
    "warned": "▲ passed with warnings",
    "failed": "✖ failed",
    "blocked": "✖ blocked",
    "skipped": "○ skipped",
    "error": "✖ could not run",
}


def write_scenarios_markdown(summaries: Sequence[Mapping[str, Any]], out: TextIO) -> None:
    """A "Scenarios" section: a table of outcomes, then each scenario's steps and verdicts."""
    if not summaries:
        return
    out.write("## Scenarios\n\n| scenario | outcome | MUST | time |\n|---|---|---|---|\n")
    for summary in summaries:
        out.write(
            f"| {code(str(summary.get('name')))} | "
            f"{text(_MARK.get(str(summary.get('outcome')), str(summary.get('outcome'))))} | "
            f"{len(_failed_musts(summary))} | {float(summary.get('total_s') or 0.0):.2f} s |\n"
        )
    out.write("\n")
    for summary in summaries:
        lines = _text_lines(summary)
        fence = fence_for(lines)
        out.write(f"### {text(str(summary.get('name')))}: {text(str(summary.get('title')))}\n\n")
        out.write(f"{fence}text\n")
        for line in lines[1:]:
            out.write(visible(line) + "\n")
        out.write(f"{fence}\n\n")


def write_scenarios_html(summaries: Sequence[Mapping[str, Any]], out: TextIO) -> None:
    """A "Scenarios" section: a table of outcomes, then each scenario's steps and verdicts."""
    if not summaries:
        return

    def e(value: object) -> str:
        return escape(visible(str(value)), quote=True)

    out.write(
        '<section id="scenarios"><h2>Scenarios</h2>\n<table>\n'
        "<tr><th>scenario</th><th>outcome</th><th>MUST</th><th>time</th></tr>\n"
    )
    for i, summary in enumerate(summaries):
        outcome = str(summary.get("outcome"))
        style = "must" if outcome in ("failed", "blocked", "error") else ""
        out.write(
            f'<tr><td><a href="#scenario-{i}"><code>{e(summary.get("name"))}</code></a></td>'
            f'<td class="{style}">{e(_MARK.get(outcome, outcome))}</td>'
            f'<td class="num">{len(_failed_musts(summary))}</td>'
            f'<td class="num">{float(summary.get("total_s") or 0.0):.2f} s</td></tr>\n'
        )
    out.write("</table>\n")
    for i, summary in enumerate(summaries):
        lines = _text_lines(summary)
        out.write(
            f'<h3 id="scenario-{i}">{e(summary.get("name"))}: {e(summary.get("title"))}</h3>\n'
            f"<pre>{e(chr(10).join(lines[1:]))}</pre>\n"
        )
    out.write("</section>\n")
