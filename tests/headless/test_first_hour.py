"""What a newcomer meets in the first hour, headless: each a clear answer, with the right exit code.

- an unknown subcommand is a usage error (exit 2), not the full-screen dashboard;
- ``--endpoint aws`` without a region is a usage error naming --region, not an HTTP ERROR step;
- a module typo in template.yml's ``Handler`` is said to be one (not a missing requirement, not an
  HTTP ERROR);
- ``run --type-configuration`` sends it (the demo's faults are switched by it);
- ``run`` with no EVENT reads the inputs directory `scenario` reads (``inputs/``, else
  ``example_inputs/``), not both.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from support.cli import run_cli

REPO = Path(__file__).resolve().parents[2]
NOTE = REPO / "tests" / "scenarios" / "projects" / "note"


def cfn_debug(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    base = {
        **os.environ,
        "CFN_DEBUG_DEMO_STATE": str(tmp_path / "demo"),
        "CORPUS_STATE": str(tmp_path / "corpus"),
        "NO_COLOR": "1",
    }
    return run_cli(
        *args, env={**base, **(env or {})}, timeout=120, cwd=tmp_path, stdin=subprocess.DEVNULL
    )


def test_an_unknown_subcommand_is_a_usage_error(tmp_path: Path) -> None:
    proc = cfn_debug(tmp_path, "scenarios", "all")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "unknown command 'scenarios'" in proc.stderr
    assert "scenario" in proc.stderr  # the commands there are
    assert proc.stdout == ""


def test_endpoint_aws_without_a_region_is_a_usage_error(tmp_path: Path) -> None:
    env = {
        "AWS_CONFIG_FILE": str(tmp_path / "no-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-credentials"),
        "AWS_REGION": "",
        "AWS_DEFAULT_REGION": "",
    }
    event = str(REPO / "sample_events" / "read.json")
    proc = cfn_debug(
        tmp_path, "run", "--endpoint", "aws", "--function-name", "f", "--no-journal", event, env=env
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "--region" in proc.stderr
    assert "HTTP ERROR" not in proc.stdout + proc.stderr


def test_a_handler_module_typo_in_the_template_is_named_as_such(tmp_path: Path) -> None:
    project = tmp_path / "note"
    shutil.copytree(NOTE, project)
    template = project / "template.yml"
    template.write_text(
        template.read_text().replace(
            "corpus_note.handlers.test_entrypoint", "corpus_notes.handlers.test_entrypoint"
        )
    )
    event = str(project / "inputs" / "inputs_1_create.json")
    proc = cfn_debug(tmp_path, "run", "--project", str(project), "--no-journal", event)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out
    assert "Handler" in out and "template.yml" in out and "corpus_notes" in out
    assert "requirements.txt" not in out
    assert "HTTP ERROR" not in out


def test_run_sends_the_type_configuration_given(tmp_path: Path) -> None:
    event = str(REPO / "sample_events" / "delete.json")
    proc = cfn_debug(
        tmp_path,
        "run",
        event,
        "--type-configuration",
        '{"Fault": "DeleteReturnsModel"}',
        "--max-delay",
        "0",
        "--no-journal",
        "--json",
    )
    assert proc.returncode == 1, proc.stderr
    [run] = json.loads(proc.stdout)["runs"]
    assert run["steps"][0]["request"]["request"]["typeConfiguration"] == {
        "Fault": "DeleteReturnsModel"
    }
    rules = {f["rule_id"] for s in run["steps"] for f in s["findings"]}
    assert "delete-success-no-model" in rules


def test_run_without_events_reads_the_inputs_scenario_reads(tmp_path: Path) -> None:
    project = tmp_path / "note"
    shutil.copytree(NOTE, project)
    leftover = project / "example_inputs"  # what `cfn init` leaves behind
    leftover.mkdir()
    (leftover / "inputs_1_create.json").write_text('{"Bucket": "no-such", "Key": "x"}')
    proc = cfn_debug(
        tmp_path, "run", "--project", str(project), "--no-journal", "--json", "--max-delay", "0"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    paths = {Path(r["event_path"]).parent.name for r in json.loads(proc.stdout)["runs"]}
    assert paths == {"inputs"}
