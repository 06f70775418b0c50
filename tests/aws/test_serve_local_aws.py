"""`cfn-debug serve` with --local-aws, --aws-endpoint-url, --env-vars and --export: the real
CLI process serving a fixture type whose handler calls DynamoDB."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.ports import free_port as _free_port

from .conftest import REPO, TABLE_NOTE, clean_env, client

INVOKE = "/2015-03-31/functions/TestEntrypoint/invocations"


def serve(*args: str) -> tuple[subprocess.Popen[str], list[str]]:
    port = str(_free_port())
    process = subprocess.Popen(
        [sys.executable, "-m", "cfn_debug.cli", "serve", str(TABLE_NOTE), "--port", port, *args],
        cwd=REPO,
        env=clean_env(PYTHONUNBUFFERED="1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 120  # a generous bound on start-up, not a timing assertion
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if line.startswith("Invoke:"):
            return process, lines
    process.kill()
    raise AssertionError(f"serve never got ready: {lines}\n{process.stderr.read()}")  # type: ignore[union-attr]


def stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def create(url: str, table: str, title: str) -> dict[str, Any]:
    event = {
        "credentials": {"accessKeyId": "a", "secretAccessKey": "b", "sessionToken": "c"},
        "action": "CREATE",
        "request": {
            "clientRequestToken": f"token-{title}",
            "desiredResourceState": {"TableName": table, "Title": title, "Text": "served"},
            "logicalResourceIdentifier": "Note",
        },
        "callbackContext": None,
    }
    return httpx.post(url + INVOKE, json=event, timeout=60).json()  # type: ignore[no-any-return]


def exports_of(lines: list[str]) -> dict[str, str]:
    at = lines.index("Exports for {{NAME}} placeholders:")
    pairs = [line.strip().split(" = ", 1) for line in lines[at + 1 :] if line.startswith("  ")]
    return {name: value for name, value in pairs if not name.startswith(("TypeFunction", "Test"))}


def served_url(lines: list[str]) -> str:
    line = next(line for line in lines if line.startswith("Serving "))
    return line.split(" at ", 1)[1].split()[0]


@pytest.mark.slow
def test_serve_local_aws_deploys_the_setup_stack_and_points_the_workers_at_it() -> None:
    process, lines = serve("--local-aws", "--export", "Extra=by-hand")
    try:
        aws_line = next(line for line in lines if line.startswith("AWS: "))
        assert aws_line.startswith("AWS: local (moto at http://127.0.0.1:")
        assert any("NotesTable (AWS::DynamoDB::Table) created" in line for line in lines)
        exports = exports_of(lines)
        assert exports["Extra"] == "by-hand"
        table = exports["CfnDebugFixtureNotesTable"]
        answer = create(served_url(lines), table, "served-note")
        assert answer["status"] == "SUCCESS", answer
    finally:
        stop(process)
    assert process.returncode == 0


@pytest.mark.slow
def test_serve_takes_an_endpoint_url_or_an_env_vars_file(
    user_moto: dict[str, Any], tmp_path: Path
) -> None:
    url = user_moto["url"]
    table = user_moto["exports"]["CfnDebugFixtureNotesTable"]
    env_file = tmp_path / "env.json"
    env_file.write_text(json.dumps({"Parameters": {"AWS_ENDPOINT_URL": url}}))
    for number, options in enumerate(
        [("--aws-endpoint-url", url), ("--env-vars", str(env_file))], start=1
    ):
        process, lines = serve(*options)
        try:
            assert f"AWS: the endpoint {url} ({options[0]}" in "\n".join(lines)
            answer = create(served_url(lines), table, f"serve-{number}")
            assert answer["status"] == "SUCCESS", answer
        finally:
            stop(process)
    titles = sorted(
        item["pk"]["S"] for item in client("dynamodb", url).scan(TableName=table)["Items"]
    )
    assert titles == ["note#serve-1", "note#serve-2"]
