"""`cfn-debug run` with no EVENT runs a sam-tests/ directory in the order a resource lives.

File names sort `delete` before `read` and `update`; `cfn test` and a user's own runs go create,
read, update, list, delete, and a delete first makes the rest fail for no fault of the handler.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "tui" / "cfn_debug" / "demo"


def test_run_without_event_goes_create_read_update_list_delete(tmp_path: Path) -> None:
    project = tmp_path / "widget"
    shutil.copytree(DEMO, project, ignore=shutil.ignore_patterns("example_inputs", "__pycache__"))
    tests_dir = project / "sam-tests"
    tests_dir.mkdir()
    for name in ("delete.json", "list.json", "read.json", "update.json", "create.json"):
        shutil.copy(REPO / "sample_events" / name, tests_dir / name)
    env = {**os.environ, "CFN_DEBUG_DEMO_STATE": str(tmp_path / "state"), "NO_COLOR": "1"}
    command = [sys.executable, "-m", "cfn_debug.cli", "run", "--project", str(project)]
    done = subprocess.run(
        [*command, "--json", "--max-delay", "0", "--no-journal"],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        cwd=tmp_path,
    )
    assert done.returncode in (0, 1), done.stderr
    runs = json.loads(done.stdout)["runs"]
    order = [Path(run["event_path"]).stem for run in runs]
    assert order == ["create", "read", "update", "list", "delete"], order
