"""`cfn-debug export`: a journal written by session.Journal or a transcript in, a file out."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from export_sample import CREDENTIALS, SCHEMA, WRITE_ONLY, WRITE_ONLY_VALUES, build_session
from junitparser import JUnitXml

from cfn_debug.cli import main
from cfn_debug.export import Masker, load_transcript
from cfn_debug.export.markup import text
from cfn_debug.journal.session import Journal, load_journal
from cfn_debug.records import RunEnded, RunRecord, RunStarted, StepCompleted
from support.cli import run_cli


def _journal(path: Path, *, project: str = "/nowhere/vault", torn: bool = False) -> Path:
    session = build_session()
    with Journal(path, project=project, endpoint="http://127.0.0.1:3001") as journal:
        for run in session.runs:
            head = RunRecord.from_dict({**run.to_dict(), "steps": []})
            journal.record(RunStarted(head))
            for step in run.steps:
                journal.record(StepCompleted(run.run_id, step))
            journal.record(RunEnded(head))
    if torn:
        with path.open("a", encoding="utf-8") as out:
            out.write('{"type": "step", "run_id": "run-cr')
    return path


def test_journal_to_json_transcript_with_schema(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "session.jsonl")
    out = tmp_path / "out.json"
    args = ["export", str(journal), "--format", "json", "-o", str(out), "--schema", str(SCHEMA)]
    assert main(args) == 0
    loaded = load_transcript(out)
    recorded = load_journal(journal)
    masker = Masker(WRITE_ONLY, runs=recorded.runs)
    assert loaded.runs == [masker.run(run) for run in recorded.runs]
    assert loaded.project == "/nowhere/vault"
    assert loaded.endpoint == "http://127.0.0.1:3001"
    data = out.read_bytes()
    for secret in (*CREDENTIALS, *WRITE_ONLY_VALUES):
        assert secret.encode() not in data


@pytest.mark.parametrize("fmt", ["md", "html", "junit"])
def test_transcript_in_other_formats_out(tmp_path: Path, fmt: str) -> None:
    journal = _journal(tmp_path / "session.jsonl")
    transcript = tmp_path / "t.json"
    assert main(["export", str(journal), "-o", str(transcript), "--schema", str(SCHEMA)]) == 0
    out = tmp_path / f"out.{fmt}"
    assert main(["export", str(transcript), "--format", fmt, "--output", str(out)]) == 0
    content = out.read_text(encoding="utf-8")
    if fmt == "junit":
        assert JUnitXml.fromfile(str(out)).tests == 7
    else:
        assert ("update-crash" in content) and ("read-timeout" in content)
    for secret in (*CREDENTIALS, *WRITE_ONLY_VALUES):
        assert secret not in content


def test_stdout_and_the_missing_schema_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = _journal(tmp_path / "session.jsonl", torn=True)
    assert main(["export", str(journal), "--format", "md"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("# cfn-debug session transcript")
    assert text("create | `good`") in captured.out
    assert "no schema (give --schema FILE)" in captured.err
    assert "torn last line ignored" in captured.err
    for secret in CREDENTIALS:
        assert secret not in captured.out


def test_the_recorded_project_supplies_the_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "vault"
    project.mkdir()
    (project / ".rpdk-config").write_text(
        json.dumps({"typeName": "Example::Export::Vault", "language": "python37"}),
        encoding="utf-8",
    )
    (project / "example-export-vault.json").write_text(SCHEMA.read_text(), encoding="utf-8")
    journal = _journal(tmp_path / "session.jsonl", project=str(project))
    assert main(["export", str(journal), "--format", "html"]) == 0
    captured = capsys.readouterr()
    assert "no schema" not in captured.err
    for secret in WRITE_ONLY_VALUES:
        assert secret not in captured.out
    assert "writeOnly values masked" in captured.out


def test_reveal_write_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = _journal(tmp_path / "session.jsonl")
    args = ["export", str(journal), "--format", "json", "--schema", str(SCHEMA)]
    assert main([*args, "--reveal-write-only"]) == 0
    captured = capsys.readouterr()
    assert WRITE_ONLY_VALUES[0] in captured.out
    assert json.loads(captured.out)["masking"]["write_only"] == "revealed"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("export", *args, timeout=60)


def test_bad_inputs_are_one_line_errors_naming_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    result = _cli(str(missing))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"cfn-debug: error: {missing}: no such file; expected a journal or transcript"
    ]

    bad = tmp_path / "bad.json"
    document = json.loads((_export_json(tmp_path)).read_text(encoding="utf-8"))
    document["runs"][0]["steps"][1]["result"]["duration_s"] = "slow"
    bad.write_text(json.dumps(document), encoding="utf-8")
    result = _cli(str(bad), "--format", "junit")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert f"{bad}: runs[0].steps[1].result.duration_s: expected a number" in result.stderr

    result = _cli(str(_export_json(tmp_path)), "--schema", str(tmp_path / "nope.json"))
    assert result.returncode == 2
    assert "nope.json" in result.stderr and "Traceback" not in result.stderr


def test_an_unwritable_output_is_an_error_and_leaves_no_file(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "session.jsonl")
    target = tmp_path / "no-such-dir" / "out.md"
    result = _cli(str(journal), "--format", "md", "-o", str(target))
    assert result.returncode == 2
    assert "--output" in result.stderr and "Traceback" not in result.stderr
    assert not target.parent.exists()


def _export_json(tmp_path: Path) -> Path:
    out = tmp_path / "good.json"
    if not out.exists():
        assert main(["export", str(_journal(tmp_path / "j.jsonl")), "-o", str(out)]) == 0
    return out
