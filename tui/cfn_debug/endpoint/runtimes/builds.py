"""What the runtimes that build a project's code (Node, Go, Java) share: the files of its build
inputs (their signature is base.signature), a cache directory per project outside it, and running
a build tool with its last lines kept for the error (the cross-process lock is base.build_lock).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

from cfn_debug.endpoint import proctree
from cfn_debug.endpoint.runtimes.base import BuildFailed, build_cache_dir, state_directory
from cfn_debug.errors import EndpointError

#: Directories never part of a project's sources (build outputs, tools' caches, VCS).
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", ".idea", ".vscode", "node_modules", "__pycache__", ".gradle"}
)
#: How long a build may run before it is given up (a first Go build compiles the standard
#: library: minutes on a slow machine).
BUILD_LIMIT_S = 900.0
#: How many of a failed build's last output lines its error carries.
ERROR_LINES = 12
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def source_files(
    root: Path, suffixes: tuple[str, ...] = ("",), skip: Iterable[Path] = ()
) -> list[str]:
    """The files under ``root`` whose names end with one of ``suffixes`` (every file by
    default), without hidden directories, SKIP_DIRS and the directories in ``skip`` (build
    outputs)."""
    skipped = {os.path.realpath(path) for path in skip}
    found: list[str] = []  # strings: Path objects would cost more than the stat() of each
    stack = [str(root)]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if entry.name in SKIP_DIRS or entry.name.startswith("."):
                    continue
                if not skipped or os.path.realpath(entry.path) not in skipped:
                    stack.append(entry.path)
            elif entry.name.endswith(suffixes):
                found.append(entry.path)
    return sorted(found)


def cache_dir(kind: str, project_dir: Path) -> Path:
    """The build cache of one project for one runtime (base.build_cache_dir: never inside the
    project)."""
    resolved = Path(project_dir).resolve()
    key = hashlib.sha256(str(resolved).encode()).hexdigest()[:16]
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in resolved.name)[:40]
    return state_directory(build_cache_dir() / kind / f"{safe or 'project'}-{key}")


def find_tool(name: str, env_var: str | None = None) -> str | None:
    """The absolute path of a build or run tool: ``$env_var`` when set, else from PATH."""
    chosen = os.environ.get(env_var) if env_var else None
    if chosen:
        return chosen if os.access(chosen, os.X_OK) else None
    return shutil.which(name)


def run_build(argv: list[str], cwd: Path, env: dict[str, str], what: str, hint: str = "") -> None:
    """Run a build tool to its end; a failure is an EndpointError with its last lines."""
    try:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            **proctree.own_group(),
        )
    except OSError as error:
        raise EndpointError(f"{what}: cannot run {argv[0]}: {error.strerror or error}") from None
    try:
        output, _ = process.communicate(timeout=BUILD_LIMIT_S)
    except subprocess.TimeoutExpired:
        proctree.kill_tree(process.pid)
        process.wait()
        raise EndpointError(f"{what}: gave up after {BUILD_LIMIT_S:.0f} s") from None
    except BaseException:
        proctree.kill_tree(process.pid)
        process.wait()
        raise
    if process.returncode != 0:
        text = ANSI.sub("", output.decode("utf-8", "replace")).splitlines()
        raise BuildFailed(
            f"{what} failed (exit status {process.returncode}): {_gist(output)}{hint}",
            output=text[-ERROR_LINES * 4 :],
        )


def _gist(output: bytes) -> str:
    """What a failed build said, on one line: Maven's first [ERROR] line (the rest is its
    generic advice), else the last lines, without terminal escapes."""
    text = ANSI.sub("", output.decode("utf-8", "replace"))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("[ERROR]") and line != "[ERROR]"]
    if errors:
        return errors[0][len("[ERROR]") :].strip()[:600]
    return " | ".join(lines[-ERROR_LINES:])[:1200] or "no output"
