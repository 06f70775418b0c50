from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def demo_state(tmp_path: Path) -> Path:
    """A fresh demo state directory per test (the demo seeds its widgets into it)."""
    state = tmp_path / "demo-state"
    state.mkdir()
    return state


@pytest.fixture
def unused_port() -> int:
    """A loopback port nothing listens on (bound, read, released)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
