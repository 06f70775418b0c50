"""The main screen: header, events, timeline, status line and step detail, and the footer.

It only lays the widgets out; the App routes the engine's records to them. Every app-level key
(screenshot, theme, help, export) also works over the screens pushed on top of it.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer

from cfn_debug.app.widgets.events_panel import EventsPanel
from cfn_debug.app.widgets.header import SessionHeader
from cfn_debug.app.widgets.progress import WorkProgress
from cfn_debug.app.widgets.run_status import RunStatus
from cfn_debug.app.widgets.step_detail import ContractOf, StepDetail
from cfn_debug.app.widgets.timeline import Timeline


class MainScreen(Screen[None]):
    class Ready(Message):
        """The widgets are mounted: the App may start filling them."""

    def __init__(self, contract_of: ContractOf, *, deterministic: bool = False) -> None:
        super().__init__(id="main-screen")
        self._contract_of = contract_of
        self._deterministic = deterministic

    def compose(self) -> ComposeResult:
        det = self._deterministic
        yield SessionHeader(deterministic=det, id="header")
        with Horizontal(id="main"):
            yield EventsPanel(id="events")
            with Vertical(id="right"):
                yield Timeline(deterministic=det, id="timeline")
                yield WorkProgress(deterministic=det, id="work")
                yield RunStatus(deterministic=det, id="status")
                yield StepDetail(self._contract_of, deterministic=det, id="detail")
        yield Footer()

    def on_mount(self) -> None:
        self.app.post_message(self.Ready())
