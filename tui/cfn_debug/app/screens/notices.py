"""Every notice of the project in full (``!``): the schema's warnings and the workspace's notices,
as the notices line under the timeline counts them."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from cfn_debug.app.actions import app_keys
from cfn_debug.text.terminal import printable


class NoticesScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,exclamation_mark", "dismiss", "Close", id="notices-close"),
        *app_keys(),
    ]

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = list(lines)

    def compose(self) -> ComposeResult:
        count = len(self.lines)
        with VerticalScroll(id="help-box"):
            yield Static(Text(f"Notices ({count})", style="bold"), classes="help-title")
            yield Static(
                "What cfn-debug noticed about the project before the first event: the resource "
                "schema's warnings (cfn-debug schema lists them) and handler models that do not "
                "match the schema.",
                classes="help-intro",
            )
            if not self.lines:
                yield Static("No notices.")
            for line in self.lines:
                yield Static(Text("• " + printable(line)), classes="notice")
            yield Static(Text("\nPress Esc to close.", style="dim"))
