"""Small resource-type projects generated for dashboard tests (handlers without the library)."""

from __future__ import annotations

from pathlib import Path

from cfn_debug.demo.long_chain import long_chain_project


def counting_project(root: Path, invocations: int, *, pause_s: float = 0.0) -> Path:
    """A project whose create.json chain has exactly ``invocations`` steps (each invocation
    sleeps ``pause_s`` first: a chain a test can act on while it runs). The same project
    bench/tui.py measures (cfn_debug.demo.long_chain)."""
    return long_chain_project(root, invocations, pause_s=pause_s)
