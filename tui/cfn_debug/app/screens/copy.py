"""Pick what of the selected step `y` copies: request, response, callbackContext or findings."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cfn_debug.app.actions import app_keys
from cfn_debug.export.clip import CLIPS

#: The detail tab -> what `y` offers first there.
FIRST_FOR_TAB = {"request": "request", "response": "response", "findings": "findings"}


class CopyScreen(ModalScreen[str | None]):
    """Dismisses with the chosen CLIPS id, or None."""

    BINDINGS = [
        Binding("escape", "dismiss_none", "Cancel", id="copy-cancel"),
        *app_keys(),
    ]

    def __init__(self, step_index: int, tab: str) -> None:
        super().__init__()
        self._step_index = step_index
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
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
