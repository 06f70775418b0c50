"""`run --endpoint` to a local endpoint: cfn-debug's own `serve` gives each invocation's logs and
AWS calls, as the embedded endpoint does; an endpoint that cannot (the emulator) is said to once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cfn_debug.endpoint.server import DETAILS_PATH
from cfn_debug.invoke.local import NO_DETAILS_NOTE
from support.cli import run_cli
from support.ports import free_port
from support.rie import find_rie_binary, start_rie

from .conftest import BUCKET, PROJECT, TABLE, write_event

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def cfn_debug(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env={**os.environ, "NO_COLOR": "1", **(env or {})}, timeout=180, cwd=REPO)


@pytest.fixture(scope="module")
def served(moto_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """`cfn-debug serve` of the fixture project, its boto3 pointed at moto with --env-vars: its
    URL and the file its output goes to."""
    env_file = tmp_path_factory.mktemp("serve") / "env.json"
    env_file.write_text(json.dumps({"Parameters": {"AWS_ENDPOINT_URL": moto_url}}))
    port = free_port()
    output = (env_file.parent / "serve.log").open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cfn_debug.cli",
            "serve",
            str(PROJECT),
            "--port",
            str(port),
            "--env-vars",
            str(env_file),
        ],
        cwd=REPO,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=output,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.get(url + DETAILS_PATH + "none", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url, Path(output.name)
    finally:
        process.terminate()
        process.communicate(timeout=15)
        output.close()


def _steps(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The events' own steps (not the READ cfn-debug sends after a SUCCESS: origin read-back)."""
    return [step for run in document["runs"] for step in run["steps"] if not step.get("origin")]


def test_run_against_serve_shows_each_steps_logs_and_aws_calls(served: str, tmp_path: Path) -> None:
    good = write_event(tmp_path, "create", "CREATE", {"Name": "s1", "TableName": TABLE})
    model = {"Name": "s2", "TableName": TABLE, "BucketName": "no-such-bucket"}
    bad = write_event(tmp_path, "create-bad", "CREATE", model)
    done = cfn_debug(
        "run",
        str(good),
        str(bad),
        "--endpoint",
        served[0],
        "--project",
        str(PROJECT),
        "--json",
        "--no-journal",
    )
    assert done.returncode == 1, done.stderr
    first, second = _steps(json.loads(done.stdout))
    assert any("creating record s1" in line for line in first["result"]["logs"])
    assert [(c["service"], c["operation"], c["http_status"]) for c in first["aws_calls"]] == [
        ("dynamodb", "PutItem", 200)
    ]
    put_object = second["aws_calls"][-1]
    assert (put_object["operation"], put_object["error_code"], put_object["raised"]) == (
        "PutObject",
        "NoSuchBucket",
        True,
    )
    assert any("s3 PutObject failed: NoSuchBucket" in f["message"] for f in second["findings"])
    assert any("Traceback" in line for line in second["result"]["logs"])
    # serve's own output lists the calls beside the handler's lines
    serve_log = served[1].read_text()
    assert "[aws] s3 PutObject failed: NoSuchBucket" in serve_log


def test_the_journal_of_a_real_run_exports_its_calls_in_every_format(
    served: tuple[str, Path], tmp_path: Path
) -> None:
    secret = "a-write-only-secret-for-export"
    model = {"Name": "e1", "TableName": TABLE, "Secret": secret}
    event = write_event(tmp_path, "create-export", "CREATE", model)
    journal = tmp_path / "session.jsonl"
    done = cfn_debug(
        "run",
        str(event),
        "--endpoint",
        served[0],
        "--project",
        str(PROJECT),
        "--no-read-back",  # the fixture's read needs more than the identifier
        "--journal",
        str(journal),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    schema = PROJECT / "cfndebug-fixture-record.json"
    for fmt in ("json", "md", "html", "junit"):
        exported = cfn_debug("export", str(journal), "--format", fmt, "--schema", str(schema))
        assert exported.returncode == 0, exported.stderr
        text = exported.stdout
        assert "PutItem" in text and "CreateSecret" in text, fmt
        assert secret not in text, fmt


def test_the_console_of_run_against_serve_lists_the_calls(
    served: tuple[str, Path], tmp_path: Path
) -> None:
    event = write_event(tmp_path, "create", "CREATE", {"Name": "s3", "TableName": BUCKET})
    done = cfn_debug("run", str(event), "--endpoint", served[0], "--project", str(PROJECT))
    assert done.returncode == 1, done.stderr
    assert "AWS calls (1):" in done.stdout
    assert "dynamodb PutItem  400" in done.stdout and "◀ raised" in done.stdout


@pytest.mark.skipif(find_rie_binary() is None, reason="no Runtime Interface Emulator binary")
def test_an_endpoint_without_logs_is_said_so_once(tmp_path: Path) -> None:
    demo_src = REPO / "tui" / "cfn_debug" / "demo" / "src"
    handler = "cfndebug_demo_widget.handlers.test_entrypoint"
    with start_rie(demo_src, handler, env={"CFN_DEBUG_DEMO_STATE": str(tmp_path)}) as url:
        done = cfn_debug(
            "run",
            str(REPO / "sample_events" / "create.json"),
            str(REPO / "sample_events" / "read.json"),
            "--endpoint",
            url,
            "--function-name",
            "function",
            "--json",
            "--max-delay",
            "0",
            "--no-journal",
        )
    assert done.returncode == 0, done.stderr
    steps = _steps(json.loads(done.stdout))
    assert len(steps) >= 3  # the demo's create stabilizes over several steps
    note = NO_DETAILS_NOTE.format(url=url)
    assert steps[0]["result"]["logs"] == [note]
    assert all(note not in step["result"]["logs"] for step in steps[1:])
    assert all(step["aws_calls"] == [] for step in steps)
