"""`run --endpoint` against an endpoint whose details route (x-cfn-debug-details) answers JSON
nested 100,000 deep keeps the step's SUCCESS answer, with a note that the logs could not be read
(the step was lost before). A real HTTP server on loopback, the real CLI."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from headless.test_exit_codes import MEMBER, MODEL, cfn_debug, event_file

DEEP = b'{"logs": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"


class _Endpoint(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_args: Any) -> None:
        pass

    def _send(self, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(200)
        for key, value in {"Content-Type": "application/json", **headers}.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        answer = {"status": "SUCCESS", "resourceModel": MODEL}
        self._send(
            json.dumps(answer).encode(),
            {"x-amzn-RequestId": "r-1", "x-cfn-debug-details": "/details/r-1"},
        )

    def do_GET(self) -> None:
        self._send(DEEP, {})


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_deeply_nested_details_answer_keeps_the_steps_success(
    tmp_path: Path, endpoint: str
) -> None:
    proc = cfn_debug(
        tmp_path, "run", event_file(tmp_path), "--no-journal", "--project", str(MEMBER),
        "--endpoint", endpoint, "--json", "--no-read-back",
    )  # fmt: skip
    document = json.loads(proc.stdout)
    [run] = document["runs"]
    step = run["steps"][0]
    progress = step["result"]["progress"] or {}
    assert progress.get("status") == "SUCCESS", (proc.stderr[-2000:], step["result"])
    assert "internal error" not in proc.stderr
    assert any("nested too deep" in line for line in step["result"]["logs"]), step["result"]
