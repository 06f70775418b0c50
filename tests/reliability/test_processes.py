"""Processes: nothing a handler started outlives `serve` or `run` (kill -9 included) or its own
worker; a handler that closes or redirects its stdout/stderr is not a crash and keeps its warm
worker; MemorySize counts the handler's child processes.

Each test tries it with the spawner fixture project: its handler starts a process in the worker's
group, one in a session of its own, and an orphaned setsid grandchild (what a daemonising tool
does), and reports their pids."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cfn_debug.endpoint.server import EmbeddedEndpoint
from reliability.support import (
    REPO,
    alive,
    child_env,
    free_port,
    stop,
    wait_for,
    write_json,
)

pytestmark = pytest.mark.timeout(120)

SPAWNER = Path(__file__).parent / "projects" / "spawner"
#: The promise is "gone within 2 s"; the tests allow more, for a loaded CI machine.
GONE_WITHIN_S = 10.0


def _invoke(url: str, function: str, body: dict) -> httpx.Response:
    return httpx.post(f"{url}/2015-03-31/functions/{function}/invocations", json=body, timeout=30)


def _all_gone(pids: list[int]) -> bool:
    return not any(alive(pid) for pid in pids)


def _kill_leftovers(pids: list[int]) -> None:
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def endpoint() -> Iterator[EmbeddedEndpoint]:
    with EmbeddedEndpoint(SPAWNER) as served:
        yield served


def test_kill_9_of_serve_takes_every_process_the_handler_started(tmp_path: Path) -> None:
    """SIGKILL `cfn-debug serve` after a handler started a child in its group, a setsid child
    and an orphaned setsid grandchild: the worker and all three are gone."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cfn_debug.cli", "serve", str(SPAWNER), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=child_env(),
    )
    pids: list[int] = []
    try:
        url = f"http://127.0.0.1:{port}"

        def answered() -> httpx.Response | None:
            try:
                response = _invoke(url, "Spawner", {"Mode": "spawn"})
            except httpx.HTTPError:
                return None
            return response if response.status_code == 200 else None

        response = wait_for(answered, "serve to answer", timeout=30)
        pids = json.loads(response.json()["message"])
        assert len(pids) == 4 and all(alive(pid) for pid in pids)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        wait_for(lambda: _all_gone(pids), "every process of the handler to end", GONE_WITHIN_S)
    finally:
        stop(proc)
        _kill_leftovers(pids)


def test_kill_9_of_run_mid_chain_takes_every_process_the_handler_started(tmp_path: Path) -> None:
    """SIGKILL `cfn-debug run` in the middle of a chain whose first step started processes:
    the worker and everything it started are gone."""
    pid_file = tmp_path / "pids.json"
    event = write_json(tmp_path / "spawn.json", _spawn_event(pid_file))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cfn_debug.cli",
            "run",
            "--project",
            str(SPAWNER),
            "--function-name",
            "Spawner",
            "--no-journal",
            "--max-delay",
            "0",
            "--max-reinvoke",
            "100000",
            str(event),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=child_env(),
        cwd=REPO,
    )
    pids: list[int] = []
    try:

        def started() -> list[int] | None:
            try:
                return json.loads(pid_file.read_text(encoding="ascii")) or None
            except (OSError, ValueError):
                return None

        pids = wait_for(started, "the handler to start its processes", timeout=60)
        assert all(alive(pid) for pid in pids)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        wait_for(lambda: _all_gone(pids), "every process of the handler to end", GONE_WITHIN_S)
    finally:
        stop(proc)
        _kill_leftovers(pids)


def _spawn_event(pid_file: Path) -> dict:
    return {
        "action": "CREATE",
        "request": {
            "clientRequestToken": "token-spawn",
            "desiredResourceState": {
                "Mode": "spawn",
                "PidFile": str(pid_file),
                "Steps": 100_000,
                "Hang": 0.02,
            },
            "logicalResourceIdentifier": "Thing",
        },
        "callbackContext": None,
    }


def _drain(fd: int, sink: bytearray) -> None:
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return
        if not chunk:
            return
        sink.extend(chunk)


