"""The local AWS (moto's real server, started as --local-aws starts it) refuses web pages: no
CORS grant, no foreign Host, no browser request, no recorder or reset; it runs in a private
temporary directory, not cfn-debug's working directory; the SDK's own calls still work."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import httpx
import pytest

from cfn_debug.aws.local import LocalAws

from .conftest import client

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local() -> LocalAws:
    aws = LocalAws()
    aws.start()
    yield aws
    aws.stop()


def test_a_web_page_gets_nothing_from_the_local_aws(local: LocalAws) -> None:
    """moto's data (what the handlers stored) is refused to an Origin, a Sec-Fetch request, a
    rebound Host and a CORS preflight, with no Access-Control-Allow-Origin in any answer."""
    client("sqs", local.url).create_queue(QueueName="cfn-debug-screen-probe")
    data = f"{local.url}/moto-api/data.json"
    attempts = [
        httpx.get(data, headers={"Origin": "http://attacker.example"}),
        httpx.get(data, headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"}),
        httpx.get(data, headers={"Host": f"attacker.example:{local.port}"}),
        httpx.options(
            local.url + "/",
            headers={
                "Origin": "http://attacker.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "x-amz-target",
            },
        ),
    ]
    for answer in attempts:
        assert answer.status_code == 403, (answer.request.headers, answer.text[:200])
        assert "access-control-allow-origin" not in answer.headers
        assert "cfn-debug-screen-probe" not in answer.text


def test_recorder_and_reset_are_refused_even_to_a_plain_client(local: LocalAws) -> None:
    for path in (
        "/moto-api/recorder/start-recording",
        "/moto-api/recorder/upload-recording",
        "/moto-api/reset",
        "/moto-api/reset-auth",
    ):
        answer = httpx.post(local.url + path, content=b"{}")
        assert answer.status_code == 403, (path, answer.text[:200])


def test_the_sdk_works_and_gets_no_cors_headers(local: LocalAws) -> None:
    sqs = client("sqs", local.url)
    url = sqs.create_queue(QueueName="cfn-debug-screen-sdk")["QueueUrl"]
    assert url in sqs.list_queues()["QueueUrls"]
    plain = httpx.get(f"{local.url}/moto-api/data.json")
    assert plain.status_code == 200
    assert "access-control-allow-origin" not in plain.headers


def test_the_local_aws_runs_in_a_private_directory(local: LocalAws) -> None:
    assert local._process is not None
    cwd = Path(os.readlink(f"/proc/{local._process.pid}/cwd"))
    assert cwd != Path.cwd()
    assert stat.S_IMODE(cwd.stat().st_mode) == 0o700
    assert cwd.name.startswith("cfn-debug-local-aws-")
