"""The VS Code ``launch.json`` entry that attaches to a worker's debugpy (``--debug-port``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def launch_entry(port: int, code_dir: Path, local_dir: Path | None = None) -> dict[str, Any]:
    """An "attach" configuration for 127.0.0.1:PORT. The worker runs the code where it is (no
    container), so the remote root is ``code_dir``; ``local_dir`` is the folder the editor has
    open on the same files when they differ (a ``build/`` code directory built from ``src/``)."""
    remote = str(Path(code_dir).resolve())
    local = str(Path(local_dir).resolve()) if local_dir is not None else remote
    return {
        "name": "cfn-debug: attach to the handler",
        "type": "debugpy",
        "request": "attach",
        "connect": {"host": "127.0.0.1", "port": port},
        "pathMappings": [{"localRoot": local, "remoteRoot": remote}],
        "justMyCode": True,
    }


def launch_text(port: int, code_dirs: list[Path]) -> str:
    """What cfn-debug prints: where to paste it, then the entry (one per code directory)."""
    entries = [launch_entry(port, code_dir) for code_dir in dict.fromkeys(code_dirs)]
    body = json.dumps(entries[0] if len(entries) == 1 else entries, indent=2)
    return (
        f"[cfn-debug] the handler's worker waits for a debugger on 127.0.0.1:{port}; in VS Code "
        'add this to .vscode/launch.json "configurations" and start it (Run and Debug):'
        f"\n{body}"
    )
