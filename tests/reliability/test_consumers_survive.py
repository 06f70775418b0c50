"""The consumers of hostile steps: `cfn-debug run` (console and --json) and every export format
are fed the hostile handlers' answers in one session. What must hold: no traceback, exit 1 for the
MUST findings (not 2, not a crash), every run journalled, every export written."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cfn_debug.journal.session import load_journal
from reliability.support import HOSTILE, REPO, child_env, sam_event, write_json
from support.cli import run_cli

pytestmark = pytest.mark.timeout(180)

MODES = ["wrong_types", "unknown_status", "big_body", "deep_model", "negative_delay", "nope"]


def cfn_debug(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=child_env(), cwd=REPO, timeout=150)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("consumers")
    events = [
        str(write_json(root / f"{mode}.json", sam_event(mode, Mode=mode, Name=mode)))
        for mode in MODES
    ]
    journal = root / "hostile.jsonl"
    target = ["--project", str(HOSTILE), "--function-name", "Hostile", "--max-delay", "0"]
    console = cfn_debug("run", *events, *target, "--journal", str(journal), "--logs")
    as_json = cfn_debug("run", *events, *target, "--json")
    return {"root": root, "journal": journal, "console": console, "json": as_json}


def test_run_prints_every_hostile_step_without_a_traceback(session) -> None:
    """`cfn-debug run --logs` over every hostile answer: exit 1 (MUST findings), no traceback,
    and the journal holds one ended run per event."""
    proc = session["console"]
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr  # (stdout shows the handler's own, for "nope")
    assert "cfn_debug/" not in proc.stdout + proc.stderr  # no frame of cfn-debug itself
    loaded = load_journal(session["journal"])
    assert len(loaded.runs) == len(MODES) and all(r.end_reason for r in loaded.runs)


def test_run_json_is_one_document_for_hostile_steps(session) -> None:
    """`cfn-debug run --json`: one JSON document with a run per event, exit 1, no traceback."""
    proc = session["json"]
    assert proc.returncode == 1, proc.stderr[-3000:]
    document = json.loads(proc.stdout)
    assert len(document["runs"]) == len(MODES) and document["ok"] is False


@pytest.mark.parametrize("fmt", ["json", "md", "html", "junit"])
def test_every_export_format_writes_the_hostile_session(session, fmt: str) -> None:
    """`cfn-debug export` of the hostile session in each format: exit 0, a non-empty file that
    names every event, no traceback."""
    out = Path(session["root"]) / f"hostile.{fmt}"
    proc = cfn_debug("export", str(session["journal"]), "--format", fmt, "-o", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = out.read_text(encoding="utf-8")
    assert all(mode in text for mode in MODES)
