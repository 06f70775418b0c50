"""The JSON transcript is lossless: it loads back to equal records, and bad ones fail by name."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from export_sample import CREDENTIALS, WRITE_ONLY, WRITE_ONLY_VALUES, build_session

from cfn_debug.errors import JournalError
from cfn_debug.export import WRITE_ONLY_MASK, export_session, load_session, load_transcript
from cfn_debug.records import RunRecord
from cfn_debug.text.redact import REDACTED, redact


def _write(tmp_path: Path, session: Any, **options: Any) -> Path:
    path = tmp_path / "session.json"
    with path.open("w", encoding="utf-8") as out:
        export_session(session, "json", out, **options)
    return path


def test_transcript_without_secrets_loads_back_equal(tmp_path: Path) -> None:
    session = build_session()
    # A session as the engine journals it: credentials already redacted, no writeOnly schema.
    clean = [RunRecord.from_dict(_strip_secrets(run.to_dict())) for run in session.runs]
    session.runs = clean
    loaded = load_transcript(_write(tmp_path, session, reveal_write_only=True))
    assert loaded.runs == clean
    assert loaded.meta == session.meta
    assert len(loaded.runs[0].steps) == 3


def test_masked_transcript_loads_back_to_the_masked_records(tmp_path: Path) -> None:
    session = build_session()
    loaded = load_transcript(_write(tmp_path, session, write_only=WRITE_ONLY))
    step = loaded.runs[0].steps[2]
    assert step.request["credentials"]["secretAccessKey"] == REDACTED
    assert step.request["request"]["desiredResourceState"]["Password"] == WRITE_ONLY_MASK
    assert step.result.progress is not None
    assert step.result.progress["resourceModel"]["Entries"][0]["Token"] == WRITE_ONLY_MASK
    # Everything that is not secret survives exactly.
    original = session.runs[0].steps[2]
    assert step.result.progress["resourceModel"]["Name"] == "vault|one"
    assert step.result.duration_s == original.result.duration_s
    assert step.findings[0].rule_id == original.findings[0].rule_id
    assert step.diff_previous[0].before == WRITE_ONLY_MASK
    assert [c.pointer for c in step.diff_previous] == [c.pointer for c in original.diff_previous]
    # Re-exporting the loaded transcript changes nothing: masking is idempotent.
    again = load_transcript(_write(tmp_path, loaded, write_only=WRITE_ONLY))
    assert again.runs == loaded.runs


def test_transcript_is_one_json_document_with_format_and_version(tmp_path: Path) -> None:
    data = json.loads(_write(tmp_path, build_session()).read_text(encoding="utf-8"))
    assert data["format"] == "cfn-debug-transcript"
    assert data["version"] == 1
    assert [run["run_id"] for run in data["runs"]] == ["run-create", "run-update", "run-read"]
    assert data["masking"] == {"credentials": "redacted", "write_only": "unknown"}


def _strip_secrets(value: Any) -> Any:
    """The run as the engine journals it: credentials redacted, no secret left in any text."""
    text = json.dumps(redact(value))
    for secret in (*CREDENTIALS, *WRITE_ONLY_VALUES):
        text = text.replace(secret, "plain")
    return json.loads(text)


def _document(tmp_path: Path) -> dict[str, Any]:
    return json.loads(_write(tmp_path, build_session()).read_text(encoding="utf-8"))


def _set(data: dict[str, Any], dotted: str, value: Any) -> None:
    """Set (or with value ... delete) a field given as 'runs.0.steps.1.result.kind'."""
    *parents, last = dotted.split(".")
    node: Any = data
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    key: Any = int(last) if isinstance(node, list) else last
    if value is ...:
        del node[key]
    else:
        node[key] = value


@pytest.mark.parametrize(
    ("change", "value", "field", "expected"),
    [
        ("format", "something-else", "format", "cfn-debug-transcript"),
        ("version", 2, "version", "version 1"),
        ("meta", [], "meta", "object"),
        ("runs", {}, "runs", "list of runs"),
        ("runs.1", "a run", "runs[1]", "a run"),
        ("runs.0.run_id", ..., "runs[0].run_id", "missing"),
        ("runs.0.action", "CREATE_ALL", "runs[0].action", "one of 'CREATE'"),
        ("runs.0.steps.2.result.kind", "exploded", "runs[0].steps[2].result.kind", "'progress'"),
        ("runs.0.steps.1.limit_s", "sixty", "runs[0].steps[1].limit_s", "number of seconds"),
        ("runs.0.steps.0.result.logs", "one line", "runs[0].steps[0].result.logs", "strings"),
        ("runs.0.steps.1.findings.1.level", "MAY", "runs[0].steps[1].findings[1].level", "MUST"),
        ("runs.0.steps.2.diff_previous.0.kind", "moved", "diff_previous[0].kind", "'added'"),
        ("runs.1.chain_findings.0.rule_id", 7, "runs[1].chain_findings[0].rule_id", "string"),
        ("runs.2.steps.0.surprise", 1, "runs[2].steps[0].surprise", "unknown field"),
    ],
)
def test_a_malformed_transcript_names_file_field_and_expectation(
    tmp_path: Path, change: str, value: Any, field: str, expected: str
) -> None:
    data = _document(tmp_path)
    _set(data, change, value)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(JournalError) as caught:
        load_transcript(path)
    assert caught.value.path == str(path)
    assert caught.value.field is not None and caught.value.field.endswith(field)
    assert expected in caught.value.detail


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"format": "cfn-debug-transcript", "version": 1, "runs": [', "expected JSON"),
        (b"\xff\xfe not text", "UTF-8"),
        (b"[1, 2]", "JSON object"),
    ],
)
def test_unreadable_transcripts_are_journal_errors(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(content)
    with pytest.raises(JournalError, match=expected) as caught:
        load_transcript(path)
    assert caught.value.path == str(path)


def test_a_missing_transcript_is_a_journal_error(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="cannot read"):
        load_transcript(tmp_path / "nope.json")


def test_writer_streams_to_any_text_file_object() -> None:
    out = io.StringIO()
    session = build_session()
    export_session(copy.deepcopy(session), "json", out)
    assert json.loads(out.getvalue())["meta"] == session.meta


def test_load_session_tells_transcripts_from_journals(tmp_path: Path) -> None:
    transcript = _write(tmp_path, build_session())
    assert [r.run_id for r in load_session(transcript).runs] == [
        "run-create",
        "run-update",
        "run-read",
    ]
    header_only = tmp_path / "empty.jsonl"
    header_only.write_text('{"type": "session", "project": "p", "endpoint": "e"}\n', "utf-8")
    loaded = load_session(header_only)
    assert loaded.runs == [] and loaded.project == "p"
    other = tmp_path / "other.json"
    other.write_text('{"format": "someone-else", "runs": []}', encoding="utf-8")
    with pytest.raises(JournalError) as caught:
        load_session(other)
    assert caught.value.field == "format"
