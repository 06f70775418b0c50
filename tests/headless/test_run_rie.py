"""`cfn-debug run` against the AWS Lambda Runtime Interface Emulator gives the findings it gives
against the embedded endpoint, for the same demo handler and the same events."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.rie import find_rie_binary, start_rie

from .test_run_demo import EVENTS, REPO, cfn_debug

DEMO_SRC = REPO / "tui" / "cfn_debug" / "demo" / "src"
HANDLER = "cfndebug_demo_widget.handlers.test_entrypoint"
# Timing rules depend on the machine, not the handler: left out of the comparison.
TIMING_RULES = {"invocation-time-warning", "invocation-time-limit", "chain-timeout"}
CASES = [
    "create.json",
    "read.json",
    "fault-missing-primary-identifier.json",
    "fault-unhandled-exception.json",
    "fault-read-in-progress.json",
    "fault-schema-violation.json",
    "fault-identifier-changes-mid-chain.json",
    "fault-delete-returns-model.json",
]

pytestmark = pytest.mark.skipif(
    find_rie_binary() is None,
    reason="no Runtime Interface Emulator binary: it ships in the aws-sam-cli wheel "
    "(samcli/local/rapid/), which could not be downloaded or found",
)


def _findings(document: dict[str, Any]) -> dict[str, list[tuple[int | None, str, str]]]:
    per_event = {}
    for run in document["runs"]:
        found = [
            (f["step"], f["rule_id"], f["level"])
            for step in run["steps"]
            for f in step["findings"]
            if f["rule_id"] not in TIMING_RULES
        ]
        per_event[Path(run["event_path"]).name] = sorted(found, key=str)
    return per_event


def test_same_findings_from_the_emulator_and_the_embedded_endpoint(tmp_path: Path) -> None:
    files = [str(EVENTS / name) for name in CASES]
    embedded = cfn_debug("run", *files, "--json", "--max-delay", "0", state=tmp_path / "e")
    assert embedded.returncode == 1, embedded.stderr

    rie_state = tmp_path / "r"
    rie_state.mkdir()
    with start_rie(DEMO_SRC, HANDLER, env={"CFN_DEBUG_DEMO_STATE": str(rie_state)}) as url:
        emulated = cfn_debug(
            "run",
            *files,
            "--json",
            "--max-delay",
            "0",
            "--endpoint",
            url,
            "--function-name",
            "function",
            state=tmp_path / "unused",
        )
    assert emulated.returncode == 1, emulated.stderr
    ours, theirs = json.loads(embedded.stdout), json.loads(emulated.stdout)
    assert [r["final_status"] for r in ours["runs"]] == [r["final_status"] for r in theirs["runs"]]
    assert _findings(ours) == _findings(theirs)
    assert any(_findings(ours).values()), "the faults must give findings to compare"
