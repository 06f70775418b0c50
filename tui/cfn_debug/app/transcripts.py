"""Where the dashboard writes exports, and the writing itself (run in a worker thread)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cfn_debug.export import FORMATS, export_session


def export_target(base: Path, fmt: str) -> Path:
    """The file an export of the session kept in ``base`` (its journal or transcript) goes to:
    beside it, the same name with the format's suffix; never ``base`` itself."""
    suffix = FORMATS[fmt][1]
    target = base.with_suffix(suffix)
    if target == base:
        target = base.with_name(f"{base.stem}.export{suffix}")
    return target


def write_export(session: Any, fmt: str, target: Path, write_only: Iterable[str] = ()) -> None:
    """Write ``session`` (a Session or a list of RunRecords) to ``target`` as ``fmt``; the file
    appears complete or not at all."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    with partial.open("w", encoding="utf-8", newline="\n") as out:
        export_session(session, fmt, out, write_only=list(write_only))
    partial.replace(target)
