"""A progress line for long work: what runs, a bar, done/total and the time it has taken.

Fed by the engine's progress: the main screen calls ``report`` with each ``Progress`` (the
setup stack and the environment build while the project opens, any progress on the engine's
stream); the scenarios screen calls ``start``, ``advance`` and ``finish``. Hidden while nothing
runs; the elapsed time ticks once a second (hidden in snapshots).
"""

from __future__ import annotations

import time

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from cfn_debug.app.messages import Progress
from cfn_debug.app.render import Palette, format_duration
from cfn_debug.text.terminal import printable

BAR_WIDTH = 24


def is_progress(event: object) -> bool:
    """An engine progress event, by its shape: ``label``, ``done`` and ``total`` (None when
    unknown), and ``finished`` on the last one. Any stream the dashboard consumes may carry it."""
    return all(hasattr(event, name) for name in ("label", "done", "total"))


class WorkProgress(Static):
    def __init__(self, *, deterministic: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self._deterministic = deterministic
        self.palette = Palette()
        self.label = ""
        self.done = 0
        self.total: int | None = None
        self.started = 0.0
        self._timer: Timer | None = None
        self.display = False
        #: The last line of each piece of work that finished (what was done, in order).
        self.history: list[str] = []

    def report(self, progress: Progress) -> None:
        """What the engine reported: a count of the work in progress, or its end."""
        if progress.finished:
            if self.display:  # the last count, as the engine reported it
                self.done = progress.done
                if progress.total is not None:
                    self.total = progress.total
            self.finish()
        else:
            self.advance(progress.done, progress.label, progress.total)

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        if self.display:
            self._draw()

    def start(self, label: str, total: int | None = None) -> None:
        self.label, self.done, self.total = label, 0, total
        self.started = time.monotonic()
        self.display = True
        if self._timer is None and not self._deterministic:
            self._timer = self.set_interval(1.0, self._draw)
        self._draw()

    def advance(self, done: int, label: str | None = None, total: int | None = None) -> None:
        if not self.display:
            self.start(label or self.label, total)
        self.done = done
        if label is not None:
            self.label = label
        if total is not None:
            self.total = total
        self._draw()

    def finish(self) -> None:
        if self.display:
            self.history.append(self.line().plain)
        self.display = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _draw(self) -> None:
        self.update(self.line())

    def line(self) -> Text:
        p = self.palette
        text = Text(printable(self.label), style="bold")
        text.append("  ")
        if self.total:
            filled = min(BAR_WIDTH, round(self.done / self.total * BAR_WIDTH))
            text.append("█" * filled, style=p.accent)
            text.append("░" * (BAR_WIDTH - filled), style=p.muted)
            text.append(f" {self.done}/{self.total}")
        else:
            text.append(f"{self.done} done")
        elapsed = time.monotonic() - self.started
        text.append(
            f"  {format_duration(elapsed, deterministic=self._deterministic)}", style=p.muted
        )
        return text
