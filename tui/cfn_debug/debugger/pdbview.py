"""What the dashboard's Debugger panel shows of a worker's pdb, as plain state (no Textual):
pdb's output, where it stopped, whether it waits for a command, the commands typed (history).

``apply`` takes each endpoint/debugchannel.DebugEvent of the session in order; ``source`` is
the handler's file around the current line, the line marked.
"""

from __future__ import annotations

import linecache
from collections import deque
from dataclasses import dataclass, field

from cfn_debug.endpoint.debugchannel import DebugEvent

#: pdb output lines kept (older ones scroll away).
MAX_LINES = 2000
#: Commands kept for the input line's history.
MAX_HISTORY = 200
#: Source lines shown above and below the current one.
RADIUS = 6


@dataclass(frozen=True)
class SourceLine:
    number: int
    text: str
    current: bool


@dataclass
class PdbView:
    output: deque[str] = field(default_factory=lambda: deque(maxlen=MAX_LINES))
    file: str | None = None
    line: int | None = None
    function: str | None = None
    waiting: bool = False  # pdb waits for a command
    stopped: bool = False  # the handler is stopped (between stop and go)
    ended: bool = False  # the worker quit or is gone
    history: list[str] = field(default_factory=list)
    prompt: str = "(Pdb) "
    prompts: int = 0  # how many times pdb asked for a command
    _partial: str = ""

    def apply(self, event: DebugEvent) -> list[str]:
        """Take one event; returns the complete output lines it added."""
        added: list[str] = []
        if event.kind == "output":
            text = self._partial + event.text
            *lines, self._partial = text.split("\n")
            added = lines
        elif event.kind in ("stop", "input"):
            self.stopped = True
            if event.file is not None:
                self.file, self.line, self.function = event.file, event.line, event.function
            if event.kind == "input":
                self.waiting = True
                self.prompts += 1
                if self._partial:  # the prompt: shown with the command typed (see typed)
                    self.prompt, self._partial = self._partial, ""
        elif event.kind == "go":
            self.waiting = self.stopped = False
        elif event.kind in ("quit", "closed"):
            self.waiting = self.stopped = False
            self.ended = True
            if self._partial:
                added, self._partial = [self._partial], ""
        self.output.extend(added)
        return added

    def typed(self, command: str) -> str:
        """A command was sent: it goes into the history (not twice in a row); returns the output
        line that shows it after the prompt."""
        self.waiting = False
        echo = f"{self.prompt}{command}"
        self.output.append(echo)
        command = command.strip()
        if command and (not self.history or self.history[-1] != command):
            self.history.append(command)
            del self.history[:-MAX_HISTORY]
        return echo

    def source(self, radius: int = RADIUS) -> list[SourceLine]:
        """The lines around the current one (none where the file cannot be read)."""
        if self.file is None or self.line is None:
            return []
        lines = linecache.getlines(self.file)
        if not lines:
            return []
        first = max(1, self.line - radius)
        last = min(len(lines), self.line + radius)
        return [
            SourceLine(n, lines[n - 1].rstrip("\n"), n == self.line) for n in range(first, last + 1)
        ]


class History:
    """Up/down through the commands typed, as a shell's line editor does."""

    def __init__(self, view: PdbView) -> None:
        self.view = view
        self.at: int | None = None  # None: past the newest (the line being typed)

    def older(self) -> str | None:
        if not self.view.history:
            return None
        self.at = len(self.view.history) - 1 if self.at is None else max(0, self.at - 1)
        return self.view.history[self.at]

    def newer(self) -> str:
        if self.at is None:
            return ""
        self.at += 1
        if self.at >= len(self.view.history):
            self.at = None
            return ""
        return self.view.history[self.at]

    def reset(self) -> None:
        self.at = None
