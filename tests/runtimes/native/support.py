"""Helpers of the Go and Java runtime tests: invoking the embedded endpoint and finding the
processes a project's workers left."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import httpx


def invoke(url: str, function: str, body: Any, timeout: float = 120) -> httpx.Response:
    return httpx.post(
        f"{url}/2015-03-31/functions/{function}/invocations",
        content=json.dumps(body).encode(),
        timeout=timeout,
    )


def event(project: Path, name: str, **request: Any) -> dict[str, Any]:
    """An event of the project's sam-tests/, its request updated with ``request``."""
    data = json.loads((project / "sam-tests" / name).read_text())
    data["request"].update(request)
    return data


def processes_mentioning(text: str) -> list[int]:
    """The pids whose command line names ``text`` (a project path, a built binary)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if text.encode() in cmdline:
            found.append(int(entry))
    return found


def gone(text: str, within_s: float = 10.0) -> bool:
    """Whether no process names ``text`` within ``within_s`` (a loaded CI machine is slow)."""
    deadline = time.monotonic() + within_s
    while processes_mentioning(text):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True
