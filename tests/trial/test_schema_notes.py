"""`cfn-debug schema` says when a schema requires a readOnly property (AwsCommunity::any::
sleepTimer requires its readOnly Title): no template can set it, so the author learns why
cfn-debug does not ask requests for it."""

from __future__ import annotations

from pathlib import Path

from tests.aws.conftest import cfn_debug

STAMP_SCHEMA = Path(__file__).parent / "projects" / "stamp" / "cfndebug-fixture-stamp.json"


def test_a_required_read_only_property_is_a_schema_warning() -> None:
    proc = cfn_debug("schema", str(STAMP_SCHEMA))
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if "/required/1" in line]
    assert len(lines) == 1, proc.stdout
    assert lines[0].startswith(f"{STAMP_SCHEMA}: /required/1: warning: 'StampId' is required")
    assert "readOnly" in lines[0]
