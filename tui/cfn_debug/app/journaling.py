"""The dashboard's session journal: the engine's crash-safe Journal, given once the project is
open (``engine.open_journal``), written from the worker's side as each record arrives, and where
a UI error's traceback goes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cfn_debug.journal.session import Journal


class SessionLog:
    def __init__(self, path: Path | None, on_problem: Callable[[str], None]) -> None:
        #: Where the user asked for it (`--journal`); None: a new file in the state directory.
        self.requested = path
        self.journal: Journal | None = None
        #: Set once a write failed (a full disk): the runs go on, nothing more is written.
        self.error: str | None = None
        self._on_problem = on_problem

    def start(self, journal: Journal) -> None:
        """Write the session into ``journal`` from now on (``engine.open_journal``, once the
        project opened)."""
        self.journal = journal

    @property
    def path(self) -> Path | None:
        return self.journal.path if self.journal is not None else self.requested

    @property
    def errors_path(self) -> Path | None:
        """Where a caught UI error's traceback is appended: beside the journal."""
        return self.journal.path.with_suffix(".errors.log") if self.journal is not None else None

    def record(self, event: Any) -> None:
        """Journal a ChainEvent (called on the worker's side: nothing the UI does can keep a
        step out of the journal). A failure is reported once and the runs go on."""
        if self.journal is None or self.error is not None:
            return
        try:
            self.journal.record(event)
        except Exception as error:
            self.error = str(error)
            self._on_problem(f"The session journal stopped: {error}")

    def record_entry(self, entry: dict[str, Any]) -> None:
        """Journal an entry of its own type (a scenario's result:
        ``cfn_debug.app.scenario_stream``), as ``record`` does."""
        if self.journal is None or self.error is not None:
            return
        try:
            self.journal.write(entry)
        except Exception as error:
            self.error = str(error)
            self._on_problem(f"The session journal stopped: {error}")

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()
