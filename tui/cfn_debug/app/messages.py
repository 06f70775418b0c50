"""What workers tell the UI. Workers only post these; the App owns all state."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from cfn_debug.records import ChainEvent

if TYPE_CHECKING:
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


class ChainUpdate(Message):
    """One record of the engine's stream, as it arrived."""

    def __init__(self, generation: int, event: ChainEvent) -> None:
        super().__init__()
        self.generation = generation
        self.event = event


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


class SourceChanged(Message):
    """Watch mode: a file of the project was saved."""

    def __init__(self, paths: list[str]) -> None:
        super().__init__()
        self.paths = paths


class SourceReloaded(Message):
    """Watch mode: the project was read again (when ``reloaded``); run ``event_name`` again."""

    def __init__(self, event_name: str | None, reloaded: bool) -> None:
        super().__init__()
        self.event_name = event_name
        self.reloaded = reloaded
