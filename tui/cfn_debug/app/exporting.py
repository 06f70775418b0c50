"""Export glue: the session the dashboard holds, written by the engine's exporter
(``cfn_debug.export`` through ``transcripts.write_export``) in a worker thread, which posts
``ExportFinished``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

from cfn_debug.app.live import LiveSession
from cfn_debug.app.messages import ExportFinished
from cfn_debug.app.transcripts import export_target as beside
from cfn_debug.app.transcripts import write_export as write
from cfn_debug.errors import CfnDebugError
from cfn_debug.journal.session import Session
from cfn_debug.locations import default_journal_path

if TYPE_CHECKING:
    from cfn_debug.journal.session import Session


def export_target(live: LiveSession, fmt: str) -> Path:
    """Beside the session journal (or where a new journal would go)."""
    base = live.journal_path
    if base is None:
        base = default_journal_path()
    return beside(base, fmt)


def session_of(live: LiveSession) -> Session:
    """What an export writes: the saved session shown, or every run of this one."""
    if live.saved is not None:
        return live.saved
    workspace = live.workspace
    root = live.project_root
    return Session(
        runs=list(live.runs),
        project=str(root) if root else None,
        endpoint=workspace.endpoint_label if workspace is not None else None,
    )


def write_export(
    live: LiveSession, fmt: str, target: Path, session: Any, post: Callable[[Message], object]
) -> None:
    """Blocking (run it in a thread): write ``session`` as ``fmt``, writeOnly properties
    masked, and post how it went."""
    schema = live.workspace.schema if live.workspace is not None else None
    write_only = schema.write_only if schema is not None else ()
    try:
        write(session, fmt, target, write_only)
    except (OSError, CfnDebugError, ValueError) as error:
        post(ExportFinished(fmt, target, f"{type(error).__name__}: {error}"))
        return
    post(ExportFinished(fmt, target))
