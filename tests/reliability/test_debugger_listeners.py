"""The browser-shaped attacker (test_browser_attacker) against the listeners the debugger adds:
the endpoint's pdb channel (a Unix socket) and the worker's debugpy port (``--debug-port``).

`cfn-debug run` stops at the demo READ handler's ``breakpoint()`` (on a pseudo-terminal), or
waits for an IDE on ``--debug-port``; its listening sockets, TCP and Unix, are found by listing
the process tree's sockets (/proc/PID/fd, /proc/net/tcp, /proc/net/unix), not by knowing them.
Every TCP port gets what a web page can make a browser send; every Unix socket gets what any
local process can send (a worker's pdb messages, an HTTP request). None may answer with a
success, a CORS grant, a Debug Adapter Protocol answer (debugpy would take a page's POST body
for a request of its own), or (the pdb channel) let an outsider's text reach the user's pdb.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from debugger.support import CLI, Terminal, cli_env, make_demo_copy
from reliability.support import free_port, stop, wait_for
from reliability.test_browser_attacker import (
    attacks,
    head,
    listening_ports,
    received,
    send,
    status_of,
)

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

SPOOF = "SPOOFED-BY-AN-OUTSIDER"


def _socket_inodes(root: int) -> set[str]:
    from cfn_debug.endpoint import proctree

    inodes: set[str] = set()
    for pid in {root, *proctree.members([root])}:
        try:
            entries = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for entry in entries:
            try:
                link = os.readlink(f"/proc/{pid}/fd/{entry}")
            except OSError:
                continue
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    return inodes


def listening_unix(root: int) -> set[str]:
    """The paths of the Unix stream sockets ``root``'s process tree listens on."""
    inodes = _socket_inodes(root)
    paths: set[str] = set()
    table = Path("/proc/net/unix").read_text(encoding="ascii", errors="replace")
    for line in table.splitlines()[1:]:
        fields = line.split()
        # Flags __SO_ACCEPTCON (0x10000): listening; Type 0001: SOCK_STREAM
        if len(fields) >= 8 and int(fields[3], 16) & 0x10000 and fields[6] in inodes:
            paths.add(fields[7])
    return paths


def dap_post(port: int) -> tuple[str, bytes]:
    """A page's text/plain POST whose body is a Debug Adapter Protocol request."""
    body = {"seq": 1, "type": "request", "command": "initialize", "arguments": {}}
    headers = {
        "Host": f"127.0.0.1:{port}",
        "Origin": "http://attacker.example",
        "Sec-Fetch-Site": "cross-site",
        "Content-Type": "text/plain",
    }
    return "dap post", head(port, "POST", "/", headers, json.dumps(body).encode())


def _refused_by_every_tcp_port(ports: set[int]) -> None:
    for port in sorted(ports):
        # the DAP-shaped post first: a debug adapter serves one client at a time
        for name, request in [dap_post(port), *attacks(port)]:
            sock = send(port, request)
            try:
                answer = received(sock, 2.0 if name == "dap post" else 0.5)
            finally:
                if sock is not None:
                    sock.close()
            status = status_of(answer) if answer.startswith(b"HTTP/") else None
            assert status is None or status >= 400, (port, name, answer[:300])
            assert b"access-control-allow-origin" not in answer.lower(), (port, name, answer[:300])
            # Not HTTP at all, yet taken as a request: a debug adapter answering the page's body
            assert b'"success": true' not in answer, (port, name, answer[:300])


def test_the_pdb_channel_and_every_port_refuse_outsiders(tmp_path: Path) -> None:
    """Stopped at breakpoint(): the pdb channel's Unix socket takes no outsider (its pdb
    messages never reach the terminal, its HTTP request gets nothing), every TCP port refuses a
    web page, and the user's pdb still evaluates and continues to a clean run."""
    project = make_demo_copy(tmp_path)
    term = Terminal([*CLI, "run", "sample_events/read.json", "--no-journal"], project)
    try:
        term.expect("(Pdb) ")
        pid = term.process.pid
        unix = listening_unix(pid)
        assert any(path.endswith("pdb.sock") for path in unix), unix
        _refused_by_every_tcp_port(listening_ports(pid))
        for path in unix:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(5)
                try:
                    sock.connect(path)
                    spoof = {"op": "out", "text": SPOOF}
                    sock.sendall(json.dumps(spoof).encode() + b"\n")
                    sock.sendall(json.dumps({"op": "input"}).encode() + b"\n")
                    sock.sendall(b"GET / HTTP/1.1\r\nHost: attacker.example\r\n\r\n")
                except OSError:
                    continue  # refused at once: what we want
                assert received(sock, 2.0) == b"", path
        term.type("p widget_id")
        assert "'wdg-demo0001'" in term.expect("(Pdb) ")
        term.type("c")
        code, rest = term.finish()
    finally:
        stop(term.process)
    assert code == 0, rest
    assert SPOOF not in term.seen.decode("utf-8", "replace") + rest


def test_the_debugpy_port_refuses_a_web_page(tmp_path: Path) -> None:
    """`run --debug-port`: every port of the tree (the endpoint, the worker's Runtime API,
    debugpy's port and its adapter's) refuses what a web page sends: no success, no CORS grant,
    no Debug Adapter Protocol answer."""
    project = make_demo_copy(tmp_path)
    handlers = project / "src" / "cfndebug_demo_widget" / "handlers.py"
    handlers.write_text(handlers.read_text().replace("    breakpoint()\n", "    pass\n", 1))
    port = free_port()
    run = subprocess.Popen(
        [*CLI, "run", "sample_events/read.json", "--no-journal", "--debug-port", str(port)],
        cwd=project,
        env=cli_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        ports = wait_for(
            lambda: (found := listening_ports(run.pid)) and port in found and found,
            "debugpy to listen",
            timeout=90,
        )
        _refused_by_every_tcp_port(ports)
    finally:
        stop(run)
