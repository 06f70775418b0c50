"""One row per invocation of the chain: status, duration against its limit, delay, counts."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from cfn_debug.app.render import (
    Palette,
    changed_properties,
    duration_bar,
    format_duration,
    status_text,
    step_status,
)
from cfn_debug.records import Step

COLUMNS = ("#", "Action", "Status", "Duration (limit)", "Delay", "Findings", "Changed")


class Timeline(DataTable[Text]):
    def __init__(self, *, deterministic: bool = False, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._deterministic = deterministic
        self.palette = Palette()

    def on_mount(self) -> None:
        for label in COLUMNS:
            self.add_column(label, key=label)

    def row_cells(self, step: Step) -> list[Text]:
        p = self.palette
        findings = len(step.findings)
        # The delay is what the handler asked for (capped), not a measurement: always shown.
        delay = format_duration(step.callback_delay_s) if step.callback_delay_s else "-"
        return [
            Text(str(step.index), justify="right"),
            Text(step.action.value),
            status_text(step_status(step), p),
            duration_bar(step.duration_s, step.limit_s, p, deterministic=self._deterministic),
            Text(delay, style=p.muted, justify="right"),
            Text(str(findings), style=f"bold {p.error}" if findings else p.muted, justify="right"),
            Text(str(changed_properties(step)), justify="right"),
        ]

    def add_step(self, step: Step, *, follow: bool) -> None:
        self.add_row(*self.row_cells(step), key=str(step.index))
        if follow:
            self.move_cursor(row=self.row_count - 1, animate=False)

    def update_step(self, step: Step) -> None:
        """Re-render a row (the delay a step waited becomes known after the row exists)."""
        key = str(step.index)
        if key not in self.rows:
            return
        for column, cell in zip(COLUMNS, self.row_cells(step), strict=True):
            self.update_cell(key, column, cell)

    def show_steps(self, steps: list[Step]) -> None:
        cursor = self.cursor_row
        self.clear()
        for step in steps:
            self.add_row(*self.row_cells(step), key=str(step.index))
        if steps:
            self.move_cursor(row=min(cursor, len(steps) - 1), animate=False)
