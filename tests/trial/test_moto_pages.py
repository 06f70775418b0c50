"""moto's server answers an operation it does not implement (or fails on) with an HTML 500 page.
For an XML protocol (EC2 here, as IAM, STS, SQS's query API) botocore cannot parse it and raises
ResponseParserError, which a correct handler (mapping ClientError) lets through: that said
nothing about its contract, yet was a MUST handler-exception (exit 1). Found trying
AWSSamples::EC2::ImportKeyPair on generated inputs (moto fails on key material it cannot read)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.aws.conftest import cfn_debug, document

FPGA_WATCH = Path(__file__).parent / "projects" / "fpga-watch"


@pytest.mark.slow
def test_an_html_page_botocore_cannot_parse_is_an_infrastructure_limit() -> None:
    proc = cfn_debug("run", "--project", str(FPGA_WATCH), "--local-aws", "--json", "--no-journal")
    doc = document(proc)
    (run,) = doc["runs"]
    assert proc.returncode == 2, json.dumps(run, indent=1)[:3000]
    assert [f for s in run["steps"] for f in s["findings"]] == []
    (error,) = doc["errors"]
    assert error["kind"] == "infrastructure"
    assert "ec2 DescribeFpgaImages" in error["message"]
    assert "moto does not implement it" in error["message"]
    (call,) = run["steps"][0]["aws_calls"]
    assert call["error_code"] == "ResponseParserError"
