"""A chain that ends without a terminal status is never a pass.

With delays simulated (``--max-delay``), the handler's requested callbackDelaySeconds still count
against its timeoutInMinutes: past it, the chain stops and that is the MUST ``chain-timeout``.
When the re-invoke cap stops a chain first, the run is inconclusive: exit 2 with a hint, never ✔.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cfn_debug import chain_end
from cfn_debug.chain import ChainOptions, run_chain
from cfn_debug.events import Shape
from cfn_debug.invoke.local import LocalInvoker
from cfn_debug.records import EndReason, Level, OutcomeKind
from cfn_debug.schema import schema_from_dict
from invoke.lambda_stub import Behaviour, LambdaStub, serve_resource, widget_resource
from support.cli import run_cli
from test_chain import EVENT, SCHEMA, collect

REPO = Path(__file__).resolve().parents[1]


def _one_minute_schema() -> Any:
    raw = json.loads(json.dumps(SCHEMA.raw))
    raw["handlers"]["create"]["timeoutInMinutes"] = 1
    return schema_from_dict(raw)


async def test_simulated_delays_past_timeout_in_minutes_are_the_chain_timeout_must() -> None:
    # 30 s asked for at every IN_PROGRESS, waited 0 s: the handler's clock passes 60 s at the
    # third answer, long before the re-invoke cap of 100
    with LambdaStub() as stub:
        serve_resource(stub, widget_resource(Behaviour(in_progress_steps=1000, delay_s=30)))
        events = await collect(
            run_chain(
                LocalInvoker(stub.url),
                EVENT,
                function_name="TestEntrypoint",
                shape=Shape.SAM,
                schema=_one_minute_schema(),
                options=ChainOptions(max_delay_s=0),
            )
        )
    run = events[-1].run
    assert run.end_reason is EndReason.HANDLER_TIMEOUT
    assert len(run.steps) <= 3
    [finding] = [f for f in run.chain_findings if f.rule_id == "chain-timeout"]
    assert finding.level is Level.MUST
    assert "1 min" in finding.message


async def test_simulated_delays_within_the_timeout_are_no_finding() -> None:
    with LambdaStub() as stub:
        serve_resource(stub, widget_resource(Behaviour(in_progress_steps=1, delay_s=30)))
        events = await collect(
            run_chain(
                LocalInvoker(stub.url),
                EVENT,
                function_name="TestEntrypoint",
                shape=Shape.SAM,
                schema=_one_minute_schema(),
                options=ChainOptions(max_delay_s=0),
            )
        )
    run = events[-1].run
    assert run.end_reason is EndReason.TERMINAL and run.chain_findings == []


async def test_the_chain_reads_each_step_once_for_its_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the timeout check after every step counts only the new step: a long chain's checks stay
    # linear in its length (walking every earlier step again made each step of a 1,000-step
    # chain slower than the one before, on the dashboard's event loop)
    read = []
    counted = chain_end.requested_delay_s
    monkeypatch.setattr(chain_end, "requested_delay_s", lambda p: read.append(p) or counted(p))
    with LambdaStub() as stub:
        serve_resource(stub, widget_resource(Behaviour(in_progress_steps=40, delay_s=0)))
        events = await collect(
            run_chain(
                LocalInvoker(stub.url),
                EVENT,
                function_name="TestEntrypoint",
                shape=Shape.SAM,
                schema=_one_minute_schema(),
                options=ChainOptions(max_delay_s=0),
            )
        )
    run = events[-1].run
    assert run.end_reason is EndReason.TERMINAL and len(run.steps) == 41
    # once per step as it is added, once more for the chain-timeout rule at the end
    assert len(read) <= 2 * len(run.steps)


def test_the_incremental_clock_is_the_clock_of_the_steps_so_far() -> None:
    def step(duration: float, progress: Any, origin: str | None = None) -> Any:
        kind = OutcomeKind.PROGRESS
        result = SimpleNamespace(duration_s=duration, kind=kind, progress=progress)
        return SimpleNamespace(duration_s=duration, result=result, origin=origin)

    waiting = {"status": "IN_PROGRESS", "callbackDelaySeconds": 30}
    steps = [
        step(0.25, waiting),
        step(0.5, waiting, origin="read-back"),
        step(0.125, {"status": "IN_PROGRESS", "callbackDelaySeconds": 5000}),
        step(1.0, {"status": "SUCCESS"}),
    ]
    cap = chain_end.MAX_COUNTED_DELAY_S
    # the handler's durations and requested delays (capped); the read-back counts for nothing
    expected = [0.0, 0.25 + 30, 0.25 + 30, 0.25 + 30 + 0.125 + cap, 0.25 + 30 + 0.125 + cap + 1.0]
    clock = chain_end.HandlerClock()
    for n in range(len(steps) + 1):
        assert clock.of(steps[:n]) == pytest.approx(expected[n])
        assert chain_end.handler_clock_s(steps[:n])[0] == pytest.approx(expected[n])
    assert clock.delays_s == 30 + cap


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CFN_DEBUG_DEMO_STATE": str(tmp_path / "demo"), "NO_COLOR": "1"}
    return run_cli(*args, env=env, timeout=120, cwd=REPO)


@pytest.mark.slow
def test_a_chain_the_reinvoke_cap_stops_is_inconclusive_exit_2(tmp_path: Path) -> None:
    event = str(REPO / "sample_events" / "create.json")
    proc = _cli(tmp_path, "run", event, "--max-reinvoke", "1", "--max-delay", "0", "--no-journal")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    out = proc.stdout + proc.stderr
    assert "raise --max-reinvoke or check the handler" in out
    assert "✔" not in out
    proc = _cli(
        tmp_path, "run", event, "--max-reinvoke", "1", "--max-delay", "0", "--no-journal", "--json"
    )
    assert proc.returncode == 2, proc.stderr
    document = json.loads(proc.stdout)
    assert document["ok"] is False
    [error] = document["errors"]
    assert error["kind"] == "inconclusive"
    assert "raise --max-reinvoke or check the handler" in error["message"]


async def test_a_skipped_delay_is_recorded_as_the_time_waited() -> None:
    from cfn_debug.chain import ChainControl
    from cfn_debug.records import DelayStarted

    control = ChainControl()
    with LambdaStub() as stub:
        serve_resource(stub, widget_resource(Behaviour(in_progress_steps=1, delay_s=30)))
        events = []
        async for event in run_chain(
            LocalInvoker(stub.url),
            EVENT,
            function_name="TestEntrypoint",
            shape=Shape.SAM,
            schema=SCHEMA,
            options=ChainOptions(),
            control=control,
        ):
            events.append(event)
            if isinstance(event, DelayStarted):
                control.skip_delay()  # `d` in the dashboard
    run = events[-1].run
    assert run.final_status == "SUCCESS"
    assert run.steps[0].callback_delay_s < 5  # not the 30 s announced: it was skipped
