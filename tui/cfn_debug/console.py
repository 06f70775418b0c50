"""Print a chain's stream of events as it happens, with Rich, for headless runs and CI logs."""

from __future__ import annotations

import json
import os
from typing import Any

from rich.console import Console
from rich.markup import escape as escape_markup
from rich.text import Text

from cfn_debug.aws_calls import call_line
from cfn_debug.chain import INTERNAL_ERROR_RULE
from cfn_debug.chain_end import INCONCLUSIVE_HINT, inconclusive
from cfn_debug.export.masking import Masker
from cfn_debug.infrastructure import step_infrastructure_error
from cfn_debug.records import (
    WARN_FRACTION,
    AwaitingStep,
    ChainEvent,
    Change,
    ChangeKind,
    DelayStarted,
    EndReason,
    Finding,
    InvocationStarted,
    Level,
    OutcomeKind,
    RunEnded,
    RunRecord,
    RunStarted,
    Step,
    StepCompleted,
)
from cfn_debug.stepsummary import list_summary
from cfn_debug.text.redact import redact, redact_text
from cfn_debug.text.terminal import printable
from cfn_debug.watch import (
    BuildFinished,
    BuildStarted,
    ChangeDetected,
    Comparison,
    RerunStarted,
    WatchEvent,
    WatchProblem,
    WatchReady,
)

STATUS_STYLE = {"SUCCESS": "bold green", "FAILED": "bold red", "IN_PROGRESS": "bold yellow"}
LEVEL_STYLE = {Level.MUST: "bold red", Level.SHOULD: "yellow"}
CHANGE_MARK = {ChangeKind.ADDED: ("+", "green"), ChangeKind.REMOVED: ("-", "red")}
BAR_WIDTH = 20
VALUE_WIDTH = 60
#: AWS calls listed under a step without --logs (all of them with it).
MAX_AWS_CALLS = 12


def escape(text: str) -> str:
    """Text cfn-debug did not write, for a markup string: control characters and lone surrogates
    shown as escapes (no sequence reaches the terminal), markup shown literally, and an access
    key id (in an event's file name, say) redacted."""
    return escape_markup(printable(redact_text(text)))


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= VALUE_WIDTH else text[: VALUE_WIDTH - 1] + "…"


def timing_bar(duration_s: float, limit_s: float) -> Text:
    """A bar of the duration against the limit, coloured at the warning threshold and past it."""
    fraction = duration_s / limit_s if limit_s else 0.0
    filled = min(BAR_WIDTH, max(1 if duration_s > 0 else 0, round(fraction * BAR_WIDTH)))
    style = "red" if fraction > 1 else "yellow" if fraction >= WARN_FRACTION else "green"
    bar = Text("█" * filled, style=style)
    bar.append("·" * (BAR_WIDTH - filled), style="dim")
    return bar


def outcome_label(step: Step) -> Text:
    result = step.result
    if result.kind is OutcomeKind.PROGRESS:
        status = result.status or "?"
        label = Text(printable(status), style=STATUS_STYLE.get(status, "bold magenta"))
        error_code = (result.progress or {}).get("errorCode")
        if error_code:
            label.append(f" {printable(str(error_code))}", style="red")
        return label
    return Text(result.kind.value.upper().replace("_", " "), style="bold magenta")


