"""What one dashboard session holds, whichever screen shows it: the workspace (project, schema,
endpoint) once it opened, the runs of the session as they ended, the session journal, and a
saved session when `cfn-debug open` shows one. The App owns one; screens read it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from cfn_debug.app.config import AppConfig
from cfn_debug.app.journaling import SessionLog

if TYPE_CHECKING:
    from cfn_debug.journal.session import Journal, Session
    from cfn_debug.records import RunRecord
    from cfn_debug.workspace import Workspace


class LiveSession:
    def __init__(self, config: AppConfig, on_journal_problem: Callable[[str], None]) -> None:
        self.config = config
        self.workspace: Workspace | None = None
        #: (error, hint) when the project (or the saved session) could not be opened.
        self.workspace_error: tuple[str, str] | None = None
        #: Read-only: a saved session (`cfn-debug open`); nothing runs.
        self.read_only = config.transcript is not None
        self.saved: Session | None = None
        #: Every run of this session, as it ended (what an export writes).
        self.runs: list[RunRecord] = []
        self.log = SessionLog(config.journal, on_journal_problem)
        self.shutting_down = False
        self._lock = threading.Lock()

    def take(self, workspace: Workspace) -> bool:
        """Keep the workspace a worker opened; False (and it is closed) when the app is
        already shutting down."""
        with self._lock:
            closing = self.shutting_down
            if not closing:
                self.workspace = workspace
        if closing:
            workspace.close()
            return False
        return True

    @property
    def journal(self) -> Journal | None:
        return self.log.journal

    @property
    def journal_path(self) -> Path | None:
        return self.config.transcript if self.read_only else self.log.path

    @property
    def project_root(self) -> Path | None:
        if self.workspace is None:
            return None
        root = getattr(self.workspace.project, "root", None)
        return Path(root) if root is not None else None

    def paths_text(self, paths: Iterable[str]) -> str:
        """Paths as the user knows them: relative to the project when they are inside it."""
        root = self.project_root
        shown = []
        for path in paths:
            try:
                shown.append(str(Path(path).relative_to(root.resolve())) if root else path)
            except ValueError:
                shown.append(path)
        return ", ".join(shown)

    def close(self) -> Workspace | None:
        """Stop taking workspaces; the one open is returned for the caller to close."""
        with self._lock:
            self.shutting_down = True
            workspace, self.workspace = self.workspace, None
        return workspace
