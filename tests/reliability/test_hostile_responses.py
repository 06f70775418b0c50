"""Hostile answers through a real endpoint: each gives a typed outcome and a finding or a clear
error, the process stays up and the next run works.

What a handler can do is done by fixture handlers behind the embedded endpoint
(projects/hostile); what only a broken endpoint does is done by a loopback stub.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
from typing import Any

import httpx
import pytest

from cfn_debug.chain import ChainControl, ChainOptions
from cfn_debug.invoke.local import LocalInvoker
from cfn_debug.journal.session import Journal, load_journal
from cfn_debug.records import (
    DelayStarted,
    EndReason,
    InvocationStarted,
    Level,
    OutcomeKind,
    RunRecord,
)
from cfn_debug.schema import ResourceSchema
from cfn_debug.workspace import Workspace
from invoke.lambda_stub import LambdaStub, Reply
from reliability.support import (
    HOSTILE,
    alive,
    event_spec,
    free_port,
    rss_kb,
    run_events,
    stop,
    wait_for,
)

pytestmark = pytest.mark.timeout(120)


def rules(run: RunRecord, level: Level | None = None) -> set[str]:
    return {f.rule_id for f in run.findings if level is None or f.level is level}


async def still_works(workspace: Workspace) -> None:
    """The endpoint and the engine are still fine: an ordinary event succeeds."""
    run, _ = await run_events(
        workspace.invoker, event_spec("ok", Mode="ok", Name="n"), "Hostile", schema=workspace.schema
    )
    assert run.end_reason is EndReason.TERMINAL and run.final_status == "SUCCESS", run


async def test_a_body_over_lambdas_6_mb_is_a_crash_outcome_with_a_finding(hostile: Workspace):
    """A handler answers 7 MB: the step is a CRASH named Function.ResponseSizeTooLarge (Lambda
    would refuse it), a MUST finding says so, the body is not kept, the next run works."""
    run, _ = await run_events(
        hostile.invoker, event_spec("big", Mode="big_body"), "Hostile", schema=hostile.schema
    )
    result = run.steps[0].result
    assert result.kind is OutcomeKind.CRASH
    assert result.error_type == "Function.ResponseSizeTooLarge"
    assert "limit" in (result.error_message or "")
    assert len(result.body_excerpt) < 10_000 and result.progress is None
    assert run.end_reason is EndReason.TERMINAL
    assert "invocation-outcome" in rules(run, Level.MUST)
    await still_works(hostile)


@pytest.mark.parametrize(
    "body",
    [
        b'{"status": "SUCCESS", "message": "caf\xe9 \xff\xfe"}',  # JSON framing, Latin-1 inside
        bytes(range(128, 256)) * 8,  # no text at all
    ],
    ids=["latin1-in-json", "binary"],
)
async def test_bytes_that_are_not_utf8_are_a_not_json_outcome(body: bytes, tmp_path) -> None:
    """An endpoint answers bytes that are not UTF-8: the outcome is NOT_JSON with a readable
    excerpt (replacement characters), a MUST finding, and the step journals and loads back."""
    with LambdaStub() as stub:
        stub.functions["Fn"] = lambda _event: Reply(body)
        stub.functions["Ok"] = lambda _event: {"status": "SUCCESS", "message": ""}
        invoker = LocalInvoker(stub.url)
        journal = Journal(tmp_path / "j.jsonl")
        run, _ = await run_events(invoker, event_spec("x"), "Fn", on_event=journal.record)
        journal.close()
        result = run.steps[0].result
        assert result.kind is OutcomeKind.NOT_JSON
        assert "\ufffd" in result.body_excerpt
        assert "invocation-outcome" in rules(run, Level.MUST)
        loaded = load_journal(tmp_path / "j.jsonl")
        assert loaded.problems == [] and loaded.runs[0].steps[0].result.kind is OutcomeKind.NOT_JSON
        again, _ = await run_events(invoker, event_spec("ok"), "Ok")
        assert again.final_status == "SUCCESS"
        await invoker.aclose()


@pytest.mark.parametrize("depth", [10_000, 2_000, 900])
async def test_json_nested_10000_deep_is_a_typed_outcome_not_a_crash(depth: int, tmp_path) -> None:
    """An endpoint answers JSON nested 10,000 (2,000, 900) levels deep, as a bare array and inside a
    ProgressEvent's resourceModel: no RecursionError escapes; the run ends TERMINAL (not ERROR)
    with a typed outcome and a finding, the journal writes and loads, the next run works."""
    bare = b"[" * depth + b"]" * depth
    model = b'{"a":' * depth + b"1" + b"}" * depth
    in_event = b'{"status":"SUCCESS","resourceModel":' + model + b"}"
    with LambdaStub() as stub:
        stub.functions["Bare"] = lambda _event: Reply(bare)
        stub.functions["InEvent"] = lambda _event: Reply(in_event)
        stub.functions["Ok"] = lambda _event: {"status": "SUCCESS", "message": ""}
        invoker = LocalInvoker(stub.url)
        for name in ("Bare", "InEvent"):
            journal = Journal(tmp_path / f"{name}.jsonl")
            run, _ = await run_events(invoker, event_spec(name), name, on_event=journal.record)
            journal.close()
            result = run.steps[0].result
            assert run.end_reason is EndReason.TERMINAL, result
            assert result.kind in (OutcomeKind.NOT_JSON, OutcomeKind.NOT_PROGRESS_EVENT), result
            said = result.error_message or ""
            assert "deep" in said or (name == "Bare" and "array" in said), said
            assert "invocation-outcome" in rules(run, Level.MUST)
            assert load_journal(tmp_path / f"{name}.jsonl").runs[0].steps
        again, _ = await run_events(invoker, event_spec("ok"), "Ok")
        assert again.final_status == "SUCCESS"
        await invoker.aclose()


async def test_a_deep_model_a_handler_can_return_is_checked_and_diffed(hostile: Workspace):
    """A handler returns a model 400 levels deep (what its runtime can still serialise): the step
    is a PROGRESS outcome with its findings and diff, not an engine crash."""
    run, _ = await run_events(
        hostile.invoker, event_spec("deep", Mode="deep_model"), "Hostile", schema=hostile.schema
    )
    step = run.steps[0]
    assert step.result.kind is OutcomeKind.PROGRESS and run.final_status == "SUCCESS"
    assert any(c.pointer.startswith("/Deep") for c in step.diff_request)
    assert "model-conforms-to-schema" in rules(run, Level.MUST)  # Deep is not in the schema


async def test_a_progress_event_with_every_field_of_the_wrong_type(hostile: Workspace):
    """status 7, errorCode a list, message an object, callbackContext a string, delay "ten",
    resourceModel a list, resourceModels an object, nextToken a number: a PROGRESS outcome, MUST
    findings that name the fields, the chain stops (nothing to re-invoke with), next run works."""
    run, _ = await run_events(
        hostile.invoker, event_spec("types", Mode="wrong_types"), "Hostile", schema=hostile.schema
    )
    step = run.steps[0]
    assert step.result.kind is OutcomeKind.PROGRESS
    assert run.end_reason is EndReason.TERMINAL and len(run.steps) == 1
    assert "status-valid" in rules(run, Level.MUST)
    pointers = {f.pointer for f in step.findings}
    assert "/status" in pointers, step.findings
    await still_works(hostile)


async def test_an_unknown_status_is_a_finding_and_ends_the_chain(hostile: Workspace):
    """status "DONE_ISH": a PROGRESS outcome with a status-valid MUST finding at /status; the
    chain does not re-invoke and reports the status it got."""
    run, _ = await run_events(
        hostile.invoker, event_spec("st", Mode="unknown_status"), "Hostile", schema=hostile.schema
    )
    assert len(run.steps) == 1 and run.end_reason is EndReason.TERMINAL
    assert run.final_status == "DONE_ISH"
    assert any(
        f.rule_id == "status-valid" and f.pointer == "/status" for f in run.steps[0].findings
    )


@pytest.mark.parametrize("with_schema", [True, False], ids=["schema", "no-schema"])
async def test_a_callback_delay_of_a_billion_seconds_is_bounded_and_skippable(
    hostile: Workspace, with_schema: bool
):
    """callbackDelaySeconds 10^9: a SHOULD finding; the wait announced is bounded by the handler
    timeout (the schema's 2 minutes, else the default 120 minutes), never 31 years; skipping it
    goes on to the next invocation, which succeeds, unless the delay (counted up to 900 s) is
    past the handler timeout: then the chain ends there, the chain-timeout MUST."""
    control = ChainControl()
    delays: list[DelayStarted] = []

    def on_event(event: Any) -> None:
        if isinstance(event, DelayStarted):
            delays.append(event)
            control.skip_delay()

    schema = hostile.schema if with_schema else None
    run, _ = await run_events(
        hostile.invoker,
        event_spec("delay", Mode="huge_delay"),
        "Hostile",
        schema=schema,
        options=ChainOptions(max_reinvoke=3),
        control=control,
        on_event=on_event,
    )
    assert [d.requested_s for d in delays] == [1e9]
    assert delays[0].seconds <= (120 if with_schema else 7200)
    assert "callback-delay-range" in rules(run)
    if with_schema:
        # the delay asked for (counted up to 900 s, waited or not) outlives the schema's
        # 2 minutes: CloudFormation would stop waiting, so that is where the chain ends
        assert run.end_reason is EndReason.HANDLER_TIMEOUT and len(run.steps) == 1
        assert "chain-timeout" in rules(run)
    else:
        assert run.final_status == "SUCCESS" and len(run.steps) == 2


async def test_a_negative_callback_delay_is_a_finding_and_no_wait(hostile: Workspace):
    """callbackDelaySeconds -5: a finding that says it is negative; the chain waits 0 s (not
    -5, not forever) and re-invokes, which succeeds."""
    run, events = await run_events(
        hostile.invoker,
        event_spec("neg", Mode="negative_delay"),
        "Hostile",
        schema=hostile.schema,
        options=ChainOptions(max_reinvoke=3),
    )
    assert run.final_status == "SUCCESS" and len(run.steps) == 2
    assert run.steps[0].callback_delay_s == 0
    assert not [e for e in events if isinstance(e, DelayStarted)]
    assert any("negative" in f.message for f in run.steps[0].findings)


async def test_an_in_progress_chain_that_never_ends_stops_at_the_cap(hostile: Workspace):
    """A handler that answers IN_PROGRESS forever: the chain stops after --max-reinvoke
    re-invocations with end reason max_reinvoke and says so."""
    run, _ = await run_events(
        hostile.invoker,
        event_spec("forever", Mode="forever"),
        "Hostile",
        schema=hostile.schema,
        options=ChainOptions(max_reinvoke=7, max_delay_s=0),
    )
    assert run.end_reason is EndReason.MAX_REINVOKE and len(run.steps) == 8
    assert run.final_status == "IN_PROGRESS"


async def test_an_in_progress_chain_that_never_ends_stops_at_the_handler_timeout(
    hostile: Workspace,
):
    """The same handler with a schema whose create timeoutInMinutes is 0.02 (1.2 s): the chain
    stops at the handler timeout, well before the re-invoke cap, with the chain-timeout finding."""
    raw = dict(hostile.schema.raw)
    raw["handlers"] = {"create": {"permissions": [], "timeoutInMinutes": 0.02}}
    short = ResourceSchema(raw)
    run, _ = await run_events(
        hostile.invoker,
        event_spec("forever", Mode="forever"),
        "Hostile",
        schema=short,
        options=ChainOptions(max_reinvoke=100_000, max_delay_s=0),
    )
    assert run.end_reason is EndReason.HANDLER_TIMEOUT
    assert 1.2 <= run.total_s < 10 and len(run.steps) < 100_000
    assert "chain-timeout" in rules(run)


def _serve(project, port: int) -> Any:
    import subprocess
    import sys

    return subprocess.Popen(
        [sys.executable, "-m", "cfn_debug.cli", "serve", str(project), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "NO_COLOR": "1"},
    )


def test_a_handler_printing_100_mb_of_logs_keeps_the_endpoint_bounded() -> None:
    """A handler prints 100 MB of log lines: `cfn-debug serve` answers the invocation, keeps only a
    head and a tail with a truncation marker, its peak memory grows by less than 60 MB (measured
    from /proc), it prints a bounded amount, and it then serves the next invocation."""
    port = free_port()
    proc = _serve(HOSTILE, port)
    printed = bytearray()
    reader = threading.Thread(target=lambda: printed.extend(proc.stdout.read()), daemon=True)
    reader.start()
    try:
        url = f"http://127.0.0.1:{port}"

        def up() -> bool:
            try:
                httpx.post(f"{url}/2015-03-31/functions/Hostile/invocations", json={}, timeout=10)
            except httpx.HTTPError:
                return False
            return True

        wait_for(up, "serve to answer", timeout=30)
        flood_body = {"requestData": {"resourceProperties": {"FloodMB": 1}}}
        warm = httpx.post(
            f"{url}/2015-03-31/functions/Flood/invocations", json=flood_body, timeout=60
        )
        assert warm.status_code == 200
        before = rss_kb(proc.pid, "VmHWM")
        flood_body["requestData"]["resourceProperties"]["FloodMB"] = 100
        answer = httpx.post(
            f"{url}/2015-03-31/functions/Flood/invocations", json=flood_body, timeout=60
        )
        assert answer.status_code == 200 and answer.json()["status"] == "SUCCESS"
        peak = rss_kb(proc.pid, "VmHWM")
        assert peak - before < 60_000, f"serve grew by {(peak - before) / 1024:.0f} MB"
        ok = httpx.post(f"{url}/2015-03-31/functions/Hostile/invocations", json={}, timeout=10)
        assert ok.status_code == 200 and ok.json()["status"] == "SUCCESS"
    finally:
        stop(proc)
        reader.join(timeout=10)
    text = printed.decode("utf-8", errors="replace")
    assert "truncated" in text and "flood done" in text
    assert len(printed) < 5_000_000


async def test_the_engine_keeps_a_bounded_share_of_a_log_flood(hostile: Workspace) -> None:
    """The same 100 MB flood through the engine: the step's log lines are bounded and marked as
    truncated, the handler's last line is kept, and the chain ends SUCCESS."""
    run, _ = await run_events(
        hostile.invoker, event_spec("flood", FloodMB=100), "Flood", schema=hostile.schema
    )
    logs = run.steps[0].result.logs
    assert run.final_status == "SUCCESS"
    assert sum(len(line) for line in logs) < 2_000_000
    assert any("truncated" in line for line in logs) and any("flood done" in line for line in logs)


class _HalfAnswer:
    """A loopback 'endpoint' that promises 1,000 bytes, sends 20, and hangs up."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.broken = True
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(65536)
                head, _, rest = data.partition(b"\r\n\r\n")
                length = int(
                    next(
                        line.split(b":")[1]
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length")
                    )
                )
                while len(rest) < length:
                    rest += conn.recv(65536)
                if self.broken:
                    conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{"status": "SUC')
                else:
                    body = b'{"status": "SUCCESS", "message": ""}'
                    conn.sendall(
                        b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s"
                        % (len(body), body)
                    )

    def close(self) -> None:
        self.sock.close()


async def test_a_connection_closed_mid_answer_is_a_clear_error_and_the_next_run_works() -> None:
    """The endpoint sends headers and 20 of 1,000 promised bytes, then closes: the step is an
    HTTP_ERROR that says the endpoint broke off, the run ends with reason error, and a later run
    on the same invoker succeeds once the endpoint behaves."""
    server = _HalfAnswer()
    invoker = LocalInvoker(server.url)
    try:
        run, _ = await run_events(invoker, event_spec("half"), "Fn")
        result = run.steps[0].result
        assert result.kind is OutcomeKind.HTTP_ERROR
        assert "broke off" in (result.error_message or "")
        assert run.end_reason is EndReason.ERROR
        server.broken = False
        again, _ = await run_events(invoker, event_spec("half"), "Fn")
        assert again.final_status == "SUCCESS"
    finally:
        await invoker.aclose()
        server.close()


async def test_a_worker_killed_during_an_invoke_answers_as_lambda_does(hostile: Workspace):
    """SIGKILL the worker process while it runs a handler: the step is a CRASH with
    Runtime.ExitError and Lambda's text "Runtime exited with error: signal: killed", the chain
    ends, a fresh worker serves the next run."""
    killed: list[int] = []

    def on_event(event: Any) -> None:
        if isinstance(event, InvocationStarted) and not killed:
            threading.Thread(target=kill_new_worker, daemon=True).start()

    def kill_new_worker() -> None:
        pool = hostile.embedded.pool("Hostile")

        def busy() -> list[int]:
            return [w.pid for w in list(pool._all) if w.current is not None and w.taken.is_set()]

        pids = wait_for(busy, "a busy worker", timeout=20)
        os.kill(pids[0], signal.SIGKILL)
        killed.append(pids[0])

    run, _ = await run_events(
        hostile.invoker,
        event_spec("killed", Mode="sleep", SleepMs=2500),
        "Hostile",
        schema=hostile.schema,
        on_event=on_event,
    )
    result = run.steps[0].result
    assert killed, "no worker was killed"
    assert result.kind is OutcomeKind.CRASH and result.error_type == "Runtime.ExitError"
    assert "Runtime exited with error: signal: killed" in (result.error_message or "")
    assert "handler-exception" in rules(run) or "invocation-outcome" in rules(run)
    await still_works(hostile)
    # Reaped, not left a zombie (children_of skips zombies, so it cannot tell).
    wait_for(lambda: not os.path.exists(f"/proc/{killed[0]}"), "the killed worker to be reaped")


async def test_a_warm_worker_killed_while_idle_is_replaced_unnoticed(hostile: Workspace):
    """SIGKILL a warm worker between invocations (as an OOM killer might): the next invocation
    of that function runs on a fresh worker and succeeds; nobody sees an error."""
    await still_works(hostile)
    pool = hostile.embedded.pool("Hostile")
    idle = [w.pid for w in list(pool._idle) if w.pid is not None]
    assert idle, "no warm worker"
    for pid in idle:
        os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not any(alive(pid) for pid in idle), "the workers to die", timeout=10)
    await still_works(hostile)
