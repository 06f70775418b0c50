"""Pick what of the selected step `y` copies: request, response, callbackContext or findings;
the screen makes the clip (masked as exports are) and dismisses with it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cfn_debug.app.actions import app_keys
from cfn_debug.export.clip import CLIPS, clip_text
from cfn_debug.records import RunRecord, Step

#: The detail tab -> what `y` offers first there.
FIRST_FOR_TAB = {"request": "request", "response": "response", "findings": "findings"}


@dataclass(frozen=True)
class Clip:
    """What the user chose to copy: its title (CLIPS), its step's index and its text."""

    title: str
    step_index: int
    text: str


class CopyScreen(ModalScreen[Clip | None]):
    """Offers the CLIPS of ``step`` (one of ``steps``, the steps of ``run``); dismisses with
    the chosen one's Clip, or None."""

    BINDINGS = [
        Binding("escape", "dismiss_none", "Cancel", id="copy-cancel"),
        *app_keys(),
    ]

    def __init__(
        self,
        run: RunRecord,
        steps: Sequence[Step],
        step: Step,
        tab: str,
        write_only: Iterable[str] = (),
    ) -> None:
        super().__init__()
        self._run, self._steps, self._step = run, steps, step
        self._write_only = tuple(write_only)
        self._step_index = step.index
        self._first = FIRST_FOR_TAB.get(tab, "context")

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Static(
                f"Copy from step #{self._step_index} (masked as exports are)…", id="export-title"
            )
            yield OptionList(*(Option(title, id=clip) for clip, title in CLIPS), id="copy-what")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = [clip for clip, _ in CLIPS].index(self._first)
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        what = str(event.option.id)
        steps, step = self._steps, self._step
        index = next((i for i, s in enumerate(steps) if s is step), step.index)
        text = clip_text(self._run, steps, index, what, self._write_only)
        self.dismiss(Clip(dict(CLIPS)[what], step.index, text))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
