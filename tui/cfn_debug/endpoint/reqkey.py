"""What a cached handler environment depends on: the requirements file and every file it names.

A requirements file may name other files: ``-r``/``--requirement`` and ``-c``/``--constraint``
files (read in turn), and local paths to install (``-e ./pkg``, ``./pkg``, ``../dist/x.whl``,
``name @ file:///...``). Two checkouts with the same folder name and the same requirements.txt
may point at different packages, and a change to a file named by ``-r`` changes what pip
installs. ``requirements_key`` is a digest of: the requirements file's resolved path, its bytes,
each referenced file's resolved path and bytes, and for each referenced directory its resolved
path and every file under it (relative path, size, modification time: a changed package source
rebuilds, without reading every byte of a large tree). Paths are resolved against the directory of
the file that names them, as pip does (pip runs there).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

#: Options whose value is another requirements file (read in turn).
_FILE_OPTIONS = ("-r", "--requirement", "-c", "--constraint")
#: Options whose value may be a local path to install.
_PATH_OPTIONS = ("-e", "--editable")
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
#: Files looked at under one referenced directory, at most (a key of a huge tree stays cheap).
MAX_TREE_FILES = 20_000


def _option(line: str, names: tuple[str, ...]) -> str | None:
    """The value of ``line`` if it is one of the options ``names`` (``-r x``, ``-rx``,
    ``--requirement=x``, ``--requirement x``), else None."""
    for name in names:
        if line == name:
            return None
        if line.startswith(name + " ") or line.startswith(name + "="):
            return line[len(name) + 1 :].strip()
        if len(name) == 2 and line.startswith(name) and not line.startswith(name + "-"):
            return line[2:].strip()
    return None


def _local_path(text: str) -> str | None:
    """The local path a requirement names, if it names one (a file: URL, ``./x``, ``/x``)."""
    if "@" in text and " @ " in text:
        text = text.split(" @ ", 1)[1].strip()
    if text.startswith("file:"):
        return re.sub(r"^file:(//)?", "", text) or None
    if _URL.match(text):
        return None
    if text.startswith((".", "/", "~")) or os.sep in text:
        return text.split(";", 1)[0].split("[", 1)[0].strip()
    return None


def _tree(key: hashlib._Hash, path: Path) -> None:
    count = 0
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d not in (".git", "__pycache__", ".venv"))
        for name in sorted(files):
            count += 1
            if count > MAX_TREE_FILES:
                return
            full = Path(root) / name
            try:
                info = full.stat()
            except OSError:
                continue
            relative = full.relative_to(path).as_posix()
            key.update(f"\0{relative}:{info.st_size}:{info.st_mtime_ns}".encode())


def requirements_key(requirements: Path, interpreter: str = "") -> str:
    """The hex digest described in the module docstring (plus ``interpreter``, which the caller
    makes its version and path)."""
    key = hashlib.sha256(interpreter.encode())
    seen: set[Path] = set()
    pending = [requirements]
    while pending:
        current = pending.pop()
        try:
            resolved = current.resolve()
        except OSError:
            resolved = current
        if resolved in seen:
            continue
        seen.add(resolved)
        try:
            content = resolved.read_bytes()
        except OSError:
            key.update(f"\0missing:{resolved}".encode())
            continue
        key.update(f"\0file:{resolved}:{len(content)}\0".encode() + content)
        base = resolved.parent
        for raw in content.decode("utf-8", errors="replace").splitlines():
            line = raw.split(" #", 1)[0].strip()
            if not line or line.startswith("#"):
                continue
            named = _option(line, _FILE_OPTIONS)
            if named:
                pending.append(base / os.path.expanduser(named))
                continue
            local = _local_path(_option(line, _PATH_OPTIONS) or line)
            if local is None:
                continue
            target = (base / os.path.expanduser(local)).resolve()
            if target.is_dir():
                key.update(f"\0dir:{target}".encode())
                _tree(key, target)
            else:
                try:
                    key.update(f"\0path:{target}\0".encode() + target.read_bytes())
                except OSError:
                    key.update(f"\0missing:{target}".encode())
    return key.hexdigest()
