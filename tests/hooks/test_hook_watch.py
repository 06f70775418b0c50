"""Watch mode on a hook (the real Watcher, a private copy of the bucket-check fixture): a saved
handler that plants a contract fault is re-run and reported as a new finding, and fixing it as
fixed; the hook's events come back from their input file on every re-run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cfn_debug.watch import Comparison, RerunStarted
from cfn_debug.workspace import Workspace

from .conftest import BUCKET_CHECK

HANDLERS = Path("src") / "cfndebug_test_bucketcheck" / "handlers.py"
CORRECT = 'return "the bucket has no default encryption (BucketEncryption)"'
BROKEN = 'return ""  # planted: a refusal without a message'


@pytest.mark.slow
async def test_a_saved_fault_is_new_and_its_fix_is_fixed(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "watch"))
    from watch_support import edit, start

    project = tmp_path / "bucket-check"
    shutil.copytree(BUCKET_CHECK, project, ignore=shutil.ignore_patterns("__pycache__"))
    workspace = Workspace.open(project, type_configuration='{"RequireVersioning": "false"}')
    try:
        invalid = next(
            e for e in workspace.events if e.name.startswith("inputs/inputs_1_invalid pre_create")
        )
        session = await start(workspace, [invalid])
        edit(project / HANDLERS, CORRECT, BROKEN)
        rerun = await session.next(RerunStarted)
        assert rerun.event_name == invalid.name
        broken = await session.next(Comparison)
        assert [f.rule_id for f in broken.new] == ["hook-failed-message"]
        edit(project / HANDLERS, BROKEN, CORRECT)
        repaired = await session.next(Comparison)
        assert [f.rule_id for f in repaired.fixed] == ["hook-failed-message"]
        await session.stop()
    finally:
        workspace.close()
