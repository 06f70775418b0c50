"""A function that cannot load ends `scenario all` at the first scenario that meets it.

Every scenario would meet the same Runtime.ImportModuleError (or syntax error) and print the same
crash fifteen times; the rest are reported as not run, naming the one that found it, exit 2.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "tui" / "cfn_debug" / "demo"


def test_scenario_all_stops_at_a_function_that_cannot_load(tmp_path: Path) -> None:
    project = tmp_path / "broken"
    shutil.copytree(DEMO, project, ignore=shutil.ignore_patterns("__pycache__"))
    handlers = project / "src" / "cfndebug_demo_widget" / "handlers.py"
    handlers.write_text(handlers.read_text() + "\nimport cfn_debug_no_such_module\n")
    command = [sys.executable, "-m", "cfn_debug.cli", "scenario", "all", "--project"]
    done = subprocess.run(
        [*command, str(project), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    scenarios = json.loads(done.stdout)["scenarios"]
    played = [s for s in scenarios if s["actions"]]
    assert len(played) == 1, [s["name"] for s in played]
    assert "cfn_debug_no_such_module" in played[0]["error"]
    rest = [s for s in scenarios if not s["actions"]]
    assert len(rest) == len(scenarios) - 1 >= 10
    assert all(s["outcome"] == "error" and played[0]["name"] in s["error"] for s in rest)
