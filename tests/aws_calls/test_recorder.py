"""The worker-side recorder on its own: what one record holds, and that it catches clients of
sessions made before or after it was installed (in a fresh interpreter: installing is global)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from cfn_debug.endpoint import aws_recorder
from cfn_debug.text.redact import REDACTED

TUI = Path(__file__).resolve().parents[2] / "tui"

SCRIPT = textwrap.dedent(
    """
    import sys
    if sys.argv[2] == "imported-first":
        import botocore.session  # botocore is loaded before the recorder
    import importlib.util
    spec = importlib.util.spec_from_file_location("rec", sys.argv[3])
    rec = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rec)
    rec.install()
    import boto3
    from botocore.config import Config
    url = sys.argv[1]
    session = boto3.Session(
        aws_access_key_id="k", aws_secret_access_key="s", region_name="us-east-1"
    )
    sm = session.client("secretsmanager", endpoint_url=url)
    sm.create_secret(Name=sys.argv[2], SecretString="the-secret-string", Description="d" * 300)
    ddb = session.client("dynamodb", endpoint_url=url)
    try:
        ddb.describe_table(TableName="absent")
    except ddb.exceptions.ResourceNotFoundException:
        print("caught")
    off = boto3.client("sqs", endpoint_url="http://127.0.0.1:9", region_name="us-east-1",
                       aws_access_key_id="k", aws_secret_access_key="s",
                       config=Config(retries={"max_attempts": 2, "mode": "standard"},
                                     connect_timeout=1))
    try:
        off.list_queues()
    except Exception as error:
        print(type(error).__name__)
    """
)


def _records(moto_url: str, mode: str) -> tuple[list[dict[str, Any]], list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, moto_url, mode, aws_recorder.__file__],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    records, other = [], []
    for line in done.stdout.split("\n")[:-1]:  # not splitlines(): it splits on \x1e too
        record = aws_recorder.parse_record(line)
        if record is not None:
            records.append(record)
        else:
            other.append(line)
    return records, other


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["imported-first", "recorder-first"])
def test_every_call_is_recorded_whenever_botocore_was_imported(moto_url: str, mode: str) -> None:
    records, other = _records(moto_url, mode)
    assert other == ["caught", "EndpointConnectionError"]
    starts = [record for record in records if record.get("start")]
    ended = [record for record in records if not record.get("start")]
    # each call first says it starts (a call that never ends is still known), then how it ended
    assert [(r["id"], r["operation"]) for r in starts] == [(r["id"], r["operation"]) for r in ended]
    secret, describe, refused = ended
    assert (secret["service"], secret["operation"], secret["http_status"]) == (
        "secretsmanager",
        "CreateSecret",
        200,
    )
    assert secret["params"]["SecretString"] == REDACTED  # the model marks it sensitive
    assert secret["params"]["Description"].startswith("d" * 256)
    assert secret["params"]["Description"].endswith("(300 characters)")
    assert (describe["operation"], describe["http_status"], describe["error_code"]) == (
        "DescribeTable",
        400,
        "ResourceNotFoundException",
    )
    assert (refused["service"], refused["operation"], refused["http_status"]) == (
        "sqs",
        "ListQueues",
        None,
    )
    assert refused["error_code"] == "EndpointConnectionError"
    # retries={"max_attempts": 2} is two retries after the first attempt
    assert (refused["attempts"], describe["attempts"]) == (3, 1)
    assert all(record["duration_ms"] >= 0 for record in ended)


def test_secret_names_are_masked_and_paging_tokens_kept() -> None:
    params = {
        "MasterUserPassword": "p",
        "SessionToken": "t",
        "NextToken": "page-2",
        "ContinuationToken": "c",
        "ClientToken": "idem",
        "ClientRequestToken": "idem2",
        "Body": b"12345",
        "Item": {"K": {"S": "v"}},
        "Big": {"k": "v" * 2000},
    }
    out = aws_recorder._top_level(params, None, "svc", "Op")
    assert out["MasterUserPassword"] == out["SessionToken"] == REDACTED
    assert (out["NextToken"], out["ContinuationToken"], out["ClientToken"]) == (
        "page-2",
        "c",
        "idem",
    )
    assert out["Body"] == "<5 bytes>"
    assert out["Item"] == {"K": {"S": "v"}}
    assert out["Big"].startswith("<object: 1 keys")


def test_a_call_whose_answer_never_came_says_so() -> None:
    from cfn_debug.endpoint.logs import NO_ANSWER, LogBuffer

    def line(record: dict[str, Any]) -> bytes:
        return (aws_recorder.RECORD_MARK + json.dumps(record) + "\n").encode()

    buffer = LogBuffer()
    buffer.add_raw(line({"id": 1, "start": True, "service": "s3", "operation": "ListBuckets"}))
    buffer.add_raw(line({"id": 2, "start": True, "service": "sqs", "operation": "ListQueues"}))
    buffer.add_raw(line({"id": 1, "service": "s3", "operation": "ListBuckets", "http_status": 200}))
    done, waiting = buffer.calls()
    assert done == {"service": "s3", "operation": "ListBuckets", "http_status": 200}
    assert (waiting["operation"], waiting["error_message"]) == ("ListQueues", NO_ANSWER)
    assert waiting["duration_ms"] >= 0


def test_the_masked_text_is_the_engines() -> None:
    assert aws_recorder.MASKED == REDACTED


def test_a_record_after_an_unfinished_log_line_is_still_taken_out() -> None:
    from cfn_debug.endpoint.logs import LogBuffer

    buffer = LogBuffer()
    record = {"service": "s3", "operation": "ListBuckets", "http_status": 200}
    buffer.add_raw(b"partial " + (aws_recorder.RECORD_MARK + json.dumps(record) + "\n").encode())
    buffer.add_raw(b"next line\n")
    assert buffer.lines() == ["partial ", "next line"]
    assert buffer.calls() == [record]


def test_a_forged_record_nested_too_deep_harms_nothing() -> None:
    from cfn_debug.endpoint.logs import LogBuffer
    from cfn_debug.step_calls import redact_call_dicts

    deep = "[" * 100_000 + "]" * 100_000
    buffer = LogBuffer()
    buffer.add_raw((aws_recorder.RECORD_MARK + deep + "\n").encode())
    assert buffer.calls() == []  # not a record: kept as the log line it is
    nested: Any = {}
    for _ in range(5_000):
        nested = {"a": nested}
    (call,) = redact_call_dicts([{"service": "s3", "operation": "X", "params": nested}])
    assert call["params"] == {"note": "nested too deep to record"}


SHARED_SCRIPT = textwrap.dedent(
    """
    import sys
    if sys.argv[1] == "imported-first":
        import botocore.session
    import importlib.util
    spec = importlib.util.spec_from_file_location("rec", sys.argv[2])
    rec = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rec)
    rec.install()
    import botocore.session
    first, second = botocore.session.Session(), botocore.session.Session()
    one = first.get_component("data_loader").load_service_model("sts", "service-2")
    two = second.get_component("data_loader").load_service_model("sts", "service-2")
    print("shared" if one is two else "parsed twice")
    same = first._events._alias_name_cache is second._events._alias_name_cache
    print("aliases shared" if same and first._events._alias_name_cache else "aliased twice")
    """
)


@pytest.mark.parametrize("order", ["imported-first", "installed-first"])
def test_sessions_of_one_worker_share_botocore_data_files(order: str) -> None:
    """A handler that builds a session per request (cloudformation-cli-python-lib does) parses
    botocore's models and checks its built-in event handlers once per worker, not once per
    invocation."""
    recorder = TUI / "cfn_debug" / "endpoint" / "aws_recorder.py"
    proc = subprocess.run(
        [sys.executable, "-c", SHARED_SCRIPT, order, str(recorder)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.stdout.split() == ["shared", "aliases", "shared"], proc.stderr