class ConsolePrinter:
    """Turns ChainEvents into lines on a Rich console. One instance per headless session."""

    def __init__(self, console: Console, *, show_logs: bool = False) -> None:
        self.console = console
        self.show_logs = show_logs

    def handle(self, event: ChainEvent) -> None:
        if isinstance(event, RunStarted):
            self._run_started(event.run)
        elif isinstance(event, StepCompleted):
            self._step(event.step)
        elif isinstance(event, RunEnded):
            self._run_ended(event.run)
        elif isinstance(event, DelayStarted) and event.seconds > 0:
            capped = (
                f" (asked {event.requested_s:g} s)" if event.requested_s != event.seconds else ""
            )
            self.console.print(f"     [dim]waiting {event.seconds:g} s{capped}[/]")
        elif isinstance(event, InvocationStarted | AwaitingStep):
            pass  # a headless log has nothing to show until the step completes

    def handle_watch(self, event: WatchEvent) -> None:
        """Watch mode: what changed, the build, problems and the comparison; chain events as
        ``handle`` prints them."""
        if isinstance(event, WatchReady):
            self.console.print()
            self.console.print(
                f"[bold cyan]watching[/] {len(event.paths)} location(s) for saves "
                "[dim](Ctrl-C to stop)[/]"
            )
            for path in event.paths:
                self.console.print(f"  [dim]{escape(self._shown(path))}[/]")
        elif isinstance(event, ChangeDetected):
            self.console.print()
            kinds = ", ".join(sorted(event.kinds))
            self.console.print(f"[bold cyan]⟳ changed[/] [dim]({kinds})[/]")
            for path in event.paths:
                self.console.print(f"  {escape(self._shown(path))}")
        elif isinstance(event, BuildStarted):
            self.console.print(f"[bold]build:[/] {escape(event.command)}")
        elif isinstance(event, BuildFinished):
            self._build_finished(event)
        elif isinstance(event, WatchProblem):
            self.console.print(f"[bold magenta]✖ not re-run:[/] {escape(event.message)}")
        elif isinstance(event, RerunStarted):
            pass  # RunStarted follows at once and names the event
        elif isinstance(event, Comparison):
            self._comparison(event)
        else:
            self.handle(event)

    def _shown(self, path: str) -> str:
        try:
            relative = os.path.relpath(path)
        except ValueError:
            return path
        return path if relative.startswith("..") else relative

    def _build_finished(self, event: BuildFinished) -> None:
        for line in event.output.rstrip().splitlines():
            self.console.print(f"  [dim]│[/] {escape(line)}")
        if event.ok:
            self.console.print(f"  [green]build ok[/] in {event.duration_s:.2f} s")
        else:
            code = "could not start" if event.returncode is None else f"exit {event.returncode}"
            self.console.print(f"  [bold red]✖ build failed ({code}):[/] not re-running")

    def _comparison(self, event: Comparison) -> None:
        self.console.print(
            f"  vs previous run: [green]{len(event.fixed)} fixed[/], "
            f"[red]{len(event.new)} new[/], [yellow]{len(event.still)} still failing[/]"
            + (
                f", {len(event.gone)} no longer seen ({escape(event.gone_because)}: not a fix)"
                if event.gone
                else ""
            )
        )
        for mark, style, findings in (
            ("fixed", "green", event.fixed),
            ("new", "red", event.new),
            ("still", "yellow", event.still),
            ("gone", "dim", event.gone),
        ):
            for finding in findings:
                where = f" {escape(finding.pointer)}" if finding.pointer else ""
                self.console.print(
                    f"    [{style}]{mark:<5}[/] {finding.level.value:<6} "
                    f"[bold]{finding.rule_id}[/]{where}"
                )

    def _run_started(self, run: RunRecord) -> None:
        self.console.print()
        self.console.print(
            f"[bold]▶ {escape(run.event_name)}[/]  {run.action.value} via "
            f"[cyan]{escape(run.function_name)}[/] at {escape(run.endpoint)}"
        )

    def _step(self, step: Step) -> None:
        line = Text(f"  #{step.index:<3} ")
        line.append_text(outcome_label(step))
        line.pad_right(max(0, 34 - line.cell_len))
        line.append(f"{step.duration_s:7.2f} s / {step.limit_s:g} s ")
        line.append_text(timing_bar(step.duration_s, step.limit_s))
        if step.result.runtime_start_s:  # a JVM started for this invocation: not the handler's
            line.append(f"  JVM start {step.result.runtime_start_s:.2f} s", style="dim")
        if step.callback_delay_s:
            line.append(f"  delay {step.callback_delay_s:g} s", style="dim")
        if step.result.stopped_s:
            line.append(f"  stopped in the debugger {step.result.stopped_s:.1f} s", style="dim")
        if step.origin:  # cfn-debug's own invocation (cfn_debug.readback), not the event's
            line.append(f"  ({step.action.value} {step.origin} by cfn-debug)", style="dim italic")
        self.console.print(line)
        listed = list_summary(step)
        if listed:
            self.console.print(f"       [dim]{escape(listed)}[/]")
        result = step.result
        if result.kind is not OutcomeKind.PROGRESS and result.error_message:
            self.console.print(f"       [magenta]{escape(result.error_message)}[/]")
        message = (result.progress or {}).get("message")
        if isinstance(message, str) and message:
            self.console.print(f"       [dim]message:[/] {escape(message)}")
        for finding in step.findings:
            self._finding(finding)
        self._diff(step.diff_previous if step.index else step.diff_request)
        if step.aws_calls:
            self._aws_calls(step)
        elif result.aws_calls_note and step.index == 0:
            self.console.print(f"       [dim]{escape(result.aws_calls_note)}[/]")
        if self.show_logs and result.logs:
            for log_line in result.logs:
                self.console.print(f"       [dim]│ {escape(log_line)}[/]")

    def _aws_calls(self, step: Step) -> None:
        """One line per AWS call (parameters too with --logs); a failed call in red."""
        calls = step.aws_calls
        shown = calls if self.show_logs or len(calls) <= MAX_AWS_CALLS else calls[:MAX_AWS_CALLS]
        self.console.print(f"       [dim]AWS calls ({len(calls)}):[/]")
        for call in shown:
            style = "bold red" if call.raised else "red" if call.failed else "dim"
            line = printable(call_line(call, params=self.show_logs))
            self.console.print(f"         [{style}]{escape(line)}[/]")
        if len(shown) < len(calls):
            self.console.print(f"         [dim]… {len(calls) - len(shown)} more (--logs)[/]")

    def _finding(self, finding: Finding) -> None:
        where = f" [cyan]{escape(finding.pointer)}[/]" if finding.pointer else ""
        style = LEVEL_STYLE[finding.level]
        head = f"       [{style}]{finding.level.value:<6}[/] [bold]{finding.rule_id}[/]{where}"
        self.console.print(head)
        for text_line in finding.message.splitlines():
            self.console.print(f"              {escape(text_line)}")

    def _diff(self, changes: list[Change]) -> None:
        for change in changes:
            mark, style = CHANGE_MARK.get(change.kind, ("~", "yellow"))
            if change.kind is ChangeKind.CHANGED:
                detail = f"{_short(change.before)} → {_short(change.after)}"
            else:
                detail = _short(change.after if change.kind is ChangeKind.ADDED else change.before)
            note = f"  [dim]({escape(change.note)})[/]" if change.note else ""
            self.console.print(
                f"       [{style}]{mark} {escape(change.pointer)}[/] {escape(detail)}{note}"
            )

    def _run_ended(self, run: RunRecord) -> None:
        for finding in run.chain_findings:
            self._finding(finding)
        must = len(run.must_failures)
        should = len(run.findings) - must
        status = run.final_status or (run.end_reason.value if run.end_reason else "?")
        why = inconclusive(run)
        if run.end_reason is EndReason.ERROR:
            verdict = "[bold magenta]✖ could not run[/]"
        elif why is not None:
            verdict = "[bold magenta]? inconclusive[/]"
        elif must:
            verdict = "[bold red]✖[/]"
        else:
            verdict = "[bold green]✔[/]"
        reason = (
            f" (stopped: {run.end_reason.value})"
            if run.end_reason and run.end_reason is not EndReason.TERMINAL
            else ""
        )
        if run.end_reason is EndReason.ERROR and run.steps:
            cause = step_infrastructure_error(run.steps[-1])
            if cause:
                self.console.print(f"  [magenta]{escape(cause)}[/]")
        own = sum(1 for s in run.steps if s.origin is None)
        extra = "" if own == len(run.steps) else f" (+{len(run.steps) - own} by cfn-debug)"
        if run.verdict is not None:  # a hook's verdict on its target: apart from the findings
            colour = "green" if run.verdict.startswith("allowed") else "yellow"
            self.console.print(f"  [bold {colour}]hook verdict: {escape(run.verdict)}[/]")
        self.console.print(
            f"  {verdict} {escape(status)}{reason} after {own} step(s){extra}, "
            f"{run.total_s:.2f} s; {must} MUST, {should} SHOULD"
        )
        if why is not None:
            self.console.print(f"    [magenta]{escape(why)}[/]")


