"""The journal under hostile conditions: a disk that fills up, a journal that cannot be written,
an existing journal others could read, two processes appending at once, and a bug in cfn-debug's
own checks. What must hold: a one-line error and a clean stop (exit 2), every step already run
kept and loadable, the file owner-only, no completed step lost, and a step whose checks failed
journaled with the failure as a finding of cfn-debug (never a MUST on the handler)."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from cfn_debug.chain import INTERNAL_ERROR_RULE
from cfn_debug.errors import CfnDebugError
from cfn_debug.journal.session import Journal, load_journal
from cfn_debug.records import EndReason, Level
from cfn_debug.workspace import Workspace
from reliability.support import HOSTILE, REPO, child_env, event_spec, sam_event, write_json
from support.cli import run_cli

pytestmark = pytest.mark.timeout(180)

TARGET = ["--project", str(HOSTILE), "--max-delay", "0"]


def cfn_debug(
    *args: str, limit_bytes: int | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    def limit() -> None:  # in the child: files it writes may not grow past limit_bytes
        if limit_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    return run_cli(*args, env=child_env(**env), cwd=REPO, timeout=150, preexec_fn=limit)


def test_an_existing_journal_opened_for_appending_is_made_owner_only(tmp_path: Path) -> None:
    journal = tmp_path / "shared.jsonl"
    journal.write_text('{"type": "session"}\n', encoding="utf-8")
    journal.chmod(0o644)
    event = write_json(tmp_path / "ok.json", sam_event("ok", Mode="ok"))
    proc = cfn_debug(
        "run", str(event), *TARGET, "--function-name", "Hostile", "--journal", str(journal)
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert journal.stat().st_mode & 0o777 == 0o600
    assert len(load_journal(journal).runs) == 1


def test_a_full_disk_stops_the_chain_cleanly_and_keeps_every_step_run(tmp_path: Path) -> None:
    """The journal may not grow past 40 KB (RLIMIT_FSIZE: the write fails as on a full disk)
    while a 200-step chain with ~2 KB step lines runs: one line naming the journal, exit 2, and
    the journal loads with every step written before, no torn line."""
    journal = tmp_path / "full.jsonl"
    event = write_json(
        tmp_path / "long.json", sam_event("long", Name="n" * 600, Steps=200, SleepMs=0)
    )
    proc = cfn_debug(
        "run",
        str(event),
        *TARGET,
        "--function-name",
        "LongChain",
        "--journal",
        str(journal),
        limit_bytes=40_000,
        XDG_STATE_HOME=str(tmp_path / "state"),
    )
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and str(journal) in errors[0] and "cannot write" in errors[0]
    assert "internal error" not in errors[0]
    loaded = load_journal(journal)
    assert loaded.problems == []
    (run,) = loaded.runs
    assert 3 <= len(run.steps) < 200
    assert [step.index for step in run.steps] == list(range(len(run.steps)))
    assert journal.read_bytes().endswith(b"\n")


@pytest.mark.parametrize("where", ["under-a-file", "a-directory", "dev-full"])
def test_an_unwritable_journal_is_a_one_line_error(where: str, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    journal = {
        "under-a-file": blocker / "j.jsonl",
        "a-directory": tmp_path,
        "dev-full": Path("/dev/full"),
    }[where]
    event = write_json(tmp_path / "ok.json", sam_event("ok", Mode="ok"))
    proc = cfn_debug(
        "run", str(event), *TARGET, "--function-name", "Hostile", "--journal", str(journal)
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and str(journal) in lines[0] and "internal error" not in lines[0]


_APPENDER = """
import sys
from pathlib import Path
from cfn_debug.journal.session import Journal
path, name = Path(sys.argv[1]), sys.argv[2]
blob = "b" * 400_000
with Journal(path) as journal:
    journal.write({"type": "run_started", "run": {"run_id": name, "event_name": name,
        "action": "CREATE", "function_name": "f", "endpoint": "e", "started_at": "t"}})
