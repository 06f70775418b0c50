"""The embedded endpoint: loopback by default (and a warning when told otherwise), concurrent
chains kept apart, a worker that exits at import, a worker that leaks past its MemorySize."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from cfn_debug.chain import ChainOptions
from cfn_debug.records import EndReason, OutcomeKind
from cfn_debug.workspace import Workspace
from reliability.support import (
    HOSTILE,
    alive,
    event_spec,
    free_port,
    run_events,
    stop,
    wait_for,
)

pytestmark = pytest.mark.timeout(120)


def _listening_addresses(port: int) -> set[str]:
    """The local addresses listening on ``port``, from /proc/net/tcp and tcp6 (hex, as Linux
    writes them: 0100007F is 127.0.0.1, 00000000 is 0.0.0.0)."""
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text(encoding="ascii").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            address, _, hex_port = fields[1].partition(":")
            if int(hex_port, 16) == port and fields[3] == "0A":  # LISTEN
                found.add(address)
    return found


def _serve(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "cfn_debug.cli", "serve", str(HOSTILE), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )


def test_serve_binds_loopback_unless_told_otherwise() -> None:
    """`cfn-debug serve` with no --host listens on 127.0.0.1 only (read from the kernel's socket
    table, not from what it prints), says so, and prints no exposure warning."""
    port = free_port()
    proc = _serve("--port", str(port))
    try:
        wait_for(lambda: _listening_addresses(port), "serve to listen", timeout=30)
        assert _listening_addresses(port) == {"0100007F"}
    finally:
        stop(proc)
    out, err = proc.communicate(timeout=10)
    assert f"http://127.0.0.1:{port}" in out
    assert "warning" not in err


def test_serve_on_all_interfaces_warns_and_is_not_sent_traffic() -> None:
    """`serve --host 0.0.0.0` does what it is told (listens on 0.0.0.0) and warns on stderr that
    the functions are exposed without authentication. No traffic is sent to it."""
    port = free_port()
    proc = _serve("--host", "0.0.0.0", "--port", str(port))
    try:
        wait_for(lambda: _listening_addresses(port), "serve to listen", timeout=30)
        assert _listening_addresses(port) == {"00000000"}
    finally:
        stop(proc)
    _, err = proc.communicate(timeout=10)
    assert "warning" in err and "0.0.0.0" in err and "no authentication" in err


async def test_twenty_concurrent_chains_on_two_functions_keep_answers_and_logs_apart(
    hostile: Workspace,
) -> None:
    """20 chains at once: 10 three-step IN_PROGRESS chains on LongChain and 10 one-step runs on
    Hostile, each with its own Name. Every step's request and answer carry its own chain's Name
    and callbackContext, and every step's log lines are its own."""
    options = ChainOptions(max_reinvoke=5, max_delay_s=0)

    async def one(i: int):
        name = f"tag{i:02d}"
        if i % 2:
            spec = event_spec(name, Name=name, Steps=2, SleepMs=20)
            return name, await run_events(hostile.invoker, spec, "LongChain", options=options)
        spec = event_spec(name, Name=name, Mode="tagged")
        return name, await run_events(hostile.invoker, spec, "Hostile", options=options)

    started = time.monotonic()
    results = await asyncio.gather(*(one(i) for i in range(20)))
    assert time.monotonic() - started < 60
    for name, (run, _) in results:
        assert run.final_status == "SUCCESS", (name, run.steps[-1].result)
        chain = run.function_name == "LongChain"
        assert len(run.steps) == (3 if chain else 1)
        for step in run.steps:
            sent = step.request["requestData"]["resourceProperties"]
            assert sent["Name"] == name
            assert step.result.progress["resourceModel"]["Name"] == name
            expected = f"chain {name} n={step.index}" if chain else f"tag={name}"
            assert expected in step.result.logs, step.result.logs
            others = [line for line in step.result.logs if "tag" in line and name not in line]
            others = [line for line in others if "mode=tagged" not in line]
            assert others == [], others
            if chain and step.index:
                assert step.request["callbackContext"] == {"n": step.index}


async def test_a_worker_that_exits_at_import_is_an_exit_error_every_time(hostile: Workspace):
    """A handler module that calls os._exit(7) while importing: each invoke answers
    Runtime.ExitError "exit status 7" with the line it printed, promptly (no hang until the
    timeout); the endpoint goes on serving other functions."""
    for _ in range(2):
        started = time.monotonic()
        run, _ = await run_events(hostile.invoker, event_spec("exit"), "ExitAtImport")
        result = run.steps[0].result
        assert result.kind is OutcomeKind.CRASH and result.error_type == "Runtime.ExitError"
        assert "Runtime exited with error: exit status 7" in (result.error_message or "")
        assert any("leaving during import" in line for line in result.logs)
        assert time.monotonic() - started < 10
        assert run.end_reason is EndReason.TERMINAL
    ok, _ = await run_events(hostile.invoker, event_spec("ok", Mode="ok"), "Hostile")
    assert ok.final_status == "SUCCESS"


async def test_a_worker_leaking_past_its_memory_size_is_stopped_as_lambda_does(
    hostile: Workspace,
) -> None:
    """Leak has MemorySize 128 and allocates up to 800 MB: the endpoint stops the worker near
    128 MB and answers as Lambda does (Runtime.OutOfMemory, "Runtime exited with error: signal:
    killed"); the worker's peak stays far below what the handler asked for; the next invoke of
    the same function gets a fresh worker."""
    run, _ = await run_events(hostile.invoker, event_spec("leak"), "Leak")
    result = run.steps[0].result
    assert result.kind is OutcomeKind.CRASH, result
    assert result.error_type == "Runtime.OutOfMemory"
    assert "Runtime exited with error: signal: killed" in (result.error_message or "")
    assert run.end_reason is EndReason.TERMINAL
    again, _ = await run_events(hostile.invoker, event_spec("leak"), "Leak")
    assert again.steps[0].result.error_type == "Runtime.OutOfMemory"


def test_killing_serve_leaves_no_worker_behind() -> None:
    """SIGKILL `cfn-debug serve` while it has warm workers: the workers (in their own sessions, so
    a terminal's Ctrl-C does not reach them) do not outlive it."""
    port = free_port()
    proc = _serve("--port", str(port))
    try:
        url = f"http://127.0.0.1:{port}/2015-03-31/functions/Hostile/invocations"

        def answered() -> bool:
            try:
                return httpx.post(url, json={}, timeout=10).status_code == 200
            except httpx.HTTPError:
                return False

        wait_for(answered, "serve to answer", timeout=30)
        pid = httpx.post(url, json={"requestData": {"resourceProperties": {"Mode": "tagged"}}})
        worker = int(pid.json()["message"].split()[1])
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        wait_for(lambda: not alive(worker), "the worker to exit", timeout=10)
    finally:
        stop(proc)
