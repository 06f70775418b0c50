"""Bounded work on hostile files: integers longer than Python's 4,300-digit limit in every file
cfn-debug reads and in a handler's answer; FIFOs, devices and links to them named as inputs;
hostile transcripts (deep, truncated, garbage, not a transcript) given to `open` and `export`.
What must hold: a one-line error naming the file (exit 2) or a typed outcome, never a ValueError,
a traceback or a hang."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from cfn_debug.endpoint.env_vars import load_env_vars
from cfn_debug.errors import CfnDebugError
from cfn_debug.events import load_event
from cfn_debug.export.json import load_session
from cfn_debug.invoke.local import LocalInvoker
from cfn_debug.journal.session import Journal, load_journal
from cfn_debug.project import read_settings
from cfn_debug.records import EndReason, OutcomeKind
from cfn_debug.schema import load_schema
from invoke.lambda_stub import LambdaStub, Reply
from reliability.support import REPO, child_env, event_spec, run_events, sam_event
from support.cli import run_cli

pytestmark = pytest.mark.timeout(120)

HUGE = "9" * 5000  # past sys.get_int_max_str_digits() (4,300)


def cfn_debug(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=child_env(XDG_STATE_HOME=str(cwd / "state")), cwd=cwd, timeout=60)


def one_line_naming(proc: subprocess.CompletedProcess[str], path: Path) -> str:
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0], proc.stderr
    return lines[0]


# --- integers over the digit limit ---------------------------------------------------------


def _with_huge_int(text: str) -> str:
    return text.replace('"HUGE"', HUGE)


def test_a_huge_integer_in_an_event_is_a_one_line_error_naming_the_file(tmp_path: Path) -> None:
    event = tmp_path / "huge.json"
    event.write_text(_with_huge_int(json.dumps(sam_event("h", N="HUGE"))), encoding="utf-8")
    with pytest.raises(CfnDebugError, match="4,300 digits") as caught:
        load_event(event)
    assert caught.value.path == str(event)
    line = one_line_naming(cfn_debug("run", str(event), "--no-journal", cwd=tmp_path), event)
    assert "digits" in line


def test_a_huge_integer_in_a_schema_rpdk_config_or_env_vars_is_a_typed_error(
    tmp_path: Path,
) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text('{"typeName": "A::B::C", "maxLength": "HUGE"}'.replace('"HUGE"', HUGE))
    with pytest.raises(CfnDebugError, match="digits") as caught:
        load_schema(schema)
    assert caught.value.path == str(schema)
    (tmp_path / ".rpdk-config").write_text(f'{{"typeName": "A::B::C", "n": {HUGE}}}')
    with pytest.raises(CfnDebugError, match="digits") as caught:
        read_settings(tmp_path)
    assert caught.value.path == str(tmp_path / ".rpdk-config")
    env_vars = tmp_path / "env.json"
    env_vars.write_text(f'{{"Parameters": {{"N": {HUGE}}}}}')
    with pytest.raises(CfnDebugError, match="digits"):
        load_env_vars(str(env_vars))
    proc = cfn_debug("serve", "--env-vars", str(env_vars), "--port", "1", cwd=tmp_path)
    one_line_naming(proc, env_vars)
    elsewhere = tmp_path / "elsewhere"  # not the project above: its .rpdk-config would answer
    elsewhere.mkdir()
    config = elsewhere / "config.json"
    config.write_text(f'{{"Fault": {HUGE}}}')
    nowhere = ["--endpoint", "http://127.0.0.1:9"]  # read before any endpoint is tried
    proc = cfn_debug("scenario", "--type-configuration", str(config), *nowhere, cwd=elsewhere)
    one_line_naming(proc, config)
    given = config.read_text()
    proc = cfn_debug("scenario", "--type-configuration", given, *nowhere, cwd=elsewhere)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "--type-configuration" in proc.stderr and "internal error" not in proc.stderr


def test_a_huge_integer_in_a_transcript_or_journal_is_a_one_line_error(tmp_path: Path) -> None:
    transcript = tmp_path / "t.json"
    transcript.write_text(f'{{"format": "cfn-debug-transcript", "version": 1, "n": {HUGE}}}')
    journal = tmp_path / "j.jsonl"
    journal.write_text(f'{{"type": "session", "n": {HUGE}}}\n{{"type": "session"}}\n')
    for path in (transcript, journal):
        with pytest.raises(CfnDebugError):
            load_session(path)
        one_line_naming(cfn_debug("export", str(path), cwd=tmp_path), path)


async def test_a_huge_integer_in_a_handler_answer_is_a_typed_outcome(tmp_path: Path) -> None:
    """The answer is valid JSON: it is not called "not JSON" nor judged (no finding); the run
    ends as an error naming the field and the integer's length, and the journal keeps it."""
    body = b'{"status": "SUCCESS", "resourceModel": {"a/b": [1, ' + HUGE.encode() + b"]}}"
    with LambdaStub() as stub:
        stub.functions["Fn"] = lambda _event: Reply(body)
        invoker = LocalInvoker(stub.url)
        journal = Journal(tmp_path / "j.jsonl")
        run, _ = await run_events(invoker, event_spec("x"), "Fn", on_event=journal.record)
        journal.close()
        await invoker.aclose()
    step = run.steps[0]
    assert run.end_reason is EndReason.ERROR
    assert step.result.kind is OutcomeKind.UNREADABLE and step.findings == []
    message = step.result.error_message or ""
    assert "valid JSON" in message and "/resourceModel/a~1b/1" in message
    assert "5,000 digits" in message and "4,300" in message
    assert load_journal(tmp_path / "j.jsonl").runs[0].steps[0].result.kind is OutcomeKind.UNREADABLE


