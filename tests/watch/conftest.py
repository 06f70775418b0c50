"""Fixtures of the watch tests: a private demo project, its own widget store, its workspace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from watch_support import copy_demo, open_workspace

from cfn_debug.workspace import Workspace


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_demo(tmp_path / "widget")


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "demo-state"


@pytest.fixture
def workspace(project: Path, state: Path) -> Iterator[Workspace]:
    ws = open_workspace(project, state)
    try:
        yield ws
    finally:
        ws.close()
