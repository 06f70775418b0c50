"""Pick the format to export the session in."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cfn_debug.app.actions import app_keys

#: Palette / chooser order: (format, title).
EXPORT_FORMATS: tuple[tuple[str, str], ...] = (
    ("json", "JSON"),
    ("md", "Markdown"),
    ("html", "HTML"),
    ("junit", "JUnit"),
)

HINTS = {
    "json": "lossless, loads back (cfn-debug open)",
    "md": "to paste into a pull request or an issue",
    "html": "one self-contained file",
    "junit": "for CI: each step a testcase, each MUST finding a failure",
}


class ExportScreen(ModalScreen[str | None]):
    """Dismisses with the chosen format name, or None."""

    BINDINGS = [
        Binding("escape", "dismiss_none", "Cancel", id="export-cancel"),
        *app_keys(leave_out=("export",)),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Static("Export the session as…", id="export-title")
            yield OptionList(
                *(Option(f"{title}  ({HINTS[fmt]})", id=fmt) for fmt, title in EXPORT_FORMATS),
                id="export-formats",
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
