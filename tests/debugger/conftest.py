"""Fixtures of the debugger tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from .support import make_demo_copy


@pytest.fixture()
def demo_copy(tmp_path: Path) -> Path:
    """The demo project with ``breakpoint()`` after the READ handler's first line."""
    return make_demo_copy(tmp_path)
