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
    meta = dict(meta) if isinstance(meta, dict) else {}
    scenarios = getattr(session, "scenarios", None)
    if scenarios:
        meta["scenarios"] = list(scenarios)
    if len(getattr(session, "projects", ())) > 1:  # a reused journal: each run's own project
        meta["run_projects"] = {run.run_id: session.project_of(run.run_id) for run in runs}
    return runs, meta


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
    scenarios = meta.get("scenarios")
    if isinstance(scenarios, list):
        session.scenarios = [s for s in scenarios if isinstance(s, dict)]
    projects = meta.get("run_projects")
    if isinstance(projects, dict):
        session.run_projects = {
            str(k): v if isinstance(v, str) else None for k, v in projects.items()
        }
    if text("version"):
        session.version = meta["version"]
    return session
