"""Fixtures of the reliability tests: one embedded endpoint on the hostile project per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cfn_debug.workspace import Workspace
from reliability.support import HOSTILE


@pytest.fixture(scope="module")
def hostile() -> Iterator[Workspace]:
    """The hostile fixture project served by a real embedded endpoint (real worker processes)."""
    workspace = Workspace.open(HOSTILE)
    yield workspace
    workspace.close()
