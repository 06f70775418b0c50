"""Rich renderables of the scenarios screen: outcome badges, a scenario's actions and steps,
its verdicts with the contract sentence a failure breaks, notes, leftovers and minimal input."""

from __future__ import annotations

import json
from collections.abc import Callable

from rich.console import Group, RenderableType
from rich.text import Text

from cfn_debug.app.render import Palette, format_duration, scrub, step_status
from cfn_debug.app.scenario_board import ActionView, ScenarioView
from cfn_debug.contract import rule
from cfn_debug.records import EndReason, Finding, Level
from cfn_debug.scenarios import Outcome, Purpose, Verdict, VerdictStatus

#: The badge (and its palette colour name) of each outcome, and of "not run" / "running".
BADGES: dict[Outcome | str, tuple[str, str, str]] = {
    Outcome.PASSED: ("✔", "passed", "ok"),
    Outcome.WARNED: ("▲", "warned", "warn"),
    Outcome.FAILED: ("✖", "failed", "error"),
    Outcome.BLOCKED: ("✖", "blocked", "error"),
    Outcome.SKIPPED: ("○", "skipped", "muted"),
    Outcome.ERROR: ("✖", "could not run", "error"),
    "idle": ("·", "not run", "muted"),
    "running": ("▶", "running", "accent"),
}
VERDICT_WORDS = {VerdictStatus.PASS: "PASS", VerdictStatus.FAIL: "FAIL", VerdictStatus.SKIP: "SKIP"}


def contract_of(rule_id: str) -> str | None:
    """The contract sentence a rule enforces; None for an id the catalogue does not know."""
    try:
        return rule(rule_id).contract
    except Exception:
        return None


def badge_text(key: Outcome | str, palette: Palette, *, word: bool = False) -> Text:
    mark, label, colour = BADGES[key]
    style = getattr(palette, colour)
    text = Text(mark, style=f"bold {style}")
    if word:
        text.append(f" {label}", style=f"bold {style}")
    return text


def _finding_line(
    finding: Finding, palette: Palette, clean: Callable[[str], str], *, counted: bool
) -> Text:
    colour = palette.error if finding.level is Level.MUST else palette.warn
    line = Text("       ")
    line.append(finding.level.value, style=f"bold {colour}" if counted else palette.muted)
    line.append(f" {finding.rule_id}", style=f"bold {palette.accent}" if counted else "")
    if finding.pointer:
        line.append(f" {clean(finding.pointer)}", style=palette.muted)
    line.append(f": {clean(finding.message)}".replace("\n", " "))
    if not counted:
        line.append("  (expected here, not counted)", style="italic")
    return line


def action_renderable(
    action: ActionView, palette: Palette, *, deterministic: bool = False
) -> RenderableType:
    """The action's label, each step (status, duration, findings) and what is in flight."""
    clean = scrub if deterministic else (lambda text: text)
    cleanup = action.purpose is Purpose.CLEANUP
    head = Text("» ", style=f"bold {palette.accent}")
    head.append(action.label, style="bold")
    if cleanup:
        head.append("  (cleanup, not counted)", style="italic")
    if action.run is not None:
        end = action.run.end_reason
        if end is not None and end is not EndReason.TERMINAL:
            head.append(f"  ended: {end.value}", style=palette.warn)
    lines: list[Text] = [head]
    for step in action.steps:
        status = step_status(step)
        if status == "SUCCESS":
            style = palette.ok
        elif status in ("IN_PROGRESS", "PENDING"):
            style = palette.accent
        else:
            style = palette.error
        line = Text(f"    #{step.index} {step.action.value:<6} ")
        line.append(f"{status:<12}", style=f"bold {style}")
        code = (step.result.progress or {}).get("errorCode")
        if code:
            line.append(f" {code}", style=palette.error)
        line.append(
            f"  {format_duration(step.result.duration_s, deterministic=deterministic):>8}",
            style=palette.muted,
        )
        count = len(step.findings)
        line.append(
            f"  {count} finding{'s' if count != 1 else ''}",
            style=(palette.error if any(f.level is Level.MUST for f in step.findings) else "")
            if count
            else palette.muted,
        )
        lines.append(line)
        for finding in step.findings:
            counted = not cleanup and finding.rule_id not in action.waived
            lines.append(_finding_line(finding, palette, clean, counted=counted))
    if action.run is not None:
        for finding in action.run.chain_findings:
            counted = not cleanup and finding.rule_id not in action.waived
            lines.append(_finding_line(finding, palette, clean, counted=counted))
    if action.in_flight is not None:
        flight = action.in_flight
        lines.append(
            Text(
                f"    #{flight.index} {flight.action.value:<6} … waiting for the handler "
                f"(limit {flight.limit_s:.0f} s)",
                style=palette.accent,
            )
        )
    elif action.delay is not None and action.run is None:
        lines.append(
            Text(
                f"    waiting {action.delay.seconds:g} s before re-invoking "
                f"(callbackDelaySeconds {action.delay.requested_s:g})",
                style=palette.muted,
            )
        )
    group = Group(*lines)
    if cleanup:
        for line in lines:
            line.stylize("dim")
    return group


