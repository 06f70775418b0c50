"""The recorder sets botocore up right after the handler imports it (it never imports botocore
itself): however often it is asked to, one finder waits on sys.meta_path, and it leaves once
every module it waited for is imported."""

from __future__ import annotations

import os
import subprocess
import sys

from support.cli import REPO

_CHILD = """
import sys
from cfn_debug.endpoint import aws_recorder
assert "botocore" not in sys.modules
aws_recorder.share_botocore_setup()
aws_recorder.share_botocore_setup()
waiting = [f for f in sys.meta_path if isinstance(f, aws_recorder._AfterImport)]
print(len(waiting))
import botocore.loaders, botocore.hooks
print(len([f for f in sys.meta_path if isinstance(f, aws_recorder._AfterImport)]))
"""


def test_two_calls_leave_one_finder_and_it_leaves_after_the_imports() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO / "tui")},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "0"]
