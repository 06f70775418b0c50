"""The line under the timeline: the live gauge, the delay countdown, step-mode prompts, errors.

The main screen calls ``show`` with what it shows now (nothing once a step lands) and
``set_palette`` when the theme changes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from cfn_debug.app.render import Palette, duration_bar, format_duration, scrub, timing_style
from cfn_debug.text.terminal import printable

GAUGE_WIDTH = 30
TICK_S = 0.1
#: An invocation shorter than this gets no gauge: a fast chain must not redraw the line per step.
GAUGE_AFTER_S = 0.2


@dataclass(frozen=True)
class InFlight:
    index: int
    action: str
    limit_s: float
    started: float  # time.monotonic()


@dataclass(frozen=True)
class Countdown:
    index: int
    seconds: float
    requested_s: float
    started: float  # time.monotonic()


@dataclass(frozen=True)
class Prompt:
    """A settled message: what happened and what to do next."""

    text: str
    hint: str = ""
    tone: str = "info"  # info | ok | warn | error


class RunStatus(Static):
    """Shows exactly one of: nothing, an in-flight gauge, a countdown, or a prompt."""

    def __init__(self, *, deterministic: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self._deterministic = deterministic
        self.palette = Palette()
        self._state: InFlight | Countdown | Prompt | None = None
        self._timer: Timer | None = None
        self._shown_empty = False

    @property
    def state(self) -> InFlight | Countdown | Prompt | None:
        return self._state

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self.show(self._state)

    def show(self, state: InFlight | Countdown | Prompt | None) -> None:
        """Switch what the line shows. During a fast chain (an invocation every few ms) the
        gauge is only drawn by the 10 Hz tick, so the line does not redraw on every step."""
        self._state = state
        for tone in ("info", "ok", "warn", "error"):
            self.set_class(isinstance(state, Prompt) and state.tone == tone, f"-{tone}")
        if self._deterministic or isinstance(state, Prompt):
            if self._timer is not None:
                self._timer.pause()
            self._tick()
            return
        if self._timer is None:
            self._timer = self.set_interval(TICK_S, self._tick)
        else:
            self._timer.resume()
        if isinstance(state, Countdown):
            self._tick()

    def _tick(self) -> None:
        state = self._state
        if (
            isinstance(state, InFlight)
            and not self._deterministic
            and time.monotonic() - state.started < GAUGE_AFTER_S
        ):
            return
        if state is None and self._shown_empty:
            return
        self._shown_empty = state is None
        self.update(self._render_state())

    def _render_state(self) -> RenderableType:
        state, p = self._state, self.palette
        if state is None:
            return Text("")
        if isinstance(state, InFlight):
            elapsed = 0.0 if self._deterministic else time.monotonic() - state.started
            line = Text(f"▶ #{state.index} {state.action} in flight  ", style="bold")
            line.append_text(
                duration_bar(
                    elapsed,
                    state.limit_s,
                    p,
                    width=GAUGE_WIDTH,
                    deterministic=self._deterministic,
                )
            )
            if elapsed > state.limit_s:
                line.append("  past the contract's limit", style=f"bold {p.error}")
            return line
        if isinstance(state, Countdown):
            waited = 0.0 if self._deterministic else time.monotonic() - state.started
            left = max(0.0, state.seconds - waited)
            line = Text(f"⏸ #{state.index} callbackDelaySeconds: ", style="bold")
            line.append(
                f"{format_duration(left, deterministic=self._deterministic)} left",
                style=timing_style(0.0, p),
            )
            if state.requested_s != state.seconds:
                line.append(
                    f" (the handler asked for {state.requested_s:g} s, capped by --max-delay)",
                    style=p.muted,
                )
            line.append("   press d to skip", style=f"bold {p.accent}")
            return line
        text = printable(scrub(state.text) if self._deterministic else state.text)
        style = {"ok": p.ok, "warn": p.warn, "error": p.error}.get(state.tone, "")
        parts: list[RenderableType] = [Text(text, style=f"bold {style}".strip())]
        if state.hint:
            hint = printable(scrub(state.hint) if self._deterministic else state.hint)
            parts.append(Text(hint, style=p.muted))
        return Group(*parts)
