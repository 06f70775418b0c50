"""Fixtures for the embedded endpoint tests: real endpoints on loopback, real worker processes."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import boto3
import httpx
import pytest
from botocore import UNSIGNED
from botocore.config import Config

from cfn_debug.endpoint.server import EmbeddedEndpoint

PROJECTS = Path(__file__).parent / "projects"
BASIC = PROJECTS / "basic"
BOOTSTRAPS = ["awslambdaric", "portable"]
#: A credential the host "has": it must never reach a handler.
HOST_SECRET = "AKIAHOSTSHOULDNOTLEAK"


def invoke_path(name: str) -> str:
    return f"/2015-03-31/functions/{name}/invocations"


def lambda_client(url: str):
    return boto3.client(
        "lambda",
        endpoint_url=url,
        region_name="us-east-1",
        config=Config(signature_version=UNSIGNED, retries={"max_attempts": 0}, read_timeout=30),
    )


@pytest.fixture(scope="module", params=BOOTSTRAPS)
def endpoint(request: pytest.FixtureRequest) -> Iterator[EmbeddedEndpoint]:
    """The basic fixture project, served with each bootstrap in turn."""
    host = {
        "AWS_ACCESS_KEY_ID": HOST_SECRET,
        "FROM_GLOBALS": "shell",  # declared by the template: the shell's value wins
        "OVERRIDDEN": "shell",  # declared, but --env-vars wins over the shell
        "UNDECLARED_HOST_VARIABLE": "shell",  # not declared: never passed
    }
    saved = {key: os.environ.get(key) for key in host}
    os.environ.update(host)
    try:
        ep = EmbeddedEndpoint(
            BASIC,
            env_vars={
                "Parameters": {"CFN_DEBUG_BOOTSTRAP": request.param, "FROM_PARAMETERS": "p"},
                "Environment": {"OVERRIDDEN": "cli"},
            },
        )
        ep.start()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    ep.bootstrap = request.param  # type: ignore[attr-defined]
    yield ep
    ep.stop()


@pytest.fixture
def http(endpoint: EmbeddedEndpoint) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=endpoint.url, timeout=30) as client:
        yield client


@pytest.fixture
def project_copy(tmp_path: Path):
    """Copy a fixture project into tmp_path (for tests that edit the handler's source)."""

    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(PROJECTS / name, target)
        return target

    return copy
