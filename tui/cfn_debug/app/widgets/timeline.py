"""One row per invocation of the chain: status, duration against its limit, delay, counts.

The main screen tells it what to show by its methods (``show_run``, ``add_step``, ``end_run``,
``update_run``, ``set_palette``); it says which step its cursor is on with ``Timeline.Selected``.
"""

from __future__ import annotations

import time

from rich.markup import escape
from rich.text import Text
from textual.coordinate import Coordinate
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable

from cfn_debug.app.render import (
    Palette,
    changed_properties,
    duration_bar,
    format_duration,
    status_text,
    step_status,
    timing_style,
)
from cfn_debug.app.runview import RunView
from cfn_debug.records import Step
from cfn_debug.text.terminal import printable

#: A row shows this soon after its step completes; while steps stream in (the last batch was
#: recent) rows are added in batches every STREAM_FLUSH_S: one layout pass per batch.
FLUSH_S = 0.05
STREAM_FLUSH_S = 0.25

#: What matters first comes first: at 80 columns the status, duration and findings stay in view
#: (the action is the chain's, named in the border title too).
COLUMNS = ("#", "Status", "Duration (limit)", "Findings", "Delay", "Changed", "Action")
#: The same columns in a narrow timeline (an 80-column terminal): short labels and the duration
#: without its bar, so Delay, Changed and Action stay in view.
NARROW_COLUMNS = ("#", "Status", "Time", "Find", "Delay", "Chg", "Action")
#: Marks the READ cfn-debug sends after a CREATE/UPDATE SUCCESS (Step.origin "read-back").
READ_BACK_MARK = "↩"
READ_BACK_LEGEND = f"{READ_BACK_MARK} read-back: cfn-debug's own READ after the SUCCESS"


def is_read_back(step: Step) -> bool:
    return getattr(step, "origin", None) == "read-back"


#: Duration bars by the timeline's width: (narrower than, bar width); else BAR_WIDEST. Width 0:
#: no bar, the narrow columns.
BAR_WIDTHS = ((60, 0), (72, 8), (150, 16))
BAR_WIDEST = 32


