"""Print a scenario run on a Rich console: each scenario, its chains (through the headless
ConsolePrinter, so steps and findings look as in `cfn-debug run`), its verdicts with the rule id
and the contract sentence, its cleanup, and a summary table."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rich.console import Console
from rich.table import Table

from cfn_debug.console import (
    ConsolePrinter,
    MaskedPrinter,
    OutputMasker,
    escape,  # printable + literal markup: handler text
)
from cfn_debug.contract import rule
from cfn_debug.records import RunEnded, Step, StepCompleted
from cfn_debug.scenarios.masking import Scrubber
from cfn_debug.scenarios.results import (
    ActionStarted,
    Outcome,
    Purpose,
    ScenarioEnded,
    ScenarioEvent,
    ScenarioNote,
    ScenarioResult,
    ScenarioStarted,
    Verdict,
    VerdictReached,
    VerdictStatus,
)
from cfn_debug.text.terminal import printable

OUTCOME_STYLE = {
    Outcome.PASSED: ("✔ passed", "bold green"),
    Outcome.WARNED: ("▲ passed with warnings", "bold yellow"),
    Outcome.FAILED: ("✖ failed", "bold red"),
    Outcome.BLOCKED: ("✖ blocked", "bold red"),
    Outcome.SKIPPED: ("○ skipped", "dim"),
    Outcome.ERROR: ("✖ could not run", "bold magenta"),
}
VERDICT_STYLE = {
    VerdictStatus.PASS: ("PASS", "green"),
    VerdictStatus.FAIL: ("FAIL", "bold red"),
    VerdictStatus.SKIP: ("SKIP", "dim"),
}


class ScenarioPrinter:
    """Prints the stream; writeOnly values (``write_only`` pointers) are masked in the steps and
    scrubbed from every verdict and note unless ``reveal``."""

    def __init__(
        self,
        console: Console,
        *,
        show_logs: bool = False,
        write_only: Any = (),
        reveal: bool = False,
    ) -> None:
        self.console = console
        self.scrub = Scrubber(write_only, reveal=reveal)
        self.chains: Any = ConsolePrinter(console, show_logs=show_logs)
        self.waived: frozenset[str] = frozenset()  # the current action's expected findings
        if not self.scrub.reveal:
            self.chains = MaskedPrinter(self.chains, OutputMasker(write_only, reveal=False))

    def handle(self, event: ScenarioEvent) -> None:
        if isinstance(event, StepCompleted):
            self.scrub.observe([event.step])
        if isinstance(event, ScenarioStarted):
            self.console.print()
            self.console.rule(
                f"[bold]{event.index + 1}/{event.total} {escape(event.name)}[/]: "
                f"{escape(event.title)}",
                align="left",
            )
            self.console.print(f"[dim]{escape(event.description)}[/]")
        elif isinstance(event, ActionStarted):
            self.waived = frozenset(event.waived)
            tag = " [dim](cleanup)[/]" if event.purpose is Purpose.CLEANUP else ""
            self.console.print(f"[bold cyan]» {escape(printable(event.label))}[/]{tag}")
            if event.waived:
                self.console.print(
                    f"  [dim]expected here, not counted: {', '.join(event.waived)} (the scenario "
                    "sends this input on purpose)[/]"
                )
        elif isinstance(event, VerdictReached):
            self.verdict(event.verdict)
        elif isinstance(event, ScenarioNote):
            style = "yellow" if event.warning else "dim"
            self.console.print(f"  [{style}]{escape(printable(self.scrub.text(event.message)))}[/]")
        elif isinstance(event, ScenarioEnded):
            self.ended(event.result)
        else:
            self.chains.handle(self._without_waived(event))

    def _without_waived(self, event: ScenarioEvent) -> ScenarioEvent:
        """The chain event without the findings the action expects (its ActionStarted line
        names them, "expected here, not counted"), so the step and run lines count as the
        verdicts and the exit status do."""
        if not self.waived:
            return event
        if isinstance(event, StepCompleted):
            return replace(event, step=self._step(event.step))
        if isinstance(event, RunEnded):
            steps = [self._step(s) for s in event.run.steps]
            return replace(event, run=replace(event.run, steps=steps))
        return event

    def _step(self, step: Step) -> Step:
        kept = [f for f in step.findings if f.rule_id not in self.waived]
        return step if len(kept) == len(step.findings) else replace(step, findings=kept)

    def verdict(self, verdict: Verdict) -> None:
        word, style = VERDICT_STYLE[verdict.status]
        where = f" [cyan]{escape(verdict.pointer)}[/]" if verdict.pointer else ""
        self.console.print(
            f"  [{style}]{word}[/] {verdict.level.value} [bold]{verdict.rule_id}[/]{where}: "
            f"{escape(printable(self.scrub.text(verdict.message)))}"
        )
        if verdict.status is VerdictStatus.FAIL:
            for sentence in rule(verdict.rule_id).contract.splitlines():
                self.console.print(f"       [italic dim]“{escape(sentence)}”[/]")

    def ended(self, result: ScenarioResult) -> None:
        word, style = OUTCOME_STYLE[result.outcome]
        extra = (
            f"; {result.must_findings} MUST finding(s) in its steps" if result.must_findings else ""
        )
        if result.error:
            extra += f"; {result.error}"
        if result.leaked:
            extra += f"; {len(result.leaked)} resource(s) left behind"
        self.console.print(
            f"[{style}]{word}[/] {escape(result.name)} in {result.total_s:.2f} s"
            f"{escape(printable(self.scrub.text(extra)))}"
        )


def summary_table(results: list[ScenarioResult]) -> Table:
    table = Table(title="contract scenarios", title_justify="left", show_lines=False)
    table.add_column("scenario")
    table.add_column("outcome")
    table.add_column("failed rules")
    for result in results:
        word, style = OUTCOME_STYLE[result.outcome]
        failed = sorted(
            {v.rule_id for v in result.verdicts if v.status is VerdictStatus.FAIL}
            | {f.rule_id for a in result.actions for f in a.counted_must}
        )
        table.add_row(result.name, f"[{style}]{word}[/]", ", ".join(failed))
    return table
