"""Where cfn-debug keeps its own files: the state directory and what lives under it.

Everything is under ``$XDG_STATE_HOME/cfn-debug`` (else ``~/.local/state/cfn-debug``): session
journals, crash reports, screenshots and the cached virtual environments of projects' handler
requirements; and where the bundled demo projects are. Nothing is ever written into the
user's project.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

#: The bundled demo resource type's project directory (``--demo``).
DEMO_DIR = Path(__file__).resolve().parent / "demo"
#: The bundled demo hook's project directory (``--demo hook``).
DEMO_HOOK_DIR = Path(__file__).resolve().parent / "demo_hook"


def state_dir() -> Path:
    """$XDG_STATE_HOME/cfn-debug, else ~/.local/state/cfn-debug."""
    base = os.environ.get("XDG_STATE_HOME")
    root = Path(base) if base else Path.home() / ".local" / "state"
    return root / "cfn-debug"


def default_journal_path(now: datetime | None = None) -> Path:
    """A new session journal's path: journals/<UTC timestamp>.jsonl."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%S_%fZ")
    return state_dir() / "journals" / f"{stamp}.jsonl"


def crash_dir() -> Path:
    """Crash reports (beside the journals)."""
    return state_dir() / "crashes"


def screenshot_dir() -> Path:
    """Where Ctrl+S saves screenshots unless ``--screenshot-dir`` says otherwise."""
    return state_dir() / "screenshots"


def env_root() -> Path:
    """The cache of virtual environments built for projects' handler requirements."""
    return state_dir() / "envs"


def runtimes_dir() -> Path:
    """What the embedded endpoint's runtimes keep (build locks, version checks)."""
    return state_dir() / "runtimes"


def compiled_dir() -> Path:
    """Code cfn-debug generates from installed libraries' data once and keeps (the provider
    definition meta-schema's validator), keyed by those libraries' versions."""
    return state_dir() / "compiled"
