"""Opening what the dashboard shows, in a worker thread that only posts messages: the project
(``Workspace.open``: the schema, the local AWS and its setup stack, the handlers' environment,
the endpoint), with the engine's progress on the way; or a saved session (`cfn-debug open`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

from cfn_debug.app.config import AppConfig
from cfn_debug.app.live import LiveSession
from cfn_debug.app.messages import Progress, SessionLoaded, WorkspaceFailed, WorkspaceReady
from cfn_debug.app.summary import error_hint
from cfn_debug.errors import CfnDebugError
from cfn_debug.text.terminal import printable

if TYPE_CHECKING:
    from types import ModuleType

    from cfn_debug.aws.setup_stack import SetupProgress
    from cfn_debug.endpoint.pyenv import EnvProgress
    from cfn_debug.journal.session import Session
    from cfn_debug.workspace import Workspace

Post = Callable[[Message], object]


class OpenProgress:
    """The engine's progress callbacks while the workspace opens, as ``Progress`` messages: the
    setup stack's resources (done of total), then the environment build (pip's lines so far).
    One piece of work at a time: the next one finishes the bar of the one before."""

    SETUP = "Setting up the local AWS"
    ENV = "Building the handlers' Python environment"
    BUILD = "Building the handlers' code"

    def __init__(self, post: Post) -> None:
        self.post = post
        self._env_lines = 0
        #: (kind, done, total) of the work the bar shows, None when it shows none.
        self._shown: tuple[str, int, int | None] | None = None

    def _show(self, kind: str, detail: str, done: int, total: int | None) -> None:
        if self._shown is not None and self._shown[0] != kind:
            self.finish()
        self._shown = (kind, done, total)
        self.post(Progress(f"{kind}: {printable(detail)[:100]}", done, total))

    def setup(self, progress: SetupProgress) -> None:
        self._show(self.SETUP, progress.message, progress.done, progress.total or None)

    def env(self, progress: EnvProgress) -> None:
        if progress.stage in ("create", "install"):  # "check" and "cached" are instant
            self._env_lines += progress.stage == "install"
            self._show(self.ENV, progress.message, self._env_lines, None)
        elif progress.stage == "build":  # a runtime's build (npm ci, npm run build, go, mvn)
            building = self._shown is not None and self._shown[0] == self.BUILD
            done = self._shown[1] + 1 if building and self._shown is not None else 1
            self._show(self.BUILD, progress.message, done, None)
        elif progress.stage == "ready" and self._shown is not None and self._shown[0] == self.ENV:
            self._show(self.ENV, progress.message, self._env_lines, None)
            self.finish()

    def finish(self) -> None:
        """The work shown ended (the next began, or the workspace opened or failed)."""
        if self._shown is not None:
            kind, done, total = self._shown
            self.post(Progress(kind, done, total, finished=True))
            self._shown = None


WorkspaceOpener = Callable[[AppConfig, OpenProgress], "Workspace"]


def engine_support() -> ModuleType:
    """``cfn_debug.app.engine``: the workspace, the journal, the demo's state, the chain and watch
    engines. The worker opening the project loads it; what runs once the project is open (the
    main screen, the chain runs, the demo's key) finds it loaded."""
    # lazy: the engine (endpoint, AWS, chain, watch, journal) loads in the opening worker thread
    from cfn_debug.app import engine

    return engine


def open_workspace(config: AppConfig, progress: OpenProgress) -> Workspace:
    """Blocking: discovers the project and starts the endpoint. Run it in a thread."""
    return engine_support().open_workspace(config, progress)


def open_and_post(live: LiveSession, opener: WorkspaceOpener, post: Post) -> None:
    """Open the project (blocking); post WorkspaceReady, or WorkspaceFailed with a hint."""
    progress = OpenProgress(post)
    try:
        workspace = opener(live.config, progress)
    except CfnDebugError as error:
        progress.finish()
        post(WorkspaceFailed(str(error), error_hint(error)))
        return
    except Exception as error:  # never a traceback: say what broke and what to do
        progress.finish()
        post(WorkspaceFailed(f"{type(error).__name__}: {error}", error_hint(error)))
        return
    progress.finish()
    if live.take(workspace):
        post(WorkspaceReady(workspace))


def read_session(path: Path) -> Session:
    """A saved session: a JSON transcript or a session journal (.jsonl). Raises CfnDebugError
    when the file is neither. `cfn-debug open` reads it before the App starts; the App, when
    it was not read (a test's AppConfig), in the worker of ``load_and_post``."""
    # lazy: the saved-session reader (cfn_debug.export.json, the journal) loads only to open one
    from cfn_debug.export import load_session

    return load_session(path)


def load_and_post(live: LiveSession, post: Post) -> None:
    """Read the saved session (blocking); post SessionLoaded, or WorkspaceFailed."""
    path = live.config.transcript
    assert path is not None
    if live.config.saved is not None:  # `open` read it before starting
        post(SessionLoaded(live.config.saved))
        return
    try:
        session = read_session(path)
    except CfnDebugError as error:
        hint = "Name a JSON transcript (cfn-debug export) or a session journal (.jsonl)."
        post(WorkspaceFailed(str(error), hint))
        return
    except Exception as error:
        post(WorkspaceFailed(f"{type(error).__name__}: {error}", error_hint(error)))
        return
    post(SessionLoaded(session))
