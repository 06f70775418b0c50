"""The help screen: every key, from the same registry the footer and the palette use."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from cfn_debug.app.actions import ACTIONS, TABS, app_keys, key_label
from cfn_debug.text.terminal import printable

INTRO = (
    "cfn-debug runs an event against your handler, replays the IN_PROGRESS chain with the returned "
    "callbackContext, and checks every step against the handler contract."
)

MODES = (
    ("auto", "re-invoke until a terminal status (or the re-invoke cap)"),
    ("step", "one invocation per press of s; edit the callbackContext with c in between"),
    ("stop", "a single invocation, never re-invoked"),
)


def help_table() -> Table:
    table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 2, 0, 0))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for action in ACTIONS:
        table.add_row(key_label(action), action.help)
    table.add_row(f"1 … {len(TABS)}", "Detail tabs: " + ", ".join(title for _, title in TABS) + ".")
    table.add_row("Enter", "On an event: run it. On a timeline row: show that step.")
    table.add_row("Tab", "Move between the events, the timeline and the detail tabs.")
    table.add_row("Ctrl+P", "The command palette: every action and every event by name.")
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close", id="help-close"),
        *app_keys(leave_out=("help",)),
    ]

    def __init__(self, journal: str | None = None, *, saved: bool = False) -> None:
        super().__init__()
        self._journal = journal
        self._saved = saved

    def compose(self) -> ComposeResult:
        modes = Table(box=None, show_header=False, pad_edge=False, padding=(0, 2, 0, 0))
        modes.add_column(style="bold")
        modes.add_column()
        for name, text in MODES:
            modes.add_row(name, text)
        with VerticalScroll(id="help-box"):
            yield Static(Text("cfn-debug: keys", style="bold"), classes="help-title")
            yield Static(INTRO, classes="help-intro")
            yield Static(Text("Replay modes (m cycles them)", style="bold"))
            yield Static(modes)
            if self._journal is not None:
                label = "Saved session (read-only)" if self._saved else "Session journal"
                line = Text(f"\n{label}: ", style="bold")
                line.append(printable(self._journal), style="")
                yield Static(line, id="help-journal")
                yield Static(
                    Text(
                        "Every step is written to it as it happens; exports (Ctrl+E) go beside "
                        "it. Credentials are redacted.",
                        style="dim",
                    )
                )
            yield Static(Text("\nKeys", style="bold"))
            yield Static(help_table())
            yield Static(Text("\nPress Esc to close.", style="dim"))
