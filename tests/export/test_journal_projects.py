"""A journal reused for another project (`--journal FILE` given twice): each run is exported
under the project it ran against, not every run under the first header's project."""

from __future__ import annotations

import io
import json
from pathlib import Path

from export_sample import build_session

from cfn_debug.export.formats import export_session
from cfn_debug.journal.session import Journal, load_journal
from cfn_debug.records import RunEnded, RunStarted, StepCompleted


def _journal(path: Path, project: str, runs: list[object]) -> None:
    journal = Journal(path, project=project, endpoint="embedded")
    for run in runs:
        journal.record(RunStarted(run))  # type: ignore[arg-type]
        for step in run.steps:  # type: ignore[attr-defined]
            journal.record(StepCompleted(run.run_id, step))  # type: ignore[attr-defined]
        journal.record(RunEnded(run))  # type: ignore[arg-type]
    journal.close()


def test_each_run_keeps_the_project_it_ran_against(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    create, update, read = build_session().runs
    _journal(path, "/work/first-project", [create])
    _journal(path, "/work/second-project", [update, read])
    session = load_journal(path)
    assert session.project_of(create.run_id) == "/work/first-project"
    assert session.project_of(read.run_id) == "/work/second-project"

    out = io.StringIO()
    export_session(session, "json", out)
    document = json.loads(out.getvalue())
    assert document["meta"]["project"] == "/work/first-project; /work/second-project"
    projects = document["meta"]["run_projects"]
    assert [projects[r["run_id"]] for r in document["runs"]] == [
        "/work/first-project",
        "/work/second-project",
        "/work/second-project",
    ]
    for fmt in ("md", "html", "junit"):
        out = io.StringIO()
        export_session(session, fmt, out)
        text = out.getvalue()
        assert "second-project" in text and "first-project" in text, fmt
