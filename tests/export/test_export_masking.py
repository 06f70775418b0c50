"""No byte of any export holds a credential, nor a writeOnly value unless it is revealed."""

from __future__ import annotations

import io
import json

import pytest
from export_sample import CREDENTIALS, ENTRY_TOKEN, PASSWORD, WRITE_ONLY, WRITE_ONLY_VALUES

from cfn_debug.export import FORMATS, WRITE_ONLY_MASK, Masker, export_session
from cfn_debug.export.masking import (
    pointer_parts,
    record_dict,
    redact_credential_text,
    trie_pattern,
)
from cfn_debug.journal.session import Session
from cfn_debug.records import Change, ChangeKind
from cfn_debug.text.redact import REDACTED


def _export(session: Session, fmt: str, **options: object) -> bytes:
    out = io.StringIO()
    export_session(session, fmt, out, **options)  # type: ignore[arg-type]
    return out.getvalue().encode("utf-8")


def _forms(secret: str) -> list[bytes]:
    """The secret as bytes, and as the formats may escape it (JSON, HTML, XML)."""
    return [secret.encode(), secret.replace("/", "\\/").encode()]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_no_export_contains_a_secret(session: Session, fmt: str) -> None:
    data = _export(session, fmt, write_only=WRITE_ONLY)
    for secret in (*CREDENTIALS, *WRITE_ONLY_VALUES):
        for form in _forms(secret):
            assert form not in data, f"{secret!r} leaked into the {fmt} export"
    # The parts that are not secret are still there: the masking hid values, not the export.
    assert b"vault" in data
    assert WRITE_ONLY_MASK.encode() in data or fmt == "junit"
    assert REDACTED.encode() in data


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_reveal_shows_write_only_values_but_never_credentials(session: Session, fmt: str) -> None:
    data = _export(session, fmt, write_only=WRITE_ONLY, reveal_write_only=True)
    if fmt != "junit":  # JUnit carries findings and logs, not models
        assert PASSWORD.encode() in data
    for secret in CREDENTIALS:
        assert secret.encode() not in data


def test_credentials_are_redacted_even_without_a_schema(session: Session) -> None:
    for fmt in FORMATS:
        data = _export(session, fmt)
        for secret in CREDENTIALS:
            assert secret.encode() not in data, f"{secret!r} leaked into {fmt}"


def test_diffs_are_masked_at_under_and_above_write_only_pointers(session: Session) -> None:
    masker = Masker(WRITE_ONLY, runs=session.runs)
    step = masker.run(session.runs[0]).steps[2]
    by_pointer = {c.pointer: c for c in step.diff_previous}
    assert by_pointer["/Password"].before == WRITE_ONLY_MASK
    assert by_pointer["/Password"].after == WRITE_ONLY_MASK
    assert by_pointer["/Entries/0/Token"].before is None  # an added value: nothing before
    assert by_pointer["/Entries/0/Token"].after == WRITE_ONLY_MASK
    assert by_pointer["/Entries/1"].after == {"Name": "x", "Token": WRITE_ONLY_MASK}
    assert by_pointer["/Entries"].after == [{"Token": WRITE_ONLY_MASK}]
    assert by_pointer["/Entries"].before == []


def test_a_change_beside_a_write_only_property_is_untouched() -> None:
    masker = Masker(["/Password"])
    change = Change("/PasswordHint", ChangeKind.CHANGED, "old hint", "new hint").to_dict()
    assert masker._mask_change(change) == change


def test_write_only_values_copied_elsewhere_are_scrubbed(session: Session) -> None:
    run = Masker(WRITE_ONLY, runs=session.runs).run(session.runs[0])
    progress = run.steps[0].result.progress
    assert progress is not None
    assert progress["callbackContext"]["copied"] == WRITE_ONLY_MASK
    assert run.steps[0].result.logs[0].endswith(f"with password {WRITE_ONLY_MASK}")
    assert run.steps[0].findings[0].message.endswith(f"value '{WRITE_ONLY_MASK}'")


def test_masking_does_not_change_the_session_it_reads(session: Session) -> None:
    before = [run.to_dict() for run in session.runs]
    list(Masker(WRITE_ONLY, runs=session.runs).runs(session.runs))
    assert [run.to_dict() for run in session.runs] == before


