"""Suite-wide isolation: no test writes into the real user's state directory or demo store, and
the processes the tests start handle Ctrl-C (SIGINT) as usual whatever pytest inherited."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

# pytest started from a background shell (`pytest &`) inherits SIGINT ignored, and so would every
# process the tests start: a `serve` stopped with SIGINT would never stop. A handler of our own
# is reset to the default at exec, so the children get Ctrl-C's default handling back.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True, scope="session")
def _isolated_state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Journals (XDG_STATE_HOME) and the demo's widget store default to per-session temp dirs.

    Set on os.environ so that subprocesses (the CLI, the endpoint's workers) inherit them; tests
    that need their own state still set CFN_DEBUG_DEMO_STATE themselves.
    """
    root = tmp_path_factory.mktemp("isolated-state")
    saved = {key: os.environ.get(key) for key in ("XDG_STATE_HOME", "CFN_DEBUG_DEMO_STATE")}
    os.environ["XDG_STATE_HOME"] = str(root / "xdg-state")
    os.environ.setdefault("CFN_DEBUG_DEMO_STATE", str(root / "demo-state"))
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture
def state_home() -> Path:
    """Where journals go by default during the tests."""
    return Path(os.environ["XDG_STATE_HOME"])
