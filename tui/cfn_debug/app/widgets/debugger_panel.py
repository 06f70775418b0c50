"""The Debugger panel: a worker's pdb in the dashboard (its output, the source around the line it
stopped at, an input line with history). Hidden until a handler stops; the rest of the dashboard
stays live (pdb runs in the worker, its messages arrive on the debug channel's threads).

The main screen mounts the panel when the first ``DebuggerEvent`` arrives (a handler stopped)
and tells it each event by ``take``; what it shows is a debugger/pdbview.PdbView, updated by
that event. It shows one session at a time, the newest that stopped; a session it stops
showing while that one still waits (two workers stopped at once: a scenario's and a chain's)
is parked and shown again when the one shown runs on or ends, so no stopped handler is left
waiting where nobody can reach it.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from cfn_debug.debugger.pdbview import History, PdbView
from cfn_debug.endpoint.debugchannel import DebugEvent, DebugSession
from cfn_debug.text.terminal import printable

if TYPE_CHECKING:
    from textual.widgets import RichLog

HINT = "pdb: c continue · n next · s step · p/pp EXPR · l list · w where · q end the invocation"


class PdbInput(Input):
    """The command line: Enter sends, Up/Down walk the history."""

    def __init__(self, history: History, **kwargs: Any) -> None:
        super().__init__(placeholder="pdb command (Enter sends; ↑ ↓ history)", **kwargs)
        self.history = history

    def on_key(self, event: events.Key) -> None:
        if event.key == "up":
            command = self.history.older()
        elif event.key == "down":
            command = self.history.newer()
        else:
            return
        event.stop()
        event.prevent_default()
        if command is not None:
            self.value = command
            self.cursor_position = len(command)


class DebuggerPanel(Vertical):
    """pdb of the handler stopped now (the newest session that stopped)."""

    DEFAULT_CSS = """
    DebuggerPanel {
        height: 24;
        border: round $warning;
        border-title-color: $warning;
        display: none;
    }
    DebuggerPanel.-stopped {
        display: block;
    }
    DebuggerPanel #dbg-source {
        height: auto;
        max-height: 13;
        background: $boost;
    }
    DebuggerPanel #dbg-output {
        height: 1fr;
        min-height: 4;
    }
    DebuggerPanel PdbInput {
        height: 3;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.view = PdbView()
        self.session: DebugSession | None = None
        #: The shown session's last stop (where it is), kept to park it.
        self._where: DebugEvent | None = None
        #: Sessions stopped while another was shown -> their last stop, newest last.
        self._parked: dict[DebugSession, DebugEvent] = {}
        self._log: RichLog | None = None  # pdb's output, mounted when it first has some
        self.history = History(self.view)
        self.border_title = "Debugger"
        self.border_subtitle = HINT

    def compose(self) -> ComposeResult:
        yield Static(id="dbg-source")
        yield PdbInput(self.history, id="dbg-input")

    def _output(self) -> RichLog:
        """pdb's output, a log mounted above the input when the debugger first has something to
        say (the panel is hidden until then)."""
        if self._log is not None:
            return self._log
        # lazy: RichLog brings rich's pretty printer and attrs (~20 ms), kept off the first frame
        from textual.widgets import RichLog

        self._log = RichLog(id="dbg-output", wrap=True, markup=False, highlight=False)
        self.mount(self._log, before=self.query_one(PdbInput))
        return self._log

    def take(self, session: DebugSession, event: DebugEvent) -> None:
        """One event of a worker's pdb (the screen's DebuggerEvent)."""
        if self.session is not session:
            if event.kind in ("go", "quit", "closed"):
                self._parked.pop(session, None)  # it ran on: nothing to come back to
            if event.kind not in ("stop", "input"):
                return  # another worker's session that is not stopped: nothing to show
            if self.session is not None and self.view.stopped and self._where is not None:
                self._parked[self.session] = self._where
            self._parked.pop(session, None)
            self.session = session
            self.view.file = self.view.line = None
        if event.kind in ("stop", "input") and event.file is not None:
            self._where = event
        log = self._output()
        for line in self.view.apply(event):
            log.write(Text(printable(line)))
        if event.kind in ("stop", "input"):
            self._show_source()
            self.add_class("-stopped")
            where = f"{self.view.function or '?'} line {self.view.line}"
            self.border_title = f"Debugger: stopped in {printable(where)}"
            if event.kind == "input":
                # At once, not Widget.focus()'s call_later: the field has the keys from the
                # moment pdb waits (a key typed in between went to the panel below).
                self.screen.set_focus(self.query_one(PdbInput))
        elif event.kind == "go":
            self.border_title = "Debugger: running"
        elif event.kind in ("quit", "closed"):
            self.border_title = "Debugger"
            self.remove_class("-stopped")
            self.session = self._where = None
            self._show_parked()
        if not self.view.stopped and event.kind == "go":
            # Hidden unless it stops again at once (n, s): no flicker between two stops.
            self.set_timer(0.3, self._hide_if_running)

    def _show_parked(self) -> bool:
        """Show the newest parked session that still waits for a command; False if none."""
        while self._parked:
            session, where = self._parked.popitem()
            if session.waiting:
                where_now = printable(where.function or "?")
                self._output().write(Text(f"-- another handler waits in pdb, in {where_now}"))
                self.take(session, dataclasses.replace(where, kind="input", text=""))
                return True
        return False

    def _hide_if_running(self) -> None:
        if not self.view.stopped:
            if self._show_parked():
                return
            self.remove_class("-stopped")
            if self.screen.focused is self.query_one(PdbInput):
                self.screen.set_focus(None)

    def _show_source(self) -> None:
        text = Text()
        for line in self.view.source():
            mark = "→" if line.current else " "
            style = "reverse" if line.current else ""
            text.append(f"{mark}{line.number:5} {printable(line.text)}\n", style=style)
        name = printable(self.view.file or "")
        self.query_one("#dbg-source", Static).update(text if text else Text(name, style="dim"))

    def on_input_submitted(self, message: Input.Submitted) -> None:
        message.stop()
        session = self.session
        if session is None or not self.view.waiting:
            return
        command = message.value
        message.input.value = ""
        self.history.reset()
        echo = self.view.typed(command)
        self._output().write(Text(printable(echo)))
        session.send_line(command)
