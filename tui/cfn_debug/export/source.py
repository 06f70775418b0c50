"""The thin glue between a session (from the journal or a transcript) and the writers.

Writers take plain runs and a metadata dict, so they do not depend on how a session is held.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cfn_debug.records import RunRecord

#: The session metadata every transcript carries (others are kept as they are).
META_KEYS = ("project", "endpoint", "version", "created")


@dataclass
class Transcript:
    """A saved session: its runs and its metadata (project, endpoint, version, created, ...)."""

    runs: list[RunRecord] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


def runs_and_meta(session: Any) -> tuple[list[RunRecord], dict[str, Any]]:
    """Runs and metadata of a Transcript, a ``cfn_debug.session.Session`` or a list of runs."""
    if isinstance(session, (list, tuple)):
        return list(session), {}
    runs = list(getattr(session, "runs", []))
    meta = getattr(session, "meta", None)
    if isinstance(meta, dict):
        return runs, dict(meta)
    found: dict[str, Any] = {}
    for key in (*META_KEYS, "cfn_debug_version"):
        value = getattr(session, key, None)
        if value is not None:
            found["version" if key == "cfn_debug_version" else key] = (
                value if isinstance(value, (str, int, float, bool)) else str(value)
            )
    return runs, found