def verdict_renderable(
    verdict: Verdict, palette: Palette, *, deterministic: bool = False
) -> RenderableType:
    clean = scrub if deterministic else (lambda text: text)
    colour = {
        VerdictStatus.PASS: palette.ok,
        VerdictStatus.FAIL: palette.error,
        VerdictStatus.SKIP: palette.muted,
    }[verdict.status]
    line = Text("  ")
    line.append(VERDICT_WORDS[verdict.status], style=f"bold {colour}")
    level_colour = palette.error if verdict.level is Level.MUST else palette.warn
    line.append(f" {verdict.level.value}", style=level_colour if verdict.failed else "")
    line.append(f" {verdict.rule_id}", style=f"bold {palette.accent}")
    if verdict.pointer:
        line.append(f" {clean(verdict.pointer)}", style=palette.muted)
    if verdict.action:
        line.append(f" [{verdict.action}]", style=palette.muted)
    line.append(f": {clean(verdict.message)}")
    parts: list[RenderableType] = [line]
    if verdict.failed:
        sentence = contract_of(verdict.rule_id)
        if sentence:
            for piece in sentence.splitlines():
                parts.append(Text(f"       “{piece}”", style=f"italic {palette.muted}"))
    return Group(*parts)


def scenario_renderable(
    view: ScenarioView, palette: Palette, *, deterministic: bool = False
) -> RenderableType:
    """Everything about one scenario: outcome, actions and steps, verdicts, notes, inputs."""
    clean = scrub if deterministic else (lambda text: text)
    head = Text()
    head.append(view.name, style="bold")
    head.append(f": {view.title}   ")
    head.append_text(badge_text(view.badge_key, palette, word=True))
    result = view.result
    if result is not None:
        head.append(
            f" in {format_duration(result.total_s, deterministic=deterministic)}",
            style=palette.muted,
        )
    parts: list[RenderableType] = [head, Text(view.description, style=palette.muted)]
    if view.state == "idle" and result is None and not view.actions:
        parts.append(Text("\nNot run yet: r runs it, a runs every scenario.", style="italic"))
        return Group(*parts)
    if result is not None and result.error:
        parts.append(Text(f"Error: {clean(result.error)}", style=f"bold {palette.error}"))
    if result is not None and result.must_findings:
        parts.append(
            Text(
                f"{result.must_findings} MUST finding(s) in its steps",
                style=f"bold {palette.error}",
            )
        )
    if view.actions:
        parts.append(Text("\nActions", style="bold underline"))
        parts.extend(
            action_renderable(a, palette, deterministic=deterministic) for a in view.actions
        )
    if view.verdicts:
        parts.append(Text("\nVerdicts", style="bold underline"))
        parts.extend(
            verdict_renderable(v, palette, deterministic=deterministic) for v in view.verdicts
        )
    if view.notes:
        parts.append(Text("\nNotes", style="bold underline"))
        for message, warning in view.notes:
            parts.append(
                Text(f"  {clean(message)}", style=palette.warn if warning else palette.muted)
            )
    if result is not None and result.leaked:
        parts.append(
            Text(
                f"\nLeft behind ({len(result.leaked)}): "
                + ", ".join(clean(json.dumps(i, sort_keys=True)) for i in result.leaked),
                style=f"bold {palette.warn}",
            )
        )
    if result is not None and result.examples_run is not None:
        parts.append(Text(f"\nGenerated inputs tried: {result.examples_run}"))
    if result is not None and result.minimal_input is not None:
        parts.append(Text("Minimal failing input:", style="bold"))
        parts.append(Text(clean(json.dumps(result.minimal_input, indent=2, sort_keys=True))))
    return Group(*parts)
