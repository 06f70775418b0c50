"""`cfn-debug run --debug-port`: an IDE's side spoken by a minimal DAP client over the socket
(no IDE): it attaches, sets a breakpoint, is stopped past the 30 s READ limit, continues, and
the run has no finding."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from support.ports import free_port

from .dap import DapClient
from .support import CLI, breakpoint_line, cli_env

READ_LIMIT_S = 30.0


@pytest.mark.slow
def test_an_ide_stopped_past_the_read_limit_costs_no_finding(demo_copy: Path) -> None:
    handlers = demo_copy / "src" / "cfndebug_demo_widget" / "handlers.py"
    line = breakpoint_line(demo_copy) + 1  # the line after breakpoint(): set from the IDE
    handlers.write_text(handlers.read_text().replace("    breakpoint()\n", "    pass\n", 1))
    port = free_port()
    run = subprocess.Popen(
        [*CLI, "run", "sample_events/read.json", "--no-journal", "--debug-port", str(port)],
        cwd=demo_copy,
        env=cli_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    client = DapClient(port, timeout_s=60)
    try:
        client.send(
            "initialize",
            clientID="test",
            adapterID="debugpy",
            pathFormat="path",
            linesStartAt1=True,
            columnsStartAt1=True,
        )
        assert client.wait("response", "initialize")["success"]
        client.send("attach", justMyCode=True)
        client.wait("event", "initialized")
        client.send("setBreakpoints", source={"path": str(handlers)}, breakpoints=[{"line": line}])
        placed = client.wait("response", "setBreakpoints")["body"]["breakpoints"]
        assert placed and placed[0]["verified"], placed
        client.send("configurationDone")
        client.wait("response", "configurationDone")
        stopped = client.wait("event", "stopped")
        assert stopped["body"]["reason"] == "breakpoint"
        time.sleep(READ_LIMIT_S + 2)  # the user looks around for longer than a READ may take
        client.send("continue", threadId=stopped["body"]["threadId"])
        client.wait("response", "continue")
        output, _ = run.communicate(timeout=120)
    finally:
        client.close()
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 0, output
    assert '"pathMappings"' in output and f'"port": {port}' in output
    assert "0 MUST finding(s), 0 SHOULD finding(s)" in output, output
    assert "stopped in the debugger 3" in output, output
