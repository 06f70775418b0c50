"""pdb in a worker, on the terminal of ``cfn-debug run``.

Each worker's pdb (endpoint/debugchannel.DebugSession) writes to this process's stdout; when it
waits for a command, one line is read from this process's stdin (the terminal's own line editing
works: it is in cooked mode) and sent back. One session reads the terminal at a time.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from cfn_debug.endpoint.debugchannel import DebugEvent, DebugSession

BANNER = (
    "[cfn-debug] the handler stopped at {where}: pdb (c continues, n next, s step, p EXPR, "
    "l list, w where; q ends the invocation). Time stopped is not counted against the handler."
)


def terminal_usable(stdin: TextIO | None = None, stdout: TextIO | None = None) -> bool:
    """Whether pdb can be offered here: stdin and stdout are both a terminal."""
    streams = (stdin or sys.stdin, stdout or sys.stdout)
    try:
        return all(stream is not None and stream.isatty() for stream in streams)
    except (AttributeError, ValueError):
        return False


class TerminalDebugger:
    """The front-end of debugchannel.DebugChannel for a terminal (pass ``on_session``)."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self._stdin = stdin or sys.stdin
        self._stdout = stdout or sys.stdout
        self._terminal = threading.Lock()
        self._announced: set[int] = set()

    def on_session(self, session: DebugSession) -> None:
        session.listener = self._on_event

    def _write(self, text: str) -> None:
        try:
            self._stdout.write(text)
            self._stdout.flush()
        except (OSError, ValueError):
            pass

    def _on_event(self, session: DebugSession, event: DebugEvent) -> None:
        if event.kind == "output":
            self._write(event.text)
        elif event.kind == "stop" and id(session) not in self._announced:
            self._announced.add(id(session))
            where = f"{event.file}:{event.line}" if event.file else "a breakpoint"
            self._write("\n" + BANNER.format(where=where) + "\n")
        elif event.kind == "input":
            with self._terminal:
                try:
                    line = self._stdin.readline()
                except (OSError, ValueError, KeyboardInterrupt):
                    line = ""
            if not line:  # end of input: pdb quits (the invocation ends)
                self._write("\n")
                session.send_line("q")
            else:
                session.send_line(line)