def test_short_write_only_values_are_masked_in_place_but_not_scrubbed_from_text(
    session: Session,
) -> None:
    run = session.runs[0]
    step = run.steps[0]
    assert step.result.progress is not None
    step.result.progress["resourceModel"]["Password"] = "abc"
    step.result.logs.append("abc is a common substring: abcdef")
    masked = Masker(["/Password"], runs=[run]).run(run)
    masked_progress = masked.steps[0].result.progress
    assert masked_progress is not None
    assert masked_progress["resourceModel"]["Password"] == WRITE_ONLY_MASK
    assert masked.steps[0].result.logs[-1] == "abc is a common substring: abcdef"


@pytest.mark.parametrize(
    ("pointer", "parts"),
    [
        ("/Password", ("Password",)),
        ("/Entries/*/Token", ("Entries", "*", "Token")),
        ("/a~1b/c~0d", ("a/b", "c~d")),
        ("", ()),
    ],
)
def test_pointer_parts(pointer: str, parts: tuple[str, ...]) -> None:
    assert pointer_parts(pointer) == parts


def test_entry_token_in_the_handler_request_shape_is_masked(session: Session) -> None:
    run = Masker(WRITE_ONLY, runs=session.runs).run(session.runs[1])
    data = run.steps[0].request["requestData"]
    assert data["resourceProperties"]["Entries"][0]["Token"] == WRITE_ONLY_MASK
    assert data["previousResourceProperties"]["Password"] == WRITE_ONLY_MASK
    assert data["callerCredentials"]["accessKeyId"] == REDACTED
    assert ENTRY_TOKEN not in repr(run)


@pytest.mark.parametrize(
    ("line", "redacted"),
    [
        ("secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXPORTKEY end", True),
        ("token=IQoJb3JpZ2luX2VjEXAMPLEtokenEXAMPLEtokenEXAMPLE", True),
        ("commit 3557417c0ffee3557417c0ffee3557417c0ffee1 is lower-case hex", False),
        ("ARN arn:aws:iam::123456789012:role/cfn-debug-demo-role-ExampleRole", False),
        ("41 chars wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXPORTKEYx", False),
        ("UPPERCASEONLYIDENTIFIERSTRINGOF40CHARSXX", False),
    ],
)
def test_free_text_loses_what_looks_like_a_secret_key(line: str, redacted: bool) -> None:
    assert (redact_credential_text(line) != line) is redacted
    if redacted:
        assert REDACTED in redact_credential_text(line)


def test_record_dict_is_to_dict_without_the_copies(session: Session) -> None:
    for run in session.runs:
        assert record_dict(run) == run.to_dict()
    progress = session.runs[0].steps[0].result.progress
    assert record_dict(session.runs[0])["steps"][0]["result"]["progress"] is progress


def test_trie_pattern_finds_every_word_and_prefers_the_longest() -> None:
    words = ["secret-one", "secret-one-longer", "secret-two", "other(1)*", "sécret"]
    pattern = trie_pattern(words)
    assert pattern is not None
    for word in words:
        assert pattern.fullmatch(word), word
    text = "a secret-one-longer b secret-one c secret-tw d other(1)* sécret"
    assert pattern.sub("#", text) == "a # b # c secret-tw d # #"
    assert trie_pattern([]) is None


def test_run_json_is_the_masked_run_dict_as_json(session: Session) -> None:
    masker = Masker(WRITE_ONLY, runs=session.runs)
    for run in session.runs:
        assert json.loads(masker.run_json(run)) == masker.run_dict(run)


def test_text_formats_get_steps_without_request_or_models(session: Session) -> None:
    masker = Masker(WRITE_ONLY, runs=session.runs)
    step = masker.run(session.runs[0], models=False).steps[0]
    assert step.request == {}
    assert step.result.progress == {"status": "IN_PROGRESS", "message": ""}
    assert step.result.logs[1] == session.runs[0].steps[0].result.logs[1]


def test_a_write_only_value_seen_only_in_a_diff_is_scrubbed_from_logs(session: Session) -> None:
    run = session.runs[0]
    run.steps[2].result.logs.append("rotated from old-pass-value")  # only the diff holds it
    masked = Masker(WRITE_ONLY, runs=[run]).run(run)
    assert masked.steps[2].result.logs[-1] == f"rotated from {WRITE_ONLY_MASK}"
