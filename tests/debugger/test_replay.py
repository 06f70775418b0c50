"""Replaying a step under the debugger: exactly its request, once, stopping at the raising line
of a failed step (or the handler's entry), journaled as a replay, findings compared."""

from __future__ import annotations

import asyncio
import queue
import threading
from pathlib import Path

import pytest

from cfn_debug.chain import ChainOptions
from cfn_debug.debugger.options import DebugOptions
from cfn_debug.debugger.replay import compare
from cfn_debug.endpoint.debugchannel import DebugEvent, DebugSession
from cfn_debug.records import RunEnded, RunRecord
from cfn_debug.workspace import Workspace

pytestmark = pytest.mark.slow


class Stops:
    """A pdb front-end that records where each stop is, then continues."""

    def __init__(self) -> None:
        self.stops: queue.Queue[DebugEvent] = queue.Queue()

    def on_session(self, session: DebugSession) -> None:
        def listen(s: DebugSession, event: DebugEvent) -> None:
            if event.kind == "input":
                self.stops.put(event)
                threading.Timer(0.1, s.send_line, ["c"]).start()

        session.listener = listen


async def _ended(stream) -> RunRecord:  # type: ignore[no-untyped-def]
    run = None
    async for event in stream:
        if isinstance(event, RunEnded):
            run = event.run
    assert run is not None
    return run


def _without_breakpoint(project: Path) -> None:
    handlers = project / "src" / "cfndebug_demo_widget" / "handlers.py"
    handlers.write_text(handlers.read_text().replace("    breakpoint()\n", "", 1))


def test_b_on_a_failed_step_stops_at_the_raising_line(demo_copy: Path, tmp_path: Path) -> None:
    _without_breakpoint(demo_copy)
    stops = Stops()
    state = {"Parameters": {"CFN_DEBUG_DEMO_STATE": str(tmp_path / "state")}}
    workspace = Workspace.open(demo_copy, env_vars=state, debug=DebugOptions(stops.on_session))
    try:
        event = next(e for e in workspace.events if e.name.endswith("fault-unhandled-exception"))
        options = ChainOptions(max_delay_s=0.0, read_back=False)
        original = asyncio.run(_ended(workspace.run(event, options)))
        assert stops.stops.empty()  # nothing stops a plain run
        failed = original.steps[-1]
        assert failed.result.status == "FAILED" and failed.findings
        replayed = asyncio.run(_ended(workspace.replay(original, failed)))
        stop = stops.stops.get(timeout=5)
        handlers = demo_copy / "src" / "cfndebug_demo_widget" / "handlers.py"
        raising = (
            handlers.read_text()
            .splitlines()
            .index(
                '        model["Color"] = stored["Colour"]  # The bug: a typo, a KeyError nobody '
                "catches."
            )
        )
        assert stop.file == str(handlers.resolve()) and stop.line == raising + 1
        assert replayed.replay_of == f"{original.run_id}#{failed.index}"
        assert len(replayed.steps) == 1
        again = replayed.steps[0]
        sent, first = again.request, failed.request
        assert sent["callbackContext"] == first["callbackContext"]
        assert sent["request"]["clientRequestToken"] == first["request"]["clientRequestToken"]
        assert sent["request"]["desiredResourceState"] == first["request"]["desiredResourceState"]
        comparison = compare(failed, again)
        assert not comparison.new and not comparison.fixed, comparison.describe()
        # disarmed: the next plain run stops nowhere
        asyncio.run(_ended(workspace.run(event, options)))
        assert stops.stops.empty()
    finally:
        workspace.close()


def test_b_on_a_successful_step_stops_at_the_handlers_entry(
    demo_copy: Path, tmp_path: Path
) -> None:
    _without_breakpoint(demo_copy)
    stops = Stops()
    state = {"Parameters": {"CFN_DEBUG_DEMO_STATE": str(tmp_path / "state")}}
    workspace = Workspace.open(demo_copy, env_vars=state, debug=DebugOptions(stops.on_session))
    try:
        event = next(e for e in workspace.events if e.name.endswith("/read"))
        options = ChainOptions(max_delay_s=0.0, read_back=False)
        original = asyncio.run(_ended(workspace.run(event, options)))
        step = original.steps[0]
        replayed = asyncio.run(_ended(workspace.replay(original, step)))
        stop = stops.stops.get(timeout=5)
        assert stop.function == "read_handler"
        assert replayed.final_status == original.final_status == "SUCCESS"
    finally:
        workspace.close()
