"""Secrets: every path that writes (journal, each export format, console output of `run` and
`run --json`, `serve`'s log printing, the dashboard's screenshot) runs an event carrying
recognisable credentials and a writeOnly value, through a handler that logs its whole event and
each credential alone. Every byte written is scanned: no credential anywhere; the writeOnly value
only where --reveal-write-only was given (and in the private journal it is exported from)."""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from reliability.support import (
    HOSTILE,
    REPO,
    SECRETS,
    WRITE_ONLY_VALUE,
    child_env,
    free_port,
    sam_event,
    stop,
    wait_for,
    write_json,
)
from support.cli import run_cli

pytestmark = pytest.mark.timeout(180)

FORMATS = ("json", "md", "html", "junit")
SCHEMA = HOSTILE / "Hostile-Reliability-Thing.json"


def leaked(data: bytes | str) -> list[str]:
    """The credentials found in ``data`` (also as JSON- or HTML-escaped text)."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    text = text.replace("\\/", "/").replace("&#x2F;", "/").replace("&#47;", "/")
    return [secret for secret in SECRETS if secret in text]


def cfn_debug(*args: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    return run_cli(*args, env=child_env(**env), cwd=REPO, timeout=120, text=False)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run the secret-laden event headless (console with --logs, and --json) into a journal."""
    root = tmp_path_factory.mktemp("secrets")
    event = write_json(
        root / "secret-event.json",
        sam_event("secret", Name="visible-name", Password=WRITE_ONLY_VALUE),
    )
    journal = root / "journal.jsonl"
    target = ("--project", str(HOSTILE), "--function-name", "LogEvent")
    console = cfn_debug("run", str(event), *target, "--journal", str(journal), "--logs")
    as_json = cfn_debug("run", str(event), *target, "--json")
    assert console.returncode in (0, 1), console.stderr.decode()
    assert as_json.returncode in (0, 1), as_json.stderr.decode()
    return {"root": root, "journal": journal, "console": console, "json": as_json}


def test_the_handler_really_logged_the_credentials(written: dict[str, Any]) -> None:
    """Guard: the run reached the handler, which logged its event (else the scans prove
    nothing): the console shows its lines, with the credentials redacted."""
    out = written["console"].stdout.decode()
    # Only the handler's own line: the request echo shows REDACTED whether or not it logged.
    assert "using ***REDACTED***" in out, out[-3000:]
    assert "visible-name" in out


def test_the_journal_holds_no_credential_and_is_private(written: dict[str, Any]) -> None:
    """The journal: no credential in any byte; the file is readable by its owner only (it keeps
    writeOnly values: exports are made from it)."""
    journal: Path = written["journal"]
    assert leaked(journal.read_bytes()) == []
    assert stat.S_IMODE(journal.stat().st_mode) & 0o077 == 0, oct(journal.stat().st_mode)


def test_run_console_output_has_no_credential(written: dict[str, Any]) -> None:
    """`cfn-debug run --logs` output (stdout and stderr): no credential."""
    proc = written["console"]
    assert leaked(proc.stdout + proc.stderr) == []


def test_run_json_output_has_no_credential(written: dict[str, Any]) -> None:
    """`cfn-debug run --json` output (stdout and stderr): no credential."""
    proc = written["json"]
    assert leaked(proc.stdout + proc.stderr) == []


@pytest.mark.parametrize("which", ["console", "json"])
def test_run_output_shows_no_write_only_value(written: dict[str, Any], which: str) -> None:
    """`cfn-debug run` output shows no writeOnly value: it was not asked to reveal them."""
    proc = written[which]
    assert WRITE_ONLY_VALUE not in (proc.stdout + proc.stderr).decode()


