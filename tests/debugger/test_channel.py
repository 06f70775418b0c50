"""The worker's pdb over the endpoint's debug channel, in a real child process (no endpoint)."""

from __future__ import annotations

import queue
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from cfn_debug.endpoint import debughook
from cfn_debug.endpoint.debugchannel import DebugChannel, DebugEvent, DebugSession
from cfn_debug.endpoint.stopclock import StopClock

HOOK = Path(debughook.__file__)

PROGRAM = textwrap.dedent(
    """
    import importlib.util, os, sys
    spec = importlib.util.spec_from_file_location("_cfn_debug_debughook", sys.argv[1])
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    def mark(line):
        os.write(1, (line + "\\n").encode())
    hook.install(mark)
    def handler(event):
        answer = event * 2
        breakpoint()
        answer += 1
        return answer
    print("result", handler(20), flush=True)
    print("result", handler(1), flush=True)
    """
)


def _child(env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", PROGRAM, str(HOOK)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={"PATH": "/usr/bin:/bin", **env},
    )


def test_no_channel_skips_the_breakpoint_with_one_notice() -> None:
    child = _child({})
    out, _ = child.communicate(timeout=30)
    assert child.returncode == 0, out
    assert "result 41" in out and "result 3" in out
    assert out.count("breakpoint at") == 1 and "skipped" in out
    assert "BdbQuit" not in out


def test_pdb_over_the_channel_evaluates_steps_and_continues() -> None:
    events: queue.Queue[tuple[DebugSession, DebugEvent]] = queue.Queue()

    def on_session(session: DebugSession) -> None:
        session.listener = lambda s, e: events.put((s, e))

    channel = DebugChannel(on_session)
    channel.start()
    try:
        child = _child(channel.env())
        output: list[str] = []

        def until_input() -> tuple[DebugSession, DebugEvent]:
            while True:
                session, event = events.get(timeout=30)
                if event.kind == "output":
                    output.append(event.text)
                if event.kind == "input":
                    return session, event
                assert event.kind != "closed", "".join(output)

        session, event = until_input()
        assert event.function == "handler" and event.file == "<string>"
        session.send_line("p answer")
        session, _ = until_input()
        assert "40" in output[-2:][0] or "40" in "".join(output[-3:])
        session.send_line("n")
        session, event = until_input()
        session.send_line("p answer")
        session, _ = until_input()
        assert "41" in "".join(output[-3:])
        session.send_line("c")  # the second call stops again
        session, _ = until_input()
        session.send_line("c")
        out, _ = child.communicate(timeout=30)
        assert child.returncode == 0, out
        assert "result 41" in out and "result 3" in out
        # the stopped windows are marked for the endpoint's clock
        clock = StopClock()

        class Inv:
            created = 0.0
            stopped_s = 0.0
            debugger_quit = False

        inv = Inv()
        marks = [line for line in out.split("\n") if clock.feed(line.encode(), inv)]
        assert len(marks) == 6, out
        assert inv.stopped_s > 0 and not clock.stopped_now()
    finally:
        channel.stop()


def test_q_ends_the_worker_and_says_so() -> None:
    events: queue.Queue[tuple[DebugSession, DebugEvent]] = queue.Queue()

    def on_session(session: DebugSession) -> None:
        session.listener = lambda s, e: events.put((s, e))

    channel = DebugChannel(on_session)
    channel.start()
    try:
        child = _child(channel.env())
        while True:
            session, event = events.get(timeout=30)
            if event.kind == "input":
                break
        session.send_line("q")
        out, _ = child.communicate(timeout=30)
        assert child.returncode == debughook.QUIT_EXIT_CODE
        assert debughook.QUIT in out and "result" not in out
    finally:
        channel.stop()


def test_a_stranger_cannot_connect(tmp_path: Path) -> None:
    """Only descendants of the endpoint's process: one re-parented away from it is refused."""
    sessions: list[DebugSession] = []
    channel = DebugChannel(sessions.append)
    channel.start()
    done = tmp_path / "done"
    try:
        code = textwrap.dedent(
            f"""
            import os, socket, time
            if os.fork():
                os._exit(0)
            time.sleep(0.3)  # the parent is gone: no longer a descendant of the test
            s = socket.socket(socket.AF_UNIX)
            s.connect({channel.path!r})
            s.settimeout(10)
            try:
                data = s.recv(10)
            except OSError:
                data = b"?"
            open({str(done)!r}, "w").write("closed" if data == b"" else "open")
            """
        )
        subprocess.run([sys.executable, "-c", code], timeout=30, check=True)
        for _ in range(200):
            if done.exists() and done.read_text():
                break
            time.sleep(0.05)
        assert done.read_text() == "closed"
        assert not sessions
    finally:
        channel.stop()


@pytest.mark.parametrize("line", [b"plain log line\n", b"\x1e__cfn_debug_end__ abc\n"])
def test_other_lines_are_not_the_clocks(line: bytes) -> None:
    assert not StopClock().feed(line, None)
