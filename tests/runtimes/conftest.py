"""Fixtures of the runtime tests: the toolchains they need, and the TypeScript fixture built once.

The ts-note fixture is committed without node_modules/ and dist/. ``ts_note_built`` copies it into
a cache directory outside the repository (``$CFN_DEBUG_TEST_CACHE``, else
``$XDG_CACHE_HOME/cfn-debug-tests``, else ``~/.cache/cfn-debug-tests``) keyed by the fixture's
files, and has the Node runtime build it there (``npm ci``, ``npm run build``) once: later
sessions reuse it. A test that changes the sources works on ``ts_note_copy``: the sources and
dist/ copied, node_modules linked to the cached one.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli import run_cli

PROJECTS = Path(__file__).parent / "projects"
TS_NOTE = PROJECTS / "ts-note"
REPO = Path(__file__).resolve().parents[2]
#: The bundled Python demo's event with the same planted fault as ts-note's (a DELETE that
#: returns its model).
DEMO_FAULT = REPO / "sample_events" / "fault-delete-returns-model.json"
NODE = shutil.which("node")
NPM = shutil.which("npm")
BUILT_MARKER = ".cfn-debug-test-built"
OLDEST_NODE = 18


def _node_major(node: str | None) -> int | None:
    if node is None:
        return None
    try:
        version = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30
        ).stdout
        return int(version.strip().lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def _why_no_node() -> str | None:
    """Why the Node runtime's tests cannot run here, or None when they can."""
    if NODE is None:
        return "node is not on PATH: the Node runtime's tests need Node.js 18 or newer"
    major = _node_major(NODE)
    if major is None or major < OLDEST_NODE:
        return f"{NODE} is not Node.js {OLDEST_NODE} or newer: the Node runtime's tests need it"
    return None


NO_NODE = _why_no_node()
NO_NPM = NO_NODE or (
    "npm is not on PATH: the TypeScript fixture is built with npm" if NPM is None else None
)

needs_node = pytest.mark.skipif(NO_NODE is not None, reason=NO_NODE or "")
needs_npm = pytest.mark.skipif(NO_NPM is not None, reason=NO_NPM or "")


def cache_root() -> Path:
    configured = os.environ.get("CFN_DEBUG_TEST_CACHE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cfn-debug-tests"


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without the machine's AWS_* variables, wide and colourless."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return {**env, "NO_COLOR": "1", "COLUMNS": "200", **extra}


def cfn_debug(
    *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=env or clean_env(), timeout=timeout, cwd=REPO)


def _source_files(root: Path) -> list[Path]:
    skip = {"node_modules", "dist"}
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and not skip & set(path.relative_to(root).parts):
            found.append(path)
    return found


def _fixture_key(root: Path) -> str:
    digest = hashlib.sha256()
    for path in _source_files(root):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def build_with_the_runtime(project: Path) -> None:
    """Build ``project`` as the endpoint does (NodeRuntime.prepare: npm ci, npm run build)."""
    from cfn_debug.endpoint.runtimes import RuntimeOptions, runtime_for
    from cfn_debug.endpoint.template import load_functions

    functions = load_functions(project)
    runtime = runtime_for(next(iter(functions.values())), project, RuntimeOptions())
    runtime.check()
    runtime.prepare()


@pytest.fixture(scope="session")
def ts_note_built() -> Path:
    """The ts-note project with node_modules/ and dist/, built once per fixture content."""
    if NO_NPM is not None:
        pytest.skip(NO_NPM)
    cache = cache_root()
    target = cache / f"ts-note-{_fixture_key(TS_NOTE)}"
    with _locked(cache / "ts-note.lock"):
        if not (target / BUILT_MARKER).is_file():
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(TS_NOTE, target, ignore=shutil.ignore_patterns("node_modules", "dist"))
            build_with_the_runtime(target)
            (target / BUILT_MARKER).touch()
    return target


@pytest.fixture
def ts_note_copy(ts_note_built: Path, tmp_path: Path) -> Path:
    """A copy of the built ts-note to change: sources and dist/ copied (times kept, so dist/
    stays newer than src/), node_modules linked to the cached one."""
    target = tmp_path / "ts-note"
    shutil.copytree(
        ts_note_built,
        target,
        ignore=shutil.ignore_patterns("node_modules", BUILT_MARKER),
        symlinks=True,
    )
    (target / "node_modules").symlink_to(ts_note_built / "node_modules")
    return target
