"""The --require hook (endpoint/runtimes/node/hooks.js) records an error page a web server
answered instead of AWS (moto's server, for an operation it lacks or fails on) with the page's
first bytes: the AWS SDK for JavaScript v2 reports it as UnknownError "INTERNAL SERVER ERROR"
(JSON services) or an XML parser's error, which said nothing of a page, so a TypeScript
handler's FAILED answer to it was taken as its own (Community::Organizations::Policy on moto).
Real aws-sdk v2 (from the built ts-note fixture) against a real loopback server."""

from __future__ import annotations

import http.server
import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from cfn_debug.aws_calls import AwsCall
from cfn_debug.infrastructure import infrastructure_error
from cfn_debug.records import InvokeResult, OutcomeKind

from .conftest import NODE, REPO

pytestmark = pytest.mark.slow  # the ts-note fixture's first build, on a cold cache, takes minutes

HOOKS = REPO / "tui" / "cfn_debug" / "endpoint" / "runtimes" / "node" / "hooks.js"
PAGE = b"<!doctype html>\n<html lang=en>\n<title>500 Internal Server Error</title>\n"
MARK = "\x1e__cfn_debug_aws__ "
SCRIPT = """
const AWS = require('aws-sdk');
const options = { endpoint: process.argv[1], region: 'us-east-1', maxRetries: 0,
  credentials: { accessKeyId: 'a', secretAccessKey: 'b' } };
(async () => {
  for (const call of [
    () => new AWS.Organizations(options).createPolicy({ Content: 'x', Description: 'd',
      Name: 'n', Type: 'TAG_POLICY' }).promise(),
    () => new AWS.S3({ ...options, s3ForcePathStyle: true }).getObject({ Bucket: 'b',
      Key: 'k' }).promise(),
  ]) {
    try { await call(); } catch (_) { /* the handler would answer FAILED */ }
  }
})();
"""


class _Page(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(500, "INTERNAL SERVER ERROR")
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    do_GET = do_PUT = do_POST

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def page_server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_an_error_page_is_recorded_as_one(ts_note_built: Path, page_server: str) -> None:
    assert NODE is not None
    proc = subprocess.run(
        [NODE, "--require", str(HOOKS), "-e", SCRIPT, page_server],
        capture_output=True, text=True, timeout=120, cwd=ts_note_built,
        env={"PATH": "/usr/bin:/bin", "NODE_PATH": str(ts_note_built / "node_modules")},
    )  # fmt: skip
    records = [
        json.loads(line[len(MARK) :]) for line in proc.stdout.split("\n") if line.startswith(MARK)
    ]
    done = [r for r in records if not r.get("start")]
    assert [r["operation"] for r in done] == ["CreatePolicy", "GetObject"], proc.stderr[-2000:]
    for record in done:
        assert "<!doctype html>" in record["error_message"], record
        call = AwsCall(
            record["service"], record["operation"], http_status=record["http_status"],
            error_code=record["error_code"], error_message=record["error_message"],
        )  # fmt: skip
        progress = {"status": "FAILED", "errorCode": "InternalFailure", "message": "x"}
        result = InvokeResult(OutcomeKind.PROGRESS, 0.1, progress=progress, aws_calls=[call])
        why = infrastructure_error(result)
        assert why is not None and "error page" in why, record


S3_CONTROL = """
const AWS = require('aws-sdk');
new AWS.S3Control({ region: 'us-east-1', maxRetries: 0,
  credentials: { accessKeyId: 'a', secretAccessKey: 'b' } })
  .putPublicAccessBlock({ AccountId: '123456789012',
    PublicAccessBlockConfiguration: { BlockPublicAcls: true } }).promise().catch(() => {});
"""


def test_a_host_prefix_does_not_lead_away_from_the_local_aws(
    ts_note_built: Path, page_server: str
) -> None:
    """S3 Control puts the account id in front of the host ("{AccountId}."): pointed at the
    local AWS by the hook, v2 asked for 123456789012.127.0.0.1, which nothing resolves, and
    Community::S3::PublicAccessBlock failed every create ("Inaccessible host")."""
    assert NODE is not None
    env = {"PATH": "/usr/bin:/bin", "NODE_PATH": str(ts_note_built / "node_modules")}
    proc = subprocess.run(
        [NODE, "--require", str(HOOKS), "-e", S3_CONTROL],
        capture_output=True, text=True, timeout=120, cwd=ts_note_built,
        env={**env, "AWS_ENDPOINT_URL": page_server},
    )  # fmt: skip
    lines = proc.stdout.split("\n")
    (record,) = [json.loads(x[len(MARK) :]) for x in lines if x.startswith(MARK) and "params" in x]
    assert record["operation"] == "PutPublicAccessBlock", record
    assert record["http_status"] == 500, record  # the loopback server answered it
