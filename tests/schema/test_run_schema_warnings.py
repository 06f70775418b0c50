"""`cfn-debug run` with a schema cfn-debug works around: it runs, and says so once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO_SCHEMA = REPO / "tui" / "cfn_debug" / "demo" / "cfndebug-demo-widget.json"
EVENTS = REPO / "sample_events"


def test_a_dangling_pointer_is_said_once_and_does_not_stop_the_run(tmp_path: Path) -> None:
    data = json.loads(DEMO_SCHEMA.read_text(encoding="utf-8"))
    data["createOnlyProperties"] = [*data.get("createOnlyProperties", []), "/properties/Gone"]
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(data), encoding="utf-8")
    env = {**os.environ, "CFN_DEBUG_DEMO_STATE": str(tmp_path / "state"), "NO_COLOR": "1"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "cfn_debug.cli",
            "run",
            str(EVENTS / "create.json"),
            str(EVENTS / "read.json"),
            "--schema",
            str(schema),
            "--max-delay",
            "0",
            "--no-journal",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        cwd=REPO,
    )
    assert proc.returncode in (0, 1), proc.stderr  # it ran (before: exit 2, schema refused)
    output = proc.stdout + proc.stderr
    assert "Traceback" not in output
    lines = [line for line in output.splitlines() if "'/properties/Gone'" in line]
    assert len(lines) == 1, output
    assert lines[0].startswith("schema warning: ")
    assert "/createOnlyProperties/" in lines[0]