@pytest.mark.slow
def test_kill_9_of_the_dashboard_takes_every_process_the_handler_started(tmp_path: Path) -> None:
    """The real dashboard (`cfn-debug ui`, under a pseudo-terminal) runs a chain whose first step
    starts processes ("r" on the selected event); SIGKILL the dashboard: the worker and everything
    it started are gone."""
    project = tmp_path / "project"
    shutil.copytree(SPAWNER, project)
    pid_file = tmp_path / "pids.json"
    write_json(project / "sample_events" / "spawn.json", _spawn_event(pid_file))
    primary, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 140, 0, 0))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cfn_debug.cli",
            "ui",
            str(project),
            "--function-name",
            "Spawner",
            "--max-delay",
            "0",
        ],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env=child_env(TERM="xterm-256color", XDG_STATE_HOME=str(tmp_path / "state")),
        cwd=tmp_path,
        start_new_session=True,
    )
    os.close(secondary)
    screen = bytearray()
    threading.Thread(target=_drain, args=(primary, screen), daemon=True).start()
    pids: list[int] = []
    try:
        wait_for(lambda: b"spawn" in screen, "the dashboard to list the event", timeout=30)
        os.write(primary, b"r")

        def started() -> list[int] | None:
            try:
                return json.loads(pid_file.read_text(encoding="ascii")) or None
            except (OSError, ValueError):
                return None

        pids = wait_for(started, "the handler to start its processes", timeout=60)
        assert all(alive(pid) for pid in pids)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        wait_for(lambda: _all_gone(pids), "every process of the handler to end", GONE_WITHIN_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        os.close(primary)
        _kill_leftovers(pids)


def test_a_timed_out_worker_takes_every_process_it_started(
    endpoint: EmbeddedEndpoint, tmp_path: Path
) -> None:
    """The handler starts processes, then runs past its 2 s Timeout: the answer is Lambda's
    timeout, and the worker and everything it started are gone; the next invoke works."""
    pid_file = tmp_path / "pids.json"
    response = _invoke(
        endpoint.url, "SpawnerShort", {"Mode": "spawn", "Hang": 30, "PidFile": str(pid_file)}
    )
    pids: list[int] = json.loads(pid_file.read_text(encoding="ascii"))
    try:
        assert len(pids) == 4
        assert response.headers.get("X-Amz-Function-Error") == "Unhandled"
        assert "Task timed out after 2.00 seconds" in response.json()["errorMessage"]
        wait_for(lambda: _all_gone(pids), "every process of the handler to end", GONE_WITHIN_S)
    finally:
        _kill_leftovers(pids)
    again = _invoke(endpoint.url, "SpawnerShort", {"Mode": "ok"})
    assert again.json()["status"] == "SUCCESS"


@pytest.mark.parametrize(
    ("mode", "function"), [("close_stdio", "Closer"), ("redirect_stdio", "Redirector")]
)
def test_a_handler_that_closes_or_redirects_its_output_is_not_a_crash(
    endpoint: EmbeddedEndpoint, mode: str, function: str
) -> None:
    """os.close(1)+os.close(2), or dup2 of /dev/null over both: the invocation answers SUCCESS,
    its log keeps what was printed before, and the warm worker is kept (the end of the invocation
    was seen on time: a lost end marker costs a grace period and the worker)."""
    first = _invoke(endpoint.url, function, {"Mode": mode})
    assert "X-Amz-Function-Error" not in first.headers, first.text
    assert first.json()["status"] == "SUCCESS"
    logs = endpoint.logs_for(first.headers["x-amzn-RequestId"])
    assert any(line.startswith(("closing", "redirecting")) for line in logs), logs
    assert not any("this goes nowhere" in line for line in logs)
    second = _invoke(endpoint.url, function, {"Mode": "ok"})
    assert second.json()["status"] == "SUCCESS"
    third = _invoke(endpoint.url, function, {"Mode": mode, "Again": True})
    assert third.json()["message"] == first.json()["message"]  # the same warm worker (pid)


def test_memory_size_counts_the_handlers_child_processes(endpoint: EmbeddedEndpoint) -> None:
    """The handler stays small but its child touches 400 MB under MemorySize 128: Lambda's
    Runtime.OutOfMemory, and the child is gone with the worker."""
    response = _invoke(endpoint.url, "ChildMemory", {})
    children: list[int] = []
    try:
        assert response.headers.get("X-Amz-Function-Error") == "Unhandled"
        assert response.json()["errorType"] == "Runtime.OutOfMemory", response.text
        logs = endpoint.logs_for(response.headers["x-amzn-RequestId"])
        children = [int(line.split()[1]) for line in logs if line.startswith("child ")]
        assert children, logs
        wait_for(lambda: _all_gone(children), "the child to end", GONE_WITHIN_S)
    finally:
        _kill_leftovers(children)


def test_every_idle_worker_killed_at_once_is_replaced_unnoticed(endpoint: EmbeddedEndpoint) -> None:
    """Four warm workers (four invocations at once), all SIGKILLed while idle (an OOM killer's
    sweep): the next invocation passes over every dead one and answers as usual."""
    with httpx.Client(timeout=30) as client:
        url = f"{endpoint.url}/2015-03-31/functions/Spawner/invocations"
        threads = [
            threading.Thread(target=client.post, args=(url,), kwargs={"json": {"Hang": 0.3}})
            for _ in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        pool = endpoint.pool("Spawner")
        assert pool is not None
        idle = [worker.pid for worker in list(pool._idle) if worker.pid is not None]
        assert len(idle) >= 2, idle
        for pid in idle:
            os.kill(pid, signal.SIGKILL)
        wait_for(lambda: _all_gone(idle), "the idle workers to die", GONE_WITHIN_S)
        answer = client.post(url, json={"Mode": "ok"})
    assert "X-Amz-Function-Error" not in answer.headers, answer.text
    assert answer.json()["status"] == "SUCCESS"
