"""The dashboard's start-up path leaves the engine for later: importing what `cfn-debug ui` loads
before its App starts (the ui command's module, the App) loads none of the modules its lazy
imports keep for after the first frame (each such import is commented where it
sits: the workspace, the chain and watch mode, the journal, the exporter, the schema checks, the
scenarios, the rule catalogue, the JSON editor's TextArea, the event parser and the redaction
patterns). The AWS options (``cfn_debug.aws.session``) are not among them: the ui command reads
them from its command line (``AppConfig.from_args``) before the App starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LATER = (
    "cfn_debug.workspace",
    "cfn_debug.chain",
    "cfn_debug.watch",
    "cfn_debug.journal.session",
    "cfn_debug.export",
    "cfn_debug.schema",
    "cfn_debug.scenarios",
    "cfn_debug.contract",
    "cfn_debug.events",
    "cfn_debug.text.redact",
    "textual.widgets._text_area",
)


def test_importing_the_dashboard_loads_no_engine_work_before_the_first_frame() -> None:
    code = (
        "import sys\n"
        "import cfn_debug.app.command\n"
        f"print(' '.join(m for m in {LATER!r} if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tui")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.split() == []
