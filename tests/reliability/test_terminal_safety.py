"""Terminal safety outside the dashboard: a handler (HostileText) answers and logs escape
sequences (OSC 52 clipboard, OSC 0 title, CSI clear), C1 controls, NUL, DEL, Rich markup and a lone
surrogate. What must hold, in `run`, `run --logs`, `run --json`, `serve`, every export and every
error that names a file: no control character reaches the output raw (it is shown as ``\\x1b``),
markup is shown literally, and the text is kept, not lost: the journal and the JSON export hold
the handler's exact string, surrogate included."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import httpx
import pytest

from cfn_debug.export.json import load_transcript
from cfn_debug.journal.session import load_journal
from reliability.support import (
    ACCESS_KEY_ID,
    HOSTILE,
    REPO,
    child_env,
    free_port,
    sam_event,
    stop,
    wait_for,
    write_json,
)
from support.cli import run_cli

pytestmark = pytest.mark.timeout(180)

# The handler's string (tests/reliability/projects/hostile/src/hostile_text.py).
HOSTILE_TEXT = (
    "\x1b]52;c;cHduZWQ=\x07\x1b]0;owned\x07\x1b[2J\x9b31m\x00\x7f"
    "[@click=app.quit]click[/] [bold red]loud[/bold red] [/] \udcff end"
)
# Any C0 control but newline, tab and carriage return; DEL; C1 (as UTF-8); a raw 0xff byte.
_RAW_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]|[\xf8-\xff]")


def raw_controls(data: bytes) -> list[bytes]:
    return _RAW_CONTROL.findall(data)


def cfn_debug(*args: str, cwd: Path = REPO, **env: str) -> subprocess.CompletedProcess[bytes]:
    return run_cli(*args, env=child_env(**env), cwd=cwd, timeout=150, text=False)


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("terminal")
    event = write_json(root / "hostile-text.json", sam_event("text", Name="n"))
    journal = root / "text.jsonl"
    target = ["--project", str(HOSTILE), "--function-name", "HostileText"]
    console = cfn_debug("run", str(event), *target, "--logs", "--journal", str(journal))
    as_json = cfn_debug("run", str(event), *target, "--json", "--no-journal")
    return {"root": root, "journal": journal, "console": console, "json": as_json}


def test_run_and_its_logs_show_escapes_and_markup_literally(ran: dict[str, Any]) -> None:
    proc = ran["console"]
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out[-3000:]
    assert b"Traceback" not in out
    assert raw_controls(out) == []
    text = out.decode("utf-8")  # and the output is UTF-8 throughout
    assert "message: \\x1b]52;c;cHduZWQ=\\x07" in text  # the answer's message, escaped
    assert "│ \\x1b]52;c;cHduZWQ=" in text  # the handler's log line, escaped
    assert "[@click=app.quit]click[/] [bold red]loud[/bold red]" in text  # markup, literally
    assert "\\x9b31m" in text and "\\udcff end" in text


def test_the_journal_keeps_the_exact_string_surrogate_included(ran: dict[str, Any]) -> None:
    raw = ran["journal"].read_bytes()
    raw.decode("utf-8")  # a lone surrogate is written as its JSON escape, not as bad UTF-8
    (run,) = load_journal(ran["journal"]).runs
    (step,) = run.steps
    assert step.result.progress["message"] == HOSTILE_TEXT
    assert step.result.progress["callbackContext"] == {"note": HOSTILE_TEXT}


def test_run_json_holds_the_exact_string(ran: dict[str, Any]) -> None:
    proc = ran["json"]
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert raw_controls(proc.stdout + proc.stderr) == []
    document = json.loads(proc.stdout)
    assert document["runs"][0]["steps"][0]["result"]["progress"]["message"] == HOSTILE_TEXT


@pytest.mark.parametrize("fmt", ["json", "md", "html", "junit"])
def test_every_export_keeps_the_text_escaped_and_whole(ran: dict[str, Any], fmt: str) -> None:
    out = Path(ran["root"]) / f"text.{fmt}"
    proc = cfn_debug("export", str(ran["journal"]), "--format", fmt, "-o", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = out.read_bytes()
    data.decode("utf-8")
    assert raw_controls(data) == []
    if fmt == "json":
        (run,) = load_transcript(out).runs
        assert run.steps[0].result.progress["message"] == HOSTILE_TEXT
    elif fmt == "junit":
        ET.fromstring(data)  # still well-formed XML
    else:
        assert "52;c;cHduZWQ=" in data.decode("utf-8")
    stdout = cfn_debug("export", str(ran["journal"]), "--format", fmt)
    assert stdout.returncode == 0 and raw_controls(stdout.stdout + stdout.stderr) == []


def test_an_error_naming_a_hostile_file_name_is_one_escaped_line(tmp_path: Path) -> None:
    """A file name with an escape sequence, markup and an access key id: the error names it
    escaped, literally and redacted, on one line, exit 2."""
    name = f"\x1b]0;owned\x07[@click=app.quit]{ACCESS_KEY_ID}[/]\nsecond.json"
    for args in (["run", name, "--no-journal"], ["export", name], ["open", name]):
        proc = cfn_debug(*args, cwd=tmp_path, XDG_STATE_HOME=str(tmp_path))
        assert proc.returncode == 2, proc.stderr
        err = proc.stderr.decode("utf-8")
        assert len(err.strip().splitlines()) == 1, err
        assert raw_controls(proc.stderr) == [] and ACCESS_KEY_ID not in err
        assert "\\x1b]0;owned\\x07[@click=app.quit]" in err


def test_an_event_file_name_holding_an_access_key_is_redacted_where_printed(
    tmp_path: Path,
) -> None:
    """`run` prints the event's name as it starts: an access key id in it is redacted there, in
    the journal and in --json."""
    event = write_json(tmp_path / f"create-{ACCESS_KEY_ID}.json", sam_event("k", Mode="ok"))
    journal = tmp_path / "k.jsonl"
    target = ["--project", str(HOSTILE), "--function-name", "Hostile"]
    proc = cfn_debug("run", str(event), *target, "--journal", str(journal))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert b"create-" in proc.stdout and ACCESS_KEY_ID.encode() not in proc.stdout + proc.stderr
    assert ACCESS_KEY_ID.encode() not in journal.read_bytes()


def test_serve_prints_handler_log_lines_escaped(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cfn_debug.cli", "serve", str(HOSTILE), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(XDG_STATE_HOME=str(tmp_path)),
    )
    url = f"http://127.0.0.1:{port}/2015-03-31/functions/HostileText/invocations"
    payload = {"action": "CREATE", "bearerToken": "t", "requestData": {"resourceProperties": {}}}
    try:

        def answered() -> httpx.Response | None:
            try:
                return httpx.post(url, json=payload, timeout=20)
            except httpx.HTTPError:
                return None

        assert wait_for(answered, "serve to answer", timeout=30).status_code == 200
    finally:
        stop(proc)
    out, err = proc.communicate(timeout=10)
    assert b"second line \\x1b[31mred" in out  # the handler's lines were printed, escaped
    assert raw_controls(out + err) == []
