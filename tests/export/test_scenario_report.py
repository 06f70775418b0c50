"""Scenario results reach CI: `scenario --junit FILE` (one testcase per scenario: a MUST is a
failure, blocked or could-not-run an error, not applicable skipped, the steps in system-out), and
`scenario --journal FILE` keeps them so that `cfn-debug export` writes them in every format."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from junitparser import Error, Failure, JUnitXml, Skipped

from support.cli import run_cli

REPO = Path(__file__).resolve().parents[2]


def cfn_debug(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    state = tmp_path / "demo-state"
    env = {**os.environ, "CFN_DEBUG_DEMO_STATE": str(state), "NO_COLOR": "1"}
    return run_cli(*args, env=env, timeout=240, cwd=REPO)


def _cases(path: Path) -> dict[str, object]:
    xml = JUnitXml.fromfile(str(path))
    return {case.name: case for suite in xml for case in suite}


@pytest.mark.slow
def test_scenario_all_junit_has_one_testcase_per_scenario(tmp_path: Path) -> None:
    out = tmp_path / "out.xml"
    proc = cfn_debug(tmp_path, "scenario", "all", "--max-delay", "0", "--junit", str(out), "--json")
    assert proc.returncode in (0, 1), proc.stderr
    document = json.loads(proc.stdout)
    outcomes = {s["name"]: s["outcome"] for s in document["scenarios"]}
    cases = _cases(out)
    assert sorted(cases) == sorted(outcomes)
    for name, outcome in outcomes.items():
        kinds = {type(r) for r in cases[name].result}  # type: ignore[attr-defined]
        expected = {
            "failed": {Failure},
            "blocked": {Error},
            "error": {Error},
            "skipped": {Skipped},
        }.get(outcome, set())
        assert kinds == expected, (name, outcome, kinds)
        assert "step 1" in (cases[name].system_out or "") or outcome == "skipped"  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_fault_is_a_failure_with_its_steps_and_the_journal_exports_it(tmp_path: Path) -> None:
    junit = tmp_path / "scenarios.xml"
    journal = tmp_path / "journal.jsonl"
    proc = cfn_debug(
        tmp_path,
        "scenario",
        "delete-read",
        "create-read",
        "--fault",
        "DeleteReturnsModel",
        "--max-delay",
        "0",
        "--junit",
        str(junit),
        "--journal",
        str(journal),
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    cases = _cases(junit)
    assert sorted(cases) == ["create-read", "delete-read"]
    [failure] = list(cases["delete-read"].result)  # type: ignore[attr-defined]
    assert isinstance(failure, Failure) and "delete-success-no-model" in (failure.text or "")
    out = cases["delete-read"].system_out or ""  # type: ignore[attr-defined]
    assert "step 1: create" in out and "delete" in out
    assert list(cases["create-read"].result) == []  # type: ignore[attr-defined]

    entries = [json.loads(line) for line in journal.read_text().splitlines()]
    ended = [e for e in entries if e["type"] == "scenario_ended"]
    assert sorted(e["scenario"]["name"] for e in ended) == ["create-read", "delete-read"]

    exported = tmp_path / "export.xml"
    proc = cfn_debug(tmp_path, "export", str(journal), "--format", "junit", "-o", str(exported))
    assert proc.returncode == 0, proc.stderr
    assert sorted(_cases(exported)) == ["create-read", "delete-read"]
    for fmt in ("md", "html"):
        proc = cfn_debug(tmp_path, "export", str(journal), "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        assert "Scenarios" in proc.stdout and "delete-read" in proc.stdout
        assert "delete-success-no-model" in proc.stdout
    proc = cfn_debug(tmp_path, "export", str(journal), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    names = [s["name"] for s in json.loads(proc.stdout).get("scenarios", [])]
    assert sorted(names) == ["create-read", "delete-read"]
