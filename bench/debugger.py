"""Warm invoke with ``--debug-port`` and no breakpoint hit, next to the plain warm invoke, in the
same run (DESIGN.md section 7: within 1.1x). Run: /work/venv/bin/python bench/debugger.py

Two embedded endpoints on the bundled demo's READ (TestEntrypoint, read.json): one plain, one
whose worker listens with debugpy; a minimal DAP client attaches to it (initialize, attach,
configurationDone, no breakpoint) as an IDE would, and stays attached. Batches alternate between
the two over one keep-alive connection each; median and p95 of each, and their ratio.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.debugger.dap import DapClient  # noqa: E402

from cfn_debug.demo import PROJECT_DIR as DEMO  # noqa: E402
from cfn_debug.demo import sample_events_dir  # noqa: E402
from cfn_debug.endpoint.server import EmbeddedEndpoint  # noqa: E402

TARGET = 1.1
FIXTURE = REPO / "tests" / "endpoint" / "projects" / "basic"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _attach(port: int) -> DapClient:
    client = DapClient(port, timeout_s=60)
    client.send("initialize", clientID="bench", adapterID="debugpy", pathFormat="path")
    client.wait("response", "initialize")
    client.send("attach", justMyCode=True)
    client.wait("event", "initialized")
    client.send("configurationDone")
    client.wait("response", "configurationDone")
    return client


def _latencies(client: httpx.Client, path: str, body: bytes, count: int) -> list[float]:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        response = client.post(path, content=body)
        times.append(time.perf_counter() - start)
        response.raise_for_status()
    return times


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=500, help="invokes per endpoint (default 500)")
    parser.add_argument(
        "--fixture", action="store_true", help="the endpoint tests' trivial Echo, not the demo"
    )
    args = parser.parse_args()
    if args.fixture:
        project, function, body = FIXTURE, "Echo", b'{"tag": "bench"}'
    else:
        project, function = DEMO, "TestEntrypoint"
        body = (sample_events_dir() / "read.json").read_bytes()
    path = f"/2015-03-31/functions/{function}/invocations"
    state = {"Parameters": {"CFN_DEBUG_DEMO_STATE": tempfile.mkdtemp(prefix="cfn-debug-bench-")}}
    port = _free_port()
    plain = EmbeddedEndpoint(project, env_vars=state)
    debug = EmbeddedEndpoint(project, env_vars=state, debug_port=port)
    plain.start()
    debug.start()
    dap: list[DapClient] = []
    try:
        with (
            httpx.Client(base_url=plain.url) as ours,
            httpx.Client(base_url=debug.url, timeout=120) as debugged,
        ):
            ours.post(path, content=body).raise_for_status()
            # the debug worker waits for a client before its first invocation
            first = threading.Thread(target=lambda: debugged.post(path, content=body))
            first.start()
            dap.append(_attach(port))
            first.join()
            for client in (ours, debugged):
                _latencies(client, path, body, 20)  # warm-up
            mine: list[float] = []
            theirs: list[float] = []
            for _ in range(max(args.n // 25, 1)):
                mine += _latencies(ours, path, body, 25)
                theirs += _latencies(debugged, path, body, 25)
    finally:
        for client in dap:
            client.close()
        debug.stop()
        plain.stop()
    load = os.getloadavg()[0]
    plain_ms, debug_ms = statistics.median(mine) * 1000, statistics.median(theirs) * 1000
    ratio = debug_ms / plain_ms
    verdict = "ok" if ratio <= TARGET else "OVER"
    what = "the fixture's Echo" if args.fixture else "demo READ"
    print(f"warm invoke, {what}, {len(mine)} invokes each, alternating batches [load {load:.2f}]")
    print(f"  plain            median {plain_ms:7.3f} ms  p95 {_p95(mine) * 1000:7.3f} ms")
    print(f"  --debug-port     median {debug_ms:7.3f} ms  p95 {_p95(theirs) * 1000:7.3f} ms")
    print(f"  ratio {ratio:.2f}x (target <= {TARGET}x): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
