"""A browser-shaped attacker against every port cfn-debug opens.

`cfn-debug serve --local-aws` runs with a warm worker; the ports are found the way an attacker on
the machine would find them, by listing the listening sockets the serve process tree holds
(/proc/PID/fd and /proc/net/tcp), not by knowing them: the endpoint, the local AWS (moto) and
each worker's Runtime API. Every port is sent what a web page can make a browser send (an Origin,
Sec-Fetch headers, a DNS-rebound Host) and what any local process can send (a plain
``GET /2018-06-01/runtime/invocation/next``). None may answer a page with a success or a CORS
grant, none may hand an outsider an invocation (its event and credentials), and the handler's
own runtime keeps getting its invocations: a normal Invoke still answers with the handler's
result while the attackers hold their connections open.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cfn_debug.endpoint import proctree
from reliability.support import (
    CREDENTIALS,
    HOSTILE,
    SECRET_ACCESS_KEY,
    free_port,
    stop,
    wait_for,
)

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

NEXT = "/2018-06-01/runtime/invocation/next"


def listening_ports(root: int) -> set[int]:
    """The TCP ports process ``root`` and its descendants listen on (Linux /proc)."""
    inodes: set[str] = set()
    for pid in {root, *proctree.members([root])}:
        directory = f"/proc/{pid}/fd"
        try:
            entries = os.listdir(directory)
        except OSError:
            continue
        for entry in entries:
            try:
                link = os.readlink(f"{directory}/{entry}")
            except OSError:
                continue
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    ports: set[int] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text(encoding="ascii").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # LISTEN
                ports.add(int(fields[1].rpartition(":")[2], 16))
    return ports


def send(port: int, request: bytes) -> socket.socket | None:
    """A connection to ``port`` that sent ``request`` (None when refused at connect)."""
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    except OSError:
        return None
    with contextlib.suppress(OSError):
        sock.sendall(request)
    return sock


def received(sock: socket.socket | None, wait_s: float) -> bytes:
    """What came back on ``sock`` within ``wait_s`` (until it closed or went quiet)."""
    if sock is None:
        return b""
    data = b""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        sock.settimeout(max(deadline - time.monotonic(), 0.01))
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            break
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    return data


def head(port: int, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"{method} {path} HTTP/1.1"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def attacks(port: int) -> list[tuple[str, bytes]]:
    """What a web page can make the developer's browser send to 127.0.0.1:PORT."""
    local = f"127.0.0.1:{port}"
    rebound = f"attacker.example:{port}"
    page = {"Origin": "http://attacker.example"}
    fetch = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": ""}
    text = {"Content-Type": "text/plain"}
    return [
        ("rebound next", head(port, "GET", NEXT, {"Host": rebound})),
        ("origin next", head(port, "GET", NEXT, {"Host": local, **page})),
        ("sec-fetch next", head(port, "GET", NEXT, {"Host": local, **fetch})),
        ("rebound data", head(port, "GET", "/moto-api/data.json", {"Host": rebound})),
        ("origin data", head(port, "GET", "/moto-api/data.json", {"Host": local, **page})),
        (
            "preflight",
            head(
                port,
                "OPTIONS",
                "/",
                {
                    "Host": local,
                    **page,
                    "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "x-amz-target",
                },
            ),
        ),
        (
            "simple post",
            head(
                port,
                "POST",
                "/moto-api/recorder/start-recording",
                {"Host": local, **page, **text},
            ),
        ),
        (
            "invoke",
            head(
                port,
                "POST",
                "/2015-03-31/functions/Hostile/invocations",
                {"Host": local, **page, **text},
                b"{}",
            ),
        ),
    ]


def status_of(answer: bytes) -> int | None:
    line = answer.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) > 1 and line[1].isdigit() else None


@pytest.fixture(scope="module")
def serving() -> Iterator[tuple[subprocess.Popen[str], int]]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cfn_debug.cli",
            "serve",
            str(HOSTILE),
            "--port",
            str(port),
            "--local-aws",
            "--setup",
            "none",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        wait_for(lambda: invoke(port, timeout=10) is not None, "serve to answer", timeout=90)
        yield proc, port
    finally:
        stop(proc)


def invoke(port: int, timeout: float = 30) -> dict[str, object] | None:
    # The handler's input as the endpoint receives it, carrying recognisable credentials.
    event = {
        "requestData": {
            "resourceProperties": {"Mode": "tagged", "Name": "attacked"},
            "callerCredentials": CREDENTIALS,
        },
    }
    try:
        answer = httpx.post(
            f"http://127.0.0.1:{port}/2015-03-31/functions/Hostile/invocations",
            json=event,
            timeout=timeout,
        )
    except httpx.HTTPError:
        return None
    if answer.status_code != 200:
        return None
    return dict(answer.json())


def test_every_port_of_the_process_tree_refuses_a_web_page(serving) -> None:
    """The endpoint, the local AWS and the worker's Runtime API (>= 3 listening ports found in
    the process tree) answer every browser-shaped request with a refusal or nothing: no 2xx/3xx,
    no Access-Control-Allow-Origin, never an invocation; a normal Invoke afterwards is answered
    by the handler itself."""
    proc, endpoint_port = serving
    ports = listening_ports(proc.pid)
    assert endpoint_port in ports and len(ports) >= 3, ports
    held: list[tuple[str, int, socket.socket | None]] = []
    for port in sorted(ports):
        for name, request in attacks(port):
            sock = send(port, request)
            answer = received(sock, 0.5)
            status = status_of(answer)
            assert status is None or status >= 400, (port, name, answer[:300])
            assert b"access-control-allow-origin" not in answer.lower(), (port, name, answer[:300])
            held.append((name, port, sock))
    result = invoke(endpoint_port)
    try:
        assert result is not None and result.get("status") == "SUCCESS", result
        assert str(result.get("message", "")).startswith("pid "), result
        for name, port, sock in held:
            late = received(sock, 0.05)
            assert SECRET_ACCESS_KEY.encode() not in late, (port, name, late[:300])
            assert status_of(late) in (None, 400, 403, 404, 405, 409), (port, name, late[:300])
    finally:
        for _, _, sock in held:
            if sock is not None:
                sock.close()


def test_a_local_outsider_never_gets_the_workers_invocation(serving) -> None:
    """A plain local process (no browser headers, a loopback Host: what the runtime clients
    send) that asks every port for the next invocation receives none: the next Invoke's event
    (with its credentials) goes to the worker's own runtime, which answers it."""
    proc, endpoint_port = serving
    ports = listening_ports(proc.pid) - {endpoint_port}
    held = []
    for port in sorted(ports):
        sock = send(port, head(port, "GET", NEXT, {"Host": f"127.0.0.1:{port}"}))
        received(sock, 0.3)
        held.append((port, sock))
    try:
        result = invoke(endpoint_port)
        assert result is not None and result.get("status") == "SUCCESS", result
        for port, sock in held:
            late = received(sock, 0.2)
            assert SECRET_ACCESS_KEY.encode() not in late, (port, late[:300])
            assert b"Lambda-Runtime-Aws-Request-Id" not in late, (port, late[:300])
    finally:
        for _, sock in held:
            if sock is not None:
                sock.close()