def test_run_that_reveals_write_only_still_prints_no_credential(written: dict[str, Any]):
    """`cfn-debug run --json --reveal-write-only`: the writeOnly value is shown (the user asked),
    the credentials are not."""
    event = written["root"] / "secret-event.json"
    proc = cfn_debug(
        "run",
        str(event),
        "--project",
        str(HOSTILE),
        "--function-name",
        "LogEvent",
        "--json",
        "--no-journal",
        "--reveal-write-only",
    )
    assert proc.returncode in (0, 1), proc.stderr.decode()
    assert WRITE_ONLY_VALUE in proc.stdout.decode()
    assert leaked(proc.stdout + proc.stderr) == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_exports_hold_no_credential_and_mask_write_only(written: dict[str, Any], fmt: str):
    """`cfn-debug export --format F --schema S`: no credential, no writeOnly value, in the file
    and on the console."""
    out = written["root"] / f"masked.{fmt}"
    proc = cfn_debug(
        "export", str(written["journal"]), "--format", fmt, "--schema", str(SCHEMA), "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr.decode()
    data = out.read_bytes() + proc.stdout + proc.stderr
    assert leaked(data) == []
    assert WRITE_ONLY_VALUE not in data.decode("utf-8", errors="replace")


@pytest.mark.parametrize("fmt", FORMATS)
def test_exports_that_reveal_write_only_still_hold_no_credential(written: dict[str, Any], fmt: str):
    """`export --reveal-write-only`: the writeOnly value is there (the user asked), credentials
    are not."""
    out = written["root"] / f"revealed.{fmt}"
    proc = cfn_debug(
        "export",
        str(written["journal"]),
        "--format",
        fmt,
        "--schema",
        str(SCHEMA),
        "--reveal-write-only",
        "-o",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr.decode()
    data = out.read_bytes() + proc.stdout + proc.stderr
    assert leaked(data) == []
    if fmt in ("json", "html", "md"):
        assert WRITE_ONLY_VALUE in data.decode("utf-8", errors="replace")


def test_serve_log_printing_has_no_credential(tmp_path: Path) -> None:
    """`cfn-debug serve` prints each invocation's log lines (SAM style): a handler that logs its
    event, credentials and all, and each credential alone, prints none of them."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cfn_debug.cli", "serve", str(HOSTILE), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(),
    )
    url = f"http://127.0.0.1:{port}/2015-03-31/functions/LogEvent/invocations"
    payload = {
        "action": "CREATE",
        "bearerToken": "token",
        "requestData": {
            "callerCredentials": dict(
                zip(("accessKeyId", "secretAccessKey", "sessionToken"), SECRETS, strict=True)
            ),
            "resourceProperties": {"Name": "served", "Password": WRITE_ONLY_VALUE},
        },
    }
    try:

        def answered() -> httpx.Response | None:
            try:
                return httpx.post(url, json=payload, timeout=20)
            except httpx.HTTPError:
                return None

        response = wait_for(answered, "serve to answer", timeout=30)
        assert response.status_code == 200
    finally:
        stop(proc)
    out, err = proc.communicate(timeout=10)
    assert b"using" in out  # the handler's lines were printed
    assert leaked(out + err) == []


async def test_the_dashboard_screenshot_has_no_credential(tmp_path: Path) -> None:
    """The dashboard's screenshot export (SVG), taken on the Request and the Logs tabs after the
    secret-laden event ran: no credential."""
    from cfn_debug.app.app import CfnDebugApp
    from cfn_debug.app.config import AppConfig

    project = tmp_path / "project"
    shutil.copytree(HOSTILE, project)
    write_json(
        project / "sample_events" / "secret.json",
        sam_event("secret", Name="visible-name", Password=WRITE_ONLY_VALUE),
    )
    app = CfnDebugApp(
        AppConfig(project_dir=project, function_name="LogEvent", max_delay=0.0, deterministic=True)
    )
    app.animation_level = "none"
    shots: list[str] = []
    async with app.run_test(size=(140, 45)) as pilot:
        for _ in range(600):
            if app.main.listed_events or app.workspace_error is not None:
                break
            await pilot.pause(0.05)
        assert app.workspace_error is None, app.workspace_error
        app.run_event(0)
        for _ in range(600):
            if app.main.view.ended and not app.main.running:
                break
            await pilot.pause(0.05)
        for tab in ("request", "logs", "response"):
            app.action_show_tab(tab)
            await pilot.pause(0.2)
            shots.append(app.export_screenshot(title="cfn-debug"))
    assert any("visible-name" in shot or "REDACTED" in shot for shot in shots)
    for shot in shots:
        assert leaked(shot) == []


def test_no_file_written_anywhere_holds_a_credential(written: dict[str, Any]) -> None:
    """Every file under the session's directory (journal, exports, event) except the event file
    the user wrote: no credential."""
    for path in written["root"].rglob("*"):
        if path.is_file() and path.name != "secret-event.json":
            assert leaked(path.read_bytes()) == [], path


def test_the_state_directory_holds_no_credential(tmp_path: Path) -> None:
    """A run with the default journal location: the state directory ($XDG_STATE_HOME, and HOME)
    has no file holding a credential afterwards (nothing is cached there in clear)."""
    event = write_json(tmp_path / "e.json", sam_event("s", Name="n", Password=WRITE_ONLY_VALUE))
    state = tmp_path / "state"
    proc = cfn_debug(
        "run",
        str(event),
        "--project",
        str(HOSTILE),
        "--function-name",
        "LogEvent",
        XDG_STATE_HOME=str(state),
        HOME=str(tmp_path / "home"),
    )
    assert proc.returncode in (0, 1), proc.stderr.decode()
    scanned = [p for p in [*state.rglob("*"), *(tmp_path / "home").rglob("*")] if p.is_file()]
    assert scanned, "the run wrote no journal there: the scan would prove nothing"
    for path in scanned:
        assert leaked(path.read_bytes()) == [], path
