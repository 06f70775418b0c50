"""The embedded endpoint with a handler stopped in pdb: its Timeout and duration exclude the
stop; a handler that simply runs long is still timed out."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cfn_debug.endpoint.debugchannel import DebugEvent, DebugSession
from cfn_debug.endpoint.server import EmbeddedEndpoint

STOPPER = Path(__file__).parent / "projects" / "stopper"
HOLD_S = 3.0  # longer than the template's Timeout: 2


class SlowUser:
    """A pdb front-end that looks at a local, thinks for HOLD_S, then continues."""

    def __init__(self) -> None:
        self.output: list[str] = []
        self.asked = 0

    def on_session(self, session: DebugSession) -> None:
        session.listener = self.on_event

    def on_event(self, session: DebugSession, event: DebugEvent) -> None:
        if event.kind == "output":
            self.output.append(event.text)
        elif event.kind == "input":
            self.asked += 1
            if self.asked == 1:
                session.send_line("p answer")
            else:
                time.sleep(HOLD_S)
                session.send_line("c")


@pytest.fixture()
def endpoint() -> Iterator[tuple[EmbeddedEndpoint, SlowUser]]:
    user = SlowUser()
    ep = EmbeddedEndpoint(STOPPER, debugger=user.on_session)
    ep.start()
    try:
        yield ep, user
    finally:
        ep.stop()


def _invoke(url: str, name: str, body: dict) -> httpx.Response:
    return httpx.post(
        f"{url}/2015-03-31/functions/{name}/invocations", content=json.dumps(body), timeout=60
    )


@pytest.mark.slow
def test_a_stop_longer_than_the_timeout_is_not_the_handlers_time(
    endpoint: tuple[EmbeddedEndpoint, SlowUser],
) -> None:
    ep, user = endpoint
    started = time.monotonic()
    response = _invoke(ep.url, "Stopper", {"n": 20})
    assert time.monotonic() - started >= HOLD_S
    assert response.status_code == 200
    assert "x-amz-function-error" not in response.headers, response.text
    assert response.json() == {"answer": 41}
    assert float(response.headers["x-cfn-debug-stopped-ms"]) >= HOLD_S * 1000
    assert "40" in "".join(user.output)
    # the warm worker stops again at its next invocation
    user.asked = 0
    assert _invoke(ep.url, "Stopper", {"n": 1}).json() == {"answer": 3}


@pytest.mark.slow
def test_a_handler_that_runs_long_is_still_timed_out(
    endpoint: tuple[EmbeddedEndpoint, SlowUser],
) -> None:
    ep, _user = endpoint
    response = _invoke(ep.url, "Sleeper", {"sleep": HOLD_S})
    assert response.headers.get("x-amz-function-error") == "Unhandled"
    assert "Task timed out" in response.text
    assert "x-cfn-debug-stopped-ms" not in response.headers


def test_without_a_front_end_the_breakpoint_is_skipped_once() -> None:
    ep = EmbeddedEndpoint(STOPPER)
    ep.start()
    try:
        first = _invoke(ep.url, "Stopper", {"n": 20})
        second = _invoke(ep.url, "Stopper", {"n": 1})
        assert first.json() == {"answer": 41} and second.json() == {"answer": 3}
        logs = ep.logs_for(first.headers["x-amzn-requestid"]) + ep.logs_for(
            second.headers["x-amzn-requestid"]
        )
        assert sum("skipped" in line for line in logs) == 1, logs
    finally:
        ep.stop()


def test_q_ends_the_invocation_as_the_users_crash() -> None:
    def on_session(session: DebugSession) -> None:
        session.listener = lambda s, e: s.send_line("q") if e.kind == "input" else None

    ep = EmbeddedEndpoint(STOPPER, debugger=on_session)
    ep.start()
    try:
        response = _invoke(ep.url, "Stopper", {"n": 20})
        assert response.headers.get("x-amz-function-error") == "Unhandled"
        assert response.headers.get("x-cfn-debug-debugger") == "quit"
    finally:
        ep.stop()


del threading