class Timeline(DataTable[Text]):
    """Follows the newest step while a chain streams, unless the user moved the cursor away
    from the last row (moving it back to the last row follows again)."""

    class Selected(Message):
        """The cursor is on row ``row`` now (-1: no row)."""

        def __init__(self, row: int) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, deterministic: bool = False, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._deterministic = deterministic
        self.palette = Palette()
        self._pending: list[Step] = []
        self._flush_timer: Timer | None = None
        self._last_flush = 0.0
        #: The steps shown, in order (rows are drawn from them again on a resize or a theme).
        self.steps: list[Step] = []
        self.bar_width = 16
        #: True while the cursor follows the newest row; a user's move away clears it.
        self.follow = True
        self._placing = False

    def watch_cursor_coordinate(self, old: Coordinate, new: Coordinate) -> None:
        super().watch_cursor_coordinate(old, new)
        if not self._placing and old != new:
            self.follow = new.row >= self.row_count - 1

    def place(self, row: int) -> None:
        """Move the cursor for the user (not a user's move: following is unchanged)."""
        self._placing = True
        try:
            self.move_cursor(row=row, animate=False)
        finally:
            self._placing = False

    def on_mount(self) -> None:
        self._add_columns()

    def _add_columns(self) -> None:
        for key, label in zip(
            COLUMNS, NARROW_COLUMNS if self.bar_width == 0 else COLUMNS, strict=True
        ):
            self.add_column(label, key=key)

    # --- what the main screen tells it ---------------------------------------------------------

    def show_run(self, view: RunView) -> None:
        """A run takes the screen: no rows yet."""
        self.reset()
        self.show_title(view)
        self.post_message(self.Selected(-1))

    def add_step(self, step: Step) -> None:
        """The engine completed ``step`` of the run shown."""
        self.queue_step(step)  # its cursor move selects it
        if is_read_back(step):
            self.show_legend()

    def end_run(self, view: RunView, landing: int) -> None:
        """The run shown ended: every step, the cursor on ``landing`` unless the user moved it."""
        self.finish(view.steps, landing)
        self.show_title(view)
        self.post_message(self.Selected(self.cursor_row if self.row_count else -1))

    def update_run(self, view: RunView) -> None:
        """Something about the run shown changed besides its steps."""
        self.show_title(view)

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self.redraw()

    def on_data_table_row_highlighted(self, message: DataTable.RowHighlighted) -> None:
        # The row under the cursor now, not the message's: a late message must not select
        # an older step.
        message.stop()
        self.post_message(self.Selected(self.cursor_row if self.row_count else -1))

    def on_resize(self) -> None:
        width = next((w for below, w in BAR_WIDTHS if self.size.width < below), BAR_WIDEST)
        if width != self.bar_width:
            narrow = (width == 0) != (self.bar_width == 0)
            self.bar_width = width
            if narrow:  # the labels change with the cells
                follow, row = self.follow, self.cursor_row
                self.clear(columns=True)
                self._add_columns()
                self.show_steps(list(self.steps), row)
                self.follow = follow
            else:
                self.redraw()

    def row_cells(self, step: Step) -> list[Text]:
        p = self.palette
        findings = len(step.findings)
        # The delay is what the handler asked for (capped), not a measurement: always shown.
        delay = format_duration(step.callback_delay_s) if step.callback_delay_s else "-"
        read_back = is_read_back(step)
        action = Text(step.action.value)
        if read_back:  # cfn-debug's own READ after the SUCCESS, not a step of the chain
            action = Text(
                f"{READ_BACK_MARK} {step.action.value} read-back", style=f"italic {p.accent}"
            )
        return [
            Text(
                f"{READ_BACK_MARK}{step.index}" if read_back else str(step.index),
                style=f"italic {p.accent}" if read_back else "",
                justify="right",
            ),
            status_text(step_status(step), p),
            duration_bar(
                step.duration_s,
                step.limit_s,
                p,
                width=self.bar_width,
                deterministic=self._deterministic,
            )
            if self.bar_width
            else Text(
                format_duration(step.duration_s, deterministic=self._deterministic),
                style=timing_style(step.duration_s / step.limit_s if step.limit_s > 0 else 0.0, p),
                justify="right",
            ),
            Text(str(findings), style=f"bold {p.error}" if findings else p.muted, justify="right"),
            Text(delay, style=p.muted, justify="right"),
            Text(str(changed_properties(step)), justify="right"),
            action,
        ]

    def queue_step(self, step: Step) -> None:
        """Add a step's row soon; the cursor follows the newest row if it was on the last one."""
        self.steps.append(step)
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
        self._placing = True  # rows added under the cursor are not the user's move
        try:
            for step in self._pending:
                self.add_row(*self.row_cells(step), key=str(step.index))
        finally:
            self._placing = False
        self._pending.clear()
        if self.follow:
            self.place(self.row_count - 1)

    def reset(self) -> None:
        self.steps = []
        self._pending.clear()
        self._placing = True
        try:
            self.clear()
        finally:
            self._placing = False
        self.follow = True

    def show_steps(self, steps: list[Step], row: int | None = None) -> None:
        """Show exactly ``steps``; the cursor goes to ``row``, else stays on its row number."""
        cursor = self.cursor_row if row is None else row
        self.reset()
        self.steps = list(steps)
        self._placing = True
        try:
            for step in steps:
                self.add_row(*self.row_cells(step), key=str(step.index))
        finally:
            self._placing = False
        if steps:
            self.place(min(max(cursor, 0), len(steps) - 1))

    def finish(self, steps: list[Step], row: int) -> None:
        """The chain ended with ``steps``: every row shown, and the cursor on ``row`` unless the
        user moved it away while the chain ran."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        self.flush()
        follow = self.follow
        if self.row_count != len(steps):
            self.show_steps(steps, self.cursor_row)
        self.follow = follow
        if steps and follow:
            self.place(min(row, len(steps) - 1))

    def redraw(self) -> None:
        """Every row again (a theme change, a new width): same rows, same cursor, same follow."""
        follow = self.follow
        self.show_steps(list(self.steps), self.cursor_row)
        self.follow = follow

    def show_legend(self) -> None:
        """The border's subtitle explains the read-back mark while a read-back row is shown."""
        shown = any(is_read_back(step) for step in self.steps)
        self.border_subtitle = READ_BACK_LEGEND if shown else ""

    def show_title(self, view: RunView) -> None:
        """The border says whose chain it is: event, action, function, status."""
        self.show_legend()
        run = view.run
        name = (run.event_name if run else None) or view.event_name
        if name is None:
            self.border_title = "Timeline"
            return
        parts = [name.rsplit("/", 1)[-1]]  # the folder is in the events panel already
        if run is not None:
            parts += [run.action.value, run.function_name]
            if view.ended:
                status = run.final_status or (
                    run.end_reason.value if run.end_reason else "interrupted"
                )
            else:
                status = "running"
            parts.append(status)
            if view.ended and run.verdict is not None:  # a hook's verdict, apart from findings
                parts.append(f"verdict: {run.verdict}")
        else:
            parts.append("starting")
        if view.rerun is not None:
            parts.append("re-run on save")
        self.border_title = escape(printable("Timeline · " + " · ".join(parts)))
