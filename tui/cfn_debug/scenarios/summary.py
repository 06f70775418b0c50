"""A scenario result as plain data: what the journal keeps of it and what the exporters write.

The chains a scenario ran are journaled as runs of their own (their steps carry the findings);
the summary names them by run id and says, per action, what it was for, how it ended and which of
its findings counted. It holds no model beyond the generated-inputs' input, and every text in it
is scrubbed of writeOnly values (unless revealed), as `scenario --json` is.
"""

from __future__ import annotations

from typing import Any

from cfn_debug.export.masking import Masker
from cfn_debug.records import Level, RunRecord
from cfn_debug.scenarios.masking import Scrubber
from cfn_debug.scenarios.outcome import describe
from cfn_debug.scenarios.results import Purpose, ScenarioAction, ScenarioResult

#: The journal entry type of a scenario summary.
ENTRY_TYPE = "scenario_ended"


def _ended(run: RunRecord) -> str:
    text = describe(run)
    if run.end_reason is not None and run.end_reason.value not in ("terminal",):
        text += f" (stopped: {run.end_reason.value})"
    return text


def _action(action: ScenarioAction) -> dict[str, Any]:
    run = action.run
    counted = {id(f) for f in action.counted_must} | {id(f) for f in action.counted_should}
    findings = []
    for finding in run.findings:
        findings.append(
            {
                "rule_id": finding.rule_id,
                "level": finding.level.value,
                "message": finding.message,
                "pointer": finding.pointer,
                "step": finding.step,
                "counted": id(finding) in counted,
            }
        )
    return {
        "label": action.label,
        "purpose": action.purpose.value,
        "waived": list(action.waived),
        "run_id": run.run_id,
        "action": run.action.value,
        "steps": len(run.steps),
        "ended": _ended(run),
        "end_reason": run.end_reason.value if run.end_reason else None,
        "total_s": run.total_s,
        "findings": findings,
    }


def scenario_summary(
    result: ScenarioResult, write_only: Any = (), *, reveal: bool = False
) -> dict[str, Any]:
    """``result`` as plain data (see the module docstring), writeOnly values masked."""
    scrub = Scrubber(write_only, reveal=reveal)
    for action in result.actions:
        scrub.observe(action.run.steps)
    minimal = result.minimal_input
    if minimal is not None and not scrub.reveal:
        minimal = Masker(write_only).mask_model(minimal)
    summary = {
        "name": result.name,
        "title": result.title,
        "outcome": result.outcome.value,
        "total_s": result.total_s,
        "error": result.error,
        "must_findings": result.must_findings,
        "verdicts": [
            {k: v for k, v in verdict.to_dict().items() if k not in ("title", "contract")}
            for verdict in result.verdicts
        ],
        "actions": [_action(a) for a in result.actions],
        "cleanup": list(result.cleanup),
        "leaked": list(result.leaked),
        "notes": list(result.notes),
        "minimal_input": minimal,
        "examples_run": result.examples_run,
    }
    return scrub.value(summary)  # type: ignore[no-any-return]


def counted_levels(summary: dict[str, Any]) -> tuple[int, int]:
    """(MUST, SHOULD) findings that counted in a summary's scenario steps."""
    must = should = 0
    for action in summary.get("actions") or []:
        if action.get("purpose") != Purpose.SCENARIO.value:
            continue
        for finding in action.get("findings") or []:
            if finding.get("counted"):
                if finding.get("level") == Level.MUST.value:
                    must += 1
                else:
                    should += 1
    return must, should
