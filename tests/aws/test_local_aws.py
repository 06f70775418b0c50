"""The local AWS (moto's real server in a child process) and the setup stack deployed into it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cfn_debug.aws.deploy import deploy_setup
from cfn_debug.aws.local import LocalAws
from cfn_debug.aws.setup_stack import SetupError, SetupProgress, find_setup_template

from .conftest import BUCKET_OBJECT, QUEUE_TAG, TABLE_NOTE, client


@pytest.mark.slow
def test_starts_on_loopback_on_a_free_port_and_stops() -> None:
    first, second = LocalAws(), LocalAws()
    try:
        assert first.start().startswith("http://127.0.0.1:")
        assert second.start() != first.url  # each session its own port
        assert client("sqs", first.url).list_queues().get("QueueUrls", []) == []
    finally:
        second.stop()
    first.stop()
    assert not first.running
    import httpx

    with pytest.raises(httpx.TransportError):
        httpx.get(first.url, timeout=2)


@pytest.mark.slow
def test_the_local_aws_ends_when_its_parent_dies(tmp_path: Path) -> None:
    """However cfn-debug ends (here: SIGKILL), the moto child does not outlive it."""
    script = (
        "from cfn_debug.aws.local import LocalAws\n"
        "import sys, time\n"
        "l = LocalAws(); print(l.start(), l._process.pid, flush=True); time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    _url, child = parent.stdout.readline().split()
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    for _ in range(100):  # not a timing assertion: waits up to 10 s for the exit it expects
        try:
            os.kill(int(child), 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.kill(int(child), signal.SIGKILL)
        pytest.fail("the local AWS outlived the process that started it")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("project", "exports"),
    [
        (TABLE_NOTE, {"CfnDebugFixtureNotesTable"}),
        (BUCKET_OBJECT, {"CfnDebugFixtureObjectsBucket"}),
        (QUEUE_TAG, {"CfnDebugFixtureNoticeQueueUrl", "CfnDebugFixtureNoticeQueueArn"}),
    ],
)
def test_the_setup_stacks_deploy_and_export(project: Path, exports: set[str]) -> None:
    steps: list[SetupProgress] = []
    with LocalAws() as local:
        template = find_setup_template(project)
        assert template == project / "test" / "setup.yml"
        result = deploy_setup(client("cloudformation", local.url), template, progress=steps.append)
    assert set(result.exports) == exports
    assert all(result.exports.values())
    assert steps[0].total == len(result.resources) and steps[-1].done == steps[-1].total


@pytest.mark.slow
def test_a_resource_moto_cannot_create_is_one_line_naming_it(tmp_path: Path) -> None:
    """moto's Lambda refuses a function whose code bucket does not exist, with its own JSON
    error inside CloudFormation's XML answer: one line with the service's answer and the
    resources it may be about, not an unreadable answer."""
    template = tmp_path / "setup.yml"
    template.write_text(
        "Resources:\n"
        "  Queue:\n    Type: AWS::SQS::Queue\n"
        "  Fn:\n    Type: AWS::Lambda::Function\n"
        "    Properties: {Runtime: python3.12, Handler: app.handler,"
        " Role: arn:aws:iam::123456789012:role/r, Code: {S3Bucket: no-such-bucket, S3Key: k}}\n"
    )
    with LocalAws() as local, pytest.raises(SetupError) as caught:
        deploy_setup(client("cloudformation", local.url), template)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{template}: the setup stack could not be deployed")
    assert "Fn (AWS::Lambda::Function)" in message
    assert "NoSuchBucket" in message and "control character" not in message


@pytest.mark.slow
def test_setup_template_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(SetupError, match="--setup: no such template file"):
        find_setup_template(tmp_path, tmp_path / "nope.yml")
    assert find_setup_template(tmp_path) is None
    bad = tmp_path / "bad.yml"
    bad.write_text("Resources: [unclosed\n")
    with LocalAws() as local, pytest.raises(SetupError, match=r"bad.yml: invalid template at"):
        deploy_setup(client("cloudformation", local.url), bad)