# --- FIFOs, devices, links -----------------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "device", "link-to-fifo", "link-to-device"])
def test_an_input_that_is_a_fifo_or_device_is_refused_without_reading(
    kind: str, tmp_path: Path
) -> None:
    """Nobody writes to the FIFO, /dev/zero never ends: each is refused at once (a read would
    hang the test until its timeout), for `run`, `--schema`, `export` and `open`."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    target = {"fifo": fifo, "device": Path("/dev/zero")}[kind.removeprefix("link-to-")]
    path = tmp_path / "event.json"
    if kind.startswith("link"):
        path.symlink_to(target)
    else:
        path = target
    with pytest.raises(CfnDebugError, match="expected a regular file"):
        load_event(path)
    with pytest.raises(CfnDebugError, match="expected a regular file"):
        load_schema(path)
    for args in (["run", str(path), "--no-journal"], ["export", str(path)], ["open", str(path)]):
        line = one_line_naming(cfn_debug(*args, cwd=tmp_path), path)
        assert "expected a regular file" in line


# --- hostile transcripts -------------------------------------------------------------------


def _hostile_transcripts(root: Path) -> dict[str, Path]:
    good_head = '{"format": "cfn-debug-transcript", "version": 1, "meta": {}, "runs": ['
    files = {
        "deep-json": "[" * 100_000 + "]" * 100_000,
        "deep-journal-line": '{"type": "session"}\n' + "[" * 100_000 + "]" * 100_000 + "\n",
        "truncated-transcript": good_head + '{"run_id": "r", "event_na',
        "garbage-text": "hello, this is no transcript\n",
        "json-but-not-a-transcript": '{"hello": "world"}',
        "array": "[1, 2, 3]",
        "empty": "",
        "runs-of-the-wrong-shape": good_head + '"not a run", 7]}',
        "journal-entry-of-the-wrong-shape": '{"type": "session"}\n{"type": "step", "run_id": []}\n'
        '{"type": "run_started", "run": []}\n',
    }
    paths = {}
    for name, text in files.items():
        paths[name] = root / f"{name}.json"
        paths[name].write_text(text, encoding="utf-8")
    paths["binary"] = root / "binary.json"
    paths["binary"].write_bytes(b"\x00\xff\xfe garbage \x1b[2J")
    return paths


def test_hostile_transcripts_are_one_line_errors_for_export_and_open(tmp_path: Path) -> None:
    """`export` and `open` of each: exit 2, one line naming the file, no traceback (`open` says
    so before drawing anything, so it needs no terminal)."""
    for name, path in _hostile_transcripts(tmp_path).items():
        for command in ("export", "open"):
            proc = cfn_debug(command, str(path), cwd=tmp_path)
            try:
                one_line_naming(proc, path)
            except AssertionError as failed:
                raise AssertionError(f"{command} {name}: {failed}") from None


def test_a_journal_whose_step_nests_past_what_exports_can_walk_is_a_one_line_error(
    tmp_path: Path,
) -> None:
    """A hand-made journal that parses (nested 600 deep, under the JSON reader's limit) but is
    deeper than the exporters' redaction can walk: one line naming the file, in every format."""
    deep = "1"
    for _ in range(600):
        deep = '{"a":' + deep + "}"
    run = {
        "run_id": "r",
        "event_name": "e",
        "action": "CREATE",
        "function_name": "f",
        "endpoint": "x",
        "started_at": "t",
    }
    step = (
        '{"type":"step","run_id":"r","step":{"index":0,"action":"CREATE","function_name":"f",'
        f'"request":{{"m":{deep}}},"result":{{"kind":"progress","duration_s":0.1,'
        f'"progress":{{"status":"SUCCESS","resourceModel":{deep}}}}},"started_at":"t",'
        '"limit_s":60}}'
    )
    path = tmp_path / "deep.jsonl"
    head = ['{"type":"session"}', json.dumps({"type": "run_started", "run": run})]
    path.write_text("\n".join([*head, step]) + "\n", encoding="utf-8")
    for fmt in ("json", "md", "html", "junit"):
        # --reveal-write-only: no "no schema" warning beside the error line
        proc = cfn_debug("export", str(path), "--format", fmt, "--reveal-write-only", cwd=tmp_path)
        if proc.returncode != 0:  # the text formats leave the models out, and may succeed
            one_line_naming(proc, path)
    proc = cfn_debug("export", str(path), "--reveal-write-only", cwd=tmp_path)
    one_line_naming(proc, path)


def test_an_input_file_over_64_mb_is_refused_before_reading(tmp_path: Path) -> None:
    """A 100 GB sparse file named as an event, a schema or a template: refused from its size
    (reading it would take minutes and all memory), one line naming the file."""
    huge = tmp_path / "huge.json"
    with huge.open("wb") as file:
        file.truncate(100 * 1024**3)
    for load in (load_event, load_schema):
        with pytest.raises(CfnDebugError, match="at most 64 MB") as caught:
            load(huge)
        assert caught.value.path == str(huge)
    line = one_line_naming(cfn_debug("run", str(huge), "--no-journal", cwd=tmp_path), huge)
    assert "at most 64 MB" in line
    project = tmp_path / "project"
    project.mkdir()
    with (project / "template.yml").open("wb") as file:
        file.truncate(100 * 1024**3)
    from cfn_debug.endpoint.template import load_functions

    with pytest.raises(CfnDebugError, match="at most 64 MB"):
        load_functions(project)