def summary_line(runs: list[RunRecord]) -> str:
    internal = sum(1 for r in runs for f in r.findings if f.rule_id == INTERNAL_ERROR_RULE)
    must = sum(len(r.must_failures) for r in runs)
    should = sum(len(r.findings) for r in runs) - must - internal
    errors = sum(1 for r in runs if r.end_reason is EndReason.ERROR)
    undecided = sum(1 for r in runs if inconclusive(r) is not None)
    parts = [f"{len(runs)} run(s)", f"{must} MUST finding(s)", f"{should} SHOULD finding(s)"]
    if errors:
        parts.append(f"{errors} could not run")
    if undecided:
        parts.append(f"{undecided} inconclusive ({INCONCLUSIVE_HINT})")
    if internal:
        parts.append(f"{internal} step(s) cfn-debug failed to check (a bug in cfn-debug)")
    return ", ".join(parts)


class OutputMasker:
    """What `run` prints or writes as JSON shows no writeOnly value unless --reveal-write-only.

    Credentials are redacted whatever the option. The journal is the user's private record and
    keeps the values (still without credentials); exports mask them again.
    """

    def __init__(self, write_only: Any, *, reveal: bool) -> None:
        self.write_only = tuple(write_only)
        self.reveal = reveal
        self._first: dict[str, Any] = {}  # run id -> first step: it carries what was requested

    def _masker(self, steps: list[Any]) -> Any:
        holder = RunRecord("", "", None, steps[0].action, "", "", "", steps=steps)
        return Masker(self.write_only, reveal_write_only=self.reveal, runs=[holder]), holder

    def step(self, run_id: str, step: Any) -> Any:
        first = self._first.setdefault(run_id, step)
        steps = [first, step] if first is not step else [step]
        masker, holder = self._masker(steps)
        return masker.run(holder).steps[-1]

    def run_dict(self, run: Any) -> dict[str, Any]:
        if not run.steps:
            return redact(run.to_dict())  # type: ignore[no-any-return]
        return Masker(self.write_only, reveal_write_only=self.reveal, runs=[run]).run_dict(run)  # type: ignore[no-any-return]

    def event(self, event: Any) -> Any:
        """A masked copy of a step or run event; other events as they are."""
        if isinstance(event, StepCompleted):
            return StepCompleted(event.run_id, self.step(event.run_id, event.step))
        if isinstance(event, RunEnded) and event.run.steps:
            return RunEnded(RunRecord.from_dict(self.run_dict(event.run)))
        return event


class MaskedPrinter:
    """A ConsolePrinter handed only masked events."""

    def __init__(self, printer: Any, masker: OutputMasker) -> None:
        self.printer = printer
        self.masker = masker
        self.console = printer.console

    def handle(self, event: Any) -> None:
        self.printer.handle(self.masker.event(event))

    def handle_watch(self, event: Any) -> None:
        self.printer.handle_watch(self.masker.event(event))


def print_notices(console: Any, workspace: Any) -> list[str]:
    """The workspace's notices (a models.py out of date), before the first event."""
    notices: list[str] = list(workspace.notices)
    for notice in notices:
        console.print(f"[yellow]notice:[/] {escape_markup(printable(notice))}")
    return notices
