"""One row per invocation of the chain: status, duration against its limit, delay, counts."""

from __future__ import annotations

import time

from rich.text import Text
from textual.timer import Timer
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

#: A row shows this soon after its step completes; while steps stream in (the last batch was
#: recent) rows are added in batches every STREAM_FLUSH_S: one layout pass per batch.
FLUSH_S = 0.05
STREAM_FLUSH_S = 0.25

COLUMNS = ("#", "Action", "Status", "Duration (limit)", "Delay", "Findings", "Changed")


class Timeline(DataTable[Text]):
    def __init__(self, *, deterministic: bool = False, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._deterministic = deterministic
        self.palette = Palette()
        self._pending: list[Step] = []
        self._flush_timer: Timer | None = None
        self._last_flush = 0.0

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

    def queue_step(self, step: Step) -> None:
        """Add a step's row soon; the cursor follows the newest row if it was on the last one."""
        self._pending.append(step)
        if self._deterministic:
            self.flush()
        elif self._flush_timer is None:
            streaming = time.monotonic() - self._last_flush < 2 * STREAM_FLUSH_S
            delay = STREAM_FLUSH_S if streaming else FLUSH_S
            self._flush_timer = self.set_timer(delay, self.flush)

    def flush(self) -> None:
        self._flush_timer = None
        self._last_flush = time.monotonic()
        if not self._pending:
            return
        follow = self.row_count == 0 or self.cursor_row >= self.row_count - 1
        for step in self._pending:
            self.add_row(*self.row_cells(step), key=str(step.index))
        self._pending.clear()
        if follow:
            self.move_cursor(row=self.row_count - 1, animate=False)

    def reset(self) -> None:
        self._pending.clear()
        self.clear()

    def show_steps(self, steps: list[Step]) -> None:
        cursor = self.cursor_row
        self._pending.clear()
        self.clear()
        for step in steps:
            self.add_row(*self.row_cells(step), key=str(step.index))
        if steps:
            self.move_cursor(row=min(cursor, len(steps) - 1), animate=False)
