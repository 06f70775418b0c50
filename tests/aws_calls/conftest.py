"""A real moto server on loopback, and the fixture resource type that calls it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

PROJECT = Path(__file__).parent / "project"
TABLE = "records"
BUCKET = "record-bucket"
QUEUE = "record-queue"


@pytest.fixture(scope="session")
def moto_url() -> Iterator[str]:
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's per-request access log

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    aws = {
        "endpoint_url": url,
        "region_name": "us-east-1",
        "aws_access_key_id": "testing",
        "aws_secret_access_key": "testing",
    }
    boto3.client("dynamodb", **aws).create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "Name", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "Name", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    boto3.client("s3", **aws).create_bucket(Bucket=BUCKET)
    boto3.client("sqs", **aws).create_queue(QueueName=QUEUE)
    try:
        yield url
    finally:
        server.stop()


def write_event(directory: Path, name: str, action: str, model: dict[str, Any]) -> Path:
    """A sam-style test event for the fixture type."""
    path = directory / f"{name}.json"
    event = {
        "action": action,
        "request": {"clientRequestToken": f"token-{name}", "desiredResourceState": model},
        "callbackContext": None,
    }
    path.write_text(json.dumps(event))
    return path


def env_vars(moto_url: str) -> dict[str, dict[str, str]]:
    """What `--env-vars` gives every function: point its boto3 at the moto server."""
    return {"Parameters": {"AWS_ENDPOINT_URL": moto_url}}
