"""The Java executable entry point takes the HandlerRequest as one command-line argument (Linux
caps one at 128 KiB): a longer one goes gzip-compressed under "__COMPRESSED__" (which the
plugin's wrapper reads), and one still too long is refused as Lambda refuses a payload (HTTP
413), never handed to a JVM that could not start."""

from __future__ import annotations

import base64
import gzip
import json
import os
from pathlib import Path

import pytest

from cfn_debug.endpoint.runtimes.base import RuntimeOptions
from cfn_debug.endpoint.runtimes.handler_request import RequestRefused
from cfn_debug.endpoint.runtimes.java import MAX_ARGUMENT, JavaRuntime
from cfn_debug.endpoint.template import FunctionSpec

from .conftest import JAVA_NOTE


def _runtime() -> JavaRuntime:
    spec = FunctionSpec(
        "TypeFunction", "x.HandlerWrapper::handleRequest", JAVA_NOTE, 60, 256, "java17"
    )
    return JavaRuntime(spec, Path(JAVA_NOTE), RuntimeOptions())


def _event(body: str) -> bytes:
    request = {"clientRequestToken": "t", "desiredResourceState": {"Title": "a", "Body": body}}
    return json.dumps({"action": "CREATE", "request": request, "region": "us-east-1"}).encode()


def test_a_short_request_goes_as_the_handler_request_itself() -> None:
    sent = json.loads(_runtime().adapt_request(_event("short")))
    assert sent["bearerToken"] == "t" and sent["resourceType"] == "CfnDebug::Fixture::JavaNote"


def test_a_long_request_goes_compressed_as_the_plugin_reads_it() -> None:
    sent = _runtime().adapt_request(_event("x" * 200_000))
    assert len(sent) <= MAX_ARGUMENT
    packed = json.loads(sent)["__COMPRESSED__"]
    inner = json.loads(gzip.decompress(base64.b64decode(packed)))
    assert inner["requestData"]["resourceProperties"]["Body"] == "x" * 200_000


def test_a_request_too_long_even_compressed_is_refused_with_a_413() -> None:
    noise = base64.b64encode(os.urandom(150_000)).decode()
    with pytest.raises(RequestRefused) as refused:
        _runtime().adapt_request(_event(noise))
    assert refused.value.status == 413
    assert "131,071 bytes" in refused.value.message