for index in range(60):
    with Journal(path) as journal:  # every line from a fresh open, as a new `run` would
        journal.write({"type": "step", "run_id": name, "step": {"index": index, "action": "CREATE",
            "function_name": "f", "request": {"blob": blob}, "result": {"kind": "progress",
            "duration_s": 0.0}, "started_at": "t", "limit_s": 1.0}})
"""


def test_two_processes_appending_to_one_journal_lose_no_completed_step(tmp_path: Path) -> None:
    """Two writers append 60 lines of 400 KB each to one journal, opening it for every line
    (opening cuts a torn last line): neither may cut the other's line in progress."""
    journal = tmp_path / "both.jsonl"
    procs = [
        subprocess.Popen([sys.executable, "-c", _APPENDER, str(journal), name], env=child_env())
        for name in ("first", "second", "third")
    ]
    assert [proc.wait(timeout=120) for proc in procs] == [0, 0, 0]
    loaded = load_journal(journal)
    assert loaded.problems == []
    counts = {run.run_id: len(run.steps) for run in loaded.runs}
    assert counts == {"first": 60, "second": 60, "third": 60}
    for line in journal.read_bytes().splitlines():
        json.loads(line)


async def test_a_bug_in_the_checks_keeps_the_step_and_blames_cfn_debug(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The step checks raise (a bug injected into the real engine) while a real handler runs:
    the step is still journaled, with a SHOULD finding of cfn-debug naming a crash report, no
    MUST; the run ends terminal."""
    import cfn_debug.contract as contract

    def broken(_context: object) -> list[object]:
        raise TypeError("a bug in a check")

    monkeypatch.setattr(contract, "check_step", broken)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    workspace = Workspace.open(HOSTILE)
    journal = Journal(tmp_path / "j.jsonl")
    try:
        from cfn_debug.chain import ChainOptions

        async for chain_event in workspace.run(
            event_spec("bug", Mode="ok"),
            ChainOptions(max_reinvoke=2, max_delay_s=0, read_back=False),
        ):
            journal.record(chain_event)
    finally:
        journal.close()
        workspace.close()
    (run,) = load_journal(tmp_path / "j.jsonl").runs
    assert run.end_reason is EndReason.TERMINAL and run.final_status == "SUCCESS"
    (step,) = run.steps
    (finding,) = [f for f in step.findings if f.rule_id == INTERNAL_ERROR_RULE]
    assert finding.level is Level.SHOULD and "a bug in a check" in finding.message
    assert run.must_failures == []
    assert list((tmp_path / "state" / "cfn-debug" / "crashes").iterdir())


_BUGGY_RUN = """
import sys
import cfn_debug.contract as contract
def broken(_context):
    raise TypeError("a bug in a check")
contract.check_step = broken
from cfn_debug import cli
sys.exit(cli.main(sys.argv[1:]))
"""


def test_run_exits_2_not_1_when_its_checks_fail(tmp_path: Path) -> None:
    event = write_json(tmp_path / "ok.json", sam_event("ok", Mode="ok"))
    journal = tmp_path / "j.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _BUGGY_RUN,
            "run",
            str(event),
            *TARGET,
            "--function-name",
            "Hostile",
            "--no-read-back",
            "--journal",
            str(journal),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env=child_env(XDG_STATE_HOME=str(tmp_path / "state")),
    )
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert INTERNAL_ERROR_RULE in proc.stdout and "Traceback" not in proc.stderr
    assert "0 SHOULD finding(s), 1 step(s) cfn-debug failed to check" in proc.stdout
    assert len(load_journal(journal).runs[0].steps) == 1


def test_a_journal_from_a_newer_format_is_refused_not_misread(tmp_path: Path) -> None:
    """A journal whose header says a format this version does not know (a newer writer may
    refer to data this reader would drop) is a one-line error, not a silently partial session."""
    path = tmp_path / "newer.jsonl"
    path.write_text('{"type": "session", "format": 99}\n', encoding="utf-8")
    with pytest.raises(CfnDebugError, match="format 99"):
        load_journal(path)
    older = tmp_path / "older.jsonl"
    older.write_text('{"type": "session", "format": 1}\n', encoding="utf-8")
    assert load_journal(older).runs == []
