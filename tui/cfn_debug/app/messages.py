"""What workers tell the UI. Workers only post these; the App owns all state."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from cfn_debug.session import Session
    from cfn_debug.workspace import Workspace


class WorkspaceReady(Message):
    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace


class WorkspaceFailed(Message):
    def __init__(self, error: str, hint: str) -> None:
        super().__init__()
        self.error = error
        self.hint = hint


class WatchUpdate(Message):
    """One event of the engine's stream as it arrived: a chain's ``ChainEvent`` or one of the
    watcher's (``cfn_debug.watch.WatchEvent``). ``generation`` names the run it belongs to
    (None for the watcher's own events: a change seen, a build, a problem)."""

    def __init__(self, event: Any, generation: int | None) -> None:
        super().__init__()
        self.event = event
        self.generation = generation


class WatchStopped(Message):
    """The watch worker ended on an error (watch mode is off again)."""

    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class RunFailed(Message):
    """The chain could not start or stopped with an error the engine raised."""

    def __init__(self, generation: int, error: str, hint: str) -> None:
        super().__init__()
        self.generation = generation
        self.error = error
        self.hint = hint


class RunFinished(Message):
    """The chain worker returned (after RunEnded or RunFailed, or when cancelled)."""

    def __init__(self, generation: int) -> None:
        super().__init__()
        self.generation = generation


class SessionLoaded(Message):
    """`cfn-debug open`: the saved session was read."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session


class ExportFinished(Message):
    """An export was written to ``path`` (or failed with ``error``)."""

    def __init__(self, fmt: str, path: Path, error: str | None = None) -> None:
        super().__init__()
        self.fmt = fmt
        self.path = path
        self.error = error
