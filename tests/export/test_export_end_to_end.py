"""From a real run to every export: `cfn-debug run --journal` on the bundled demo, then export.

The demo's handlers run in the embedded endpoint (real processes, loopback HTTP); the journal is
the one the engine writes. The exports must load back (JSON), parse (JUnit, HTML) and hide the
demo's writeOnly value and the event's credentials.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from junitparser import Failure, JUnitXml

import cfn_debug
from cfn_debug.cli import main
from cfn_debug.export import Masker, export_session, load_transcript
from cfn_debug.journal.session import Session, load_journal
from cfn_debug.schema import load_schema

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "sample_events"
DEMO_SCHEMA = Path(cfn_debug.__file__).parent / "demo" / "cfndebug-demo-widget.json"
SECRETS = (
    "not-a-real-secret-0001",  # the demo widget's writeOnly Secret in create.json
    "AKIAFAKEFAKEFAKEFAKE",
    "fake-secret-access-key-for-local-testing-only",
    "fake-session-token-for-local-testing-only",
)


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (EVENTS / "create.json").is_file() or not DEMO_SCHEMA.is_file():
        pytest.fail("the demo's sample events and schema are part of the repository")
    path = tmp_path_factory.mktemp("e2e") / "session.jsonl"
    events = [EVENTS / "create.json", EVENTS / "fault-unhandled-exception.json"]
    command = [sys.executable, "-m", "cfn_debug.cli", "run", *map(str, events)]
    result = subprocess.run(
        [*command, "--journal", str(path), "--max-delay", "0"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=path.parent,
    )
    assert result.returncode in (0, 1), result.stderr
    assert path.is_file()
    return path


def test_the_json_transcript_loads_back_to_the_masked_journal(
    journal: Path, tmp_path: Path
) -> None:
    out = tmp_path / "t.json"
    args = ["export", str(journal), "--format", "json", "-o", str(out)]
    assert main([*args, "--schema", str(DEMO_SCHEMA)]) == 0
    recorded = load_journal(journal)
    masker = Masker(load_schema(DEMO_SCHEMA).write_only, runs=recorded.runs)
    loaded = load_transcript(out)
    assert [r.event_name for r in loaded.runs] == ["create", "fault-unhandled-exception"]
    assert loaded.runs == [masker.run(run) for run in recorded.runs]
    assert loaded.endpoint == recorded.endpoint


def test_no_export_of_a_real_session_holds_a_secret(journal: Path) -> None:
    session = load_journal(journal)
    assert any("not-a-real-secret-0001" in repr(s.request) for r in session.runs for s in r.steps)
    write_only = load_schema(DEMO_SCHEMA).write_only
    for fmt in ("json", "md", "html", "junit"):
        out = io.StringIO()
        export_session(session, fmt, out, write_only=write_only)
        for secret in SECRETS:
            assert secret not in out.getvalue(), f"{secret} in {fmt}"


def test_junit_of_a_real_crash_carries_the_failure_and_the_traceback(
    journal: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report.xml"
    assert main(["export", str(journal), "--format", "junit", "-o", str(out)]) == 0
    suites = {suite.name: suite for suite in JUnitXml.fromfile(str(out))}
    crash = suites["fault-unhandled-exception (READ)"]
    case = next(iter(crash))
    failures = [r for r in case.result if isinstance(r, Failure)]
    assert failures and failures[0].type == "handler-exception"
    assert "KeyError" in (failures[0].message or "")
    assert "Traceback (most recent call last)" in (case.system_out or "")
    assert suites["create (CREATE)"].failures == 0


def test_html_of_a_real_session_has_every_step(journal: Path) -> None:
    session: Session = load_journal(journal)
    out = io.StringIO()
    export_session(session, "html", out)
    for number, run in enumerate(session.runs):
        for step in run.steps:
            assert f'id="run-{number}-step-{step.index}"' in out.getvalue()
