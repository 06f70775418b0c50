"""The hook fixtures and the CLI as a process (with a HOME of its own: the CLI's
~/.cfn-cli/typeConfiguration.json of the machine running the tests is never read)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from support.cli import run_cli

PROJECTS = Path(__file__).parent / "projects"
BUCKET_CHECK = PROJECTS / "bucket-check"
STAGED_REVIEW = PROJECTS / "staged-review"
PARAMETER_GATE = PROJECTS / "parameter-gate"
LAMBDA_HOOK = PROJECTS / "lambda-hook"
REPO = Path(__file__).resolve().parents[2]


def cfn_debug(*args: str, home: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update({"NO_COLOR": "1", "COLUMNS": "200", "HOME": str(home)})
    env.setdefault("XDG_STATE_HOME", str(home / "state"))
    return run_cli(*args, env=env, timeout=timeout, cwd=REPO)


def document(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def findings(run: dict[str, Any]) -> list[tuple[str, str]]:
    steps = [f for s in run["steps"] for f in s["findings"]]
    return [(f["rule_id"], f["level"]) for f in steps + run["chain_findings"]]
