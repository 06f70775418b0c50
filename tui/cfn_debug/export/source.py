"""The thin glue between a session (from the journal or a transcript) and the writers.

Writers take plain runs and a metadata dict, so they do not depend on how a session is held.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfn_debug.journal.session import Session
from cfn_debug.records import RunRecord


def runs_and_meta(session: Any) -> tuple[list[RunRecord], dict[str, Any]]:
    """Runs and metadata (project, endpoint, version, created) of a Session or a list of runs."""
    if isinstance(session, (list, tuple)):
        return list(session), {}
    runs = list(getattr(session, "runs", []))
    meta = getattr(session, "meta", None)
    return runs, dict(meta) if isinstance(meta, dict) else {}


def session_from(runs: list[RunRecord], meta: dict[str, Any], path: Path | None) -> Session:
    """A Session holding ``runs`` and the metadata a transcript recorded."""

    def text(key: str) -> str | None:
        value = meta.get(key)
        return value if isinstance(value, str) else None

    session = Session(
        runs=runs,
        project=text("project"),
        endpoint=text("endpoint"),
        created=text("created"),
        path=path,
    )
    if text("version"):
        session.version = meta["version"]
    return session
