"""`cfn-debug run` process start to its first request (DESIGN.md section 7: target < 0.6 s).

A loopback HTTP server stands in for the endpoint and notes when the first invoke arrives; the
figure is from just before the process is spawned to that moment, so it covers the interpreter,
the imports, reading the project, schema and event, and building the payload. Run:
    python bench/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EVENT = REPO / "sample_events" / "read.json"
ANSWER = json.dumps({"status": "SUCCESS", "resourceModel": {"WidgetId": "wdg-demo0001"}}).encode()


class FirstRequest(BaseHTTPRequestHandler):
    arrived: list[float] = []

    def do_POST(self) -> None:
        FirstRequest.arrived.append(time.perf_counter())
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)

    def log_message(self, *args: object) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), FirstRequest)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    command = [
        sys.executable,
        "-m",
        "cfn_debug.cli",
        "run",
        str(EVENT),
        "--endpoint",
        url,
        "--function-name",
        "TestEntrypoint",
        "--no-journal",
    ]
    env = {**os.environ, "NO_COLOR": "1"}
    figures = []
    for _ in range(args.runs):
        FirstRequest.arrived.clear()
        started = time.perf_counter()
        subprocess.run(command, env=env, capture_output=True, check=False, cwd=REPO)
        if FirstRequest.arrived:
            figures.append(FirstRequest.arrived[0] - started)
    server.shutdown()
    if not figures:
        sys.exit("no request arrived: is cfn-debug installed?")
    median = statistics.median(figures)
    verdict = "ok" if median < 0.6 else "OVER TARGET"
    print(
        f"cfn-debug run, process start to first request: median {median:.3f} s, "
        f"max {max(figures):.3f} s over {len(figures)} runs (target < 0.6 s: {verdict})"
    )
    modules = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "cfn_debug.cli",
            "run",
            str(EVENT),
            "--endpoint",
            url + "0",
            "--no-journal",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
    ).stderr
    heavy = [name for name in ("textual", "boto3") if f" {name}\n" in modules]
    print(
        f"heavy modules imported by run: {', '.join(heavy) or 'none (textual and boto3 stay out)'}"
    )


if __name__ == "__main__":
    main()
