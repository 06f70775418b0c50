"""Fixtures for the local-AWS tests: the fixture projects, the CLI as a process, and a moto
server "the user runs" (for --aws-endpoint-url, --env-vars and the shell's AWS_ENDPOINT_URL)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from cfn_debug.aws.deploy import deploy_setup
from cfn_debug.aws.local import LOCAL_CREDENTIALS, LocalAws

PROJECTS = Path(__file__).parent / "projects"
TABLE_NOTE = PROJECTS / "table-note"
BUCKET_OBJECT = PROJECTS / "bucket-object"
QUEUE_TAG = PROJECTS / "queue-tag"
REPO = Path(__file__).resolve().parents[2]


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without any AWS_* variable of the machine running the tests."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return {**env, "NO_COLOR": "1", "COLUMNS": "200", **extra}


def cfn_debug(
    *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfn_debug.cli", *args],
        capture_output=True,
        text=True,
        env=env or clean_env(),
        timeout=timeout,
        cwd=REPO,
    )


def client(service: str, url: str) -> Any:
    return boto3.client(
        service,
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id=LOCAL_CREDENTIALS["accessKeyId"],
        aws_secret_access_key=LOCAL_CREDENTIALS["secretAccessKey"],
    )


def document(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def user_moto() -> Iterator[dict[str, Any]]:
    """A moto server started outside the CLI, with table-note's setup stack deployed in it."""
    local = LocalAws()
    url = local.start()
    try:
        setup = deploy_setup(
            client("cloudformation", url), TABLE_NOTE / "test" / "setup.yml", stack_name="mine"
        )
        yield {"url": url, "exports": setup.exports}
    finally:
        local.stop()
