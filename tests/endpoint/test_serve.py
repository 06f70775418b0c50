"""`cfn-debug serve` as a user runs it: a real process, real HTTP, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from cfn_debug.endpoint.command import DEMO_DIR, is_loopback, project_to_serve
from support.ports import free_port

from .conftest import BASIC, invoke_path

REPO = Path(__file__).resolve().parents[2]


def _serve(*args: str, cwd: Path | None = None) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "cfn_debug.cli", "serve", *args],
        cwd=cwd or REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _read_until(process: subprocess.Popen[str], predicate, limit_s: float = 20) -> list[str]:
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if predicate(lines[-1]):
            return lines
    raise AssertionError(f"never saw the expected line; got {lines!r}")


def test_serve_prints_the_url_and_sam_style_logs_and_stops_on_ctrl_c():
    port = free_port()
    process = _serve(str(BASIC), "--port", str(port))
    try:
        banner = _read_until(process, lambda line: line.startswith("Invoke:"))
        assert f"at http://127.0.0.1:{port} " in banner[0]
        assert banner[1].startswith(f"Listening on 127.0.0.1:{port}: reachable from this machine")
        assert any(line.strip().startswith("Echo  handlers.echo") for line in banner)
        assert any(line.strip().startswith("TestEntrypoint  ") for line in banner)
        response = httpx.post(
            f"http://127.0.0.1:{port}{invoke_path('Echo')}", json={"tag": "served"}
        )
        assert response.json() == {"tag": "served"}
        request_id = response.headers["x-amzn-requestid"]
        logs = _read_until(process, lambda line: line.startswith("REPORT RequestId:"))
        assert logs[-4:-1] == [
            f"START RequestId: {request_id} Version: $LATEST",
            "echo served",
            f"END RequestId: {request_id}",
        ]
        assert "\tDuration: " in logs[-1] and "Memory Size: 128 MB" in logs[-1]
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=15)
        assert process.returncode == 0, err
        assert "Stopping." in out
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0


def test_serve_on_a_taken_port_is_one_line_and_exit_2():
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        process = _serve(str(BASIC), "--port", str(port))
        _out, err = process.communicate(timeout=30)
    assert process.returncode == 2
    assert err.strip().splitlines() == [
        f"cfn-debug: error: port {port} is in use on 127.0.0.1 "
        "(stop whatever holds it, or choose another with --port)"
    ]


def test_serve_with_a_bad_env_vars_file_names_the_file(tmp_path):
    env_file = tmp_path / "env.json"
    env_file.write_text(json.dumps({"Echo": "not an object"}), encoding="utf-8")
    process = _serve(str(BASIC), "--port", str(free_port()), "--env-vars", str(env_file))
    _out, err = process.communicate(timeout=30)
    assert process.returncode == 2
    assert err.startswith(f"cfn-debug: error: {env_file}: expected an object")


def test_serve_without_a_project_serves_the_bundled_demo(tmp_path):
    assert project_to_serve(None, cwd=tmp_path) == DEMO_DIR
    (tmp_path / "template.yml").write_text("Resources: {}\n", encoding="utf-8")
    assert project_to_serve(None, cwd=tmp_path) == tmp_path
    assert project_to_serve(str(BASIC), cwd=tmp_path) == BASIC

    empty = tmp_path / "empty"
    empty.mkdir()
    process = _serve("--port", str(free_port()), cwd=empty)
    try:
        banner = _read_until(process, lambda line: line.startswith("Invoke:"))
        assert "the bundled demo" in banner[0]
        names = {line.split()[0] for line in banner[1:-1]}
        assert {"TypeFunction", "TestEntrypoint"} <= names
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=15)


def test_only_loopback_hosts_count_as_private():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert is_loopback("127.0.0.2")
    assert not is_loopback("0.0.0.0")
    assert not is_loopback("192.168.1.10")
    assert not is_loopback("example.com")


def test_the_answer_does_not_wait_for_the_log_lines_and_none_is_lost() -> None:
    """`serve`'s log lines of an invocation (START, the handler's, END, REPORT) are printed once
    its answer is sent, in one batch: a log consumer that is slow (here: blocked until the answer
    has arrived) never holds up the answer, and every line still comes, in order."""
    import threading

    from cfn_debug.endpoint.server import EmbeddedEndpoint

    answered = threading.Event()
    batches: list[list[str]] = []

    def slow_batch(lines: list[str]) -> None:
        assert answered.wait(30), "the answer never came while the log consumer waited"
        batches.append(lines)

    with EmbeddedEndpoint(BASIC, on_logs=slow_batch) as endpoint:
        response = httpx.post(
            endpoint.url + invoke_path("Echo"), json={"tag": "deferred"}, timeout=10
        )
        answered.set()
        assert response.status_code == 200 and response.json() == {"tag": "deferred"}
        rid = response.headers["x-amzn-RequestId"]
        deadline = time.monotonic() + 10
        while not batches and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.1)  # nothing more may come
    assert len(batches) == 1
    lines = batches[0]
    assert lines[0] == f"START RequestId: {rid} Version: $LATEST"
    assert lines[1] == "echo deferred"
    assert lines[2] == f"END RequestId: {rid}"
    assert lines[3].startswith(f"REPORT RequestId: {rid}\tDuration: ")
    assert len(lines) == 4
