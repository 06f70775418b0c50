"""Fixtures of the export tests (the sample session lives in export_sample.py)."""

from __future__ import annotations

import pytest
from export_sample import build_session

from cfn_debug.journal.session import Session


@pytest.fixture
def session() -> Session:
    return build_session()
