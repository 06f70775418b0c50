"""Fixtures of the demo tests: every test runs the real handlers against its own store."""

from __future__ import annotations

from pathlib import Path

import demo_support  # noqa: F401  (puts the demo's src/ on sys.path)
import pytest


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own empty widget store."""
    state = tmp_path / "demo-state"
    monkeypatch.setenv("CFN_DEBUG_DEMO_STATE", str(state))
    return state
