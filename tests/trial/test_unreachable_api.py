"""A type that keeps its resource through a web API that is not AWS, run where that API cannot
be reached (Example::Monitoring::Website, a TypeScript type of aws-cloudformation-samples that
calls New Relic, run offline): its update answered FAILED InternalFailure "getaddrinfo
ENOTFOUND" and update-without-create reported a MUST (not NotFound) on a handler that answers
NotFound when the API says 404. Reproduced with a fixture type of our own whose API address is
one nothing listens on (tests/trial/projects/remote-monitor)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.aws.conftest import cfn_debug, document

REMOTE_MONITOR = Path(__file__).parent / "projects" / "remote-monitor"


@pytest.mark.slow
def test_a_host_the_handler_cannot_reach_is_no_finding() -> None:
    proc = cfn_debug(
        "scenario", "update-without-create", "--project", str(REMOTE_MONITOR), "--json",
    )  # fmt: skip
    doc = document(proc)
    assert proc.returncode == 2, proc.stdout[-3000:] + proc.stderr[-2000:]
    (scenario,) = doc["scenarios"]
    assert scenario["must_findings"] == 0
    assert not [v for v in scenario["verdicts"] if v["status"] == "fail"], scenario["verdicts"]
    assert "could not reach a host it calls" in scenario["error"]
    assert "Connection refused" in scenario["error"]
