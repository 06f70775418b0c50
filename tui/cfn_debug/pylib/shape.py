"""Which request shape the handler's cloudformation-cli-python-lib reads.

The library parses a request into dataclasses (``TestEvent`` and ``UnmodelledRequest`` for the
test entrypoint, ``HandlerRequest`` and ``RequestData`` for the resource entrypoint). Up to
2.0.0 those classes take exactly their fields: a key they do not declare (``region`` or
``awsAccountId`` in a test request) is a ``TypeError`` before the handler runs. Later versions
ignore unknown keys in the resource entrypoint's classes but still not in ``UnmodelledRequest``.

``find_library`` locates the library the handler imports (its code directory first, as Lambda
puts it first on ``sys.path``, then the interpreter's site-packages) without importing it, and
reads each class's fields from the source with ``ast``. ``fit_payload`` then drops from a
payload the keys cfn-debug filled in itself that the library cannot read, and fills the fields
an old library requires that a newer one made optional.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

PACKAGE = "cloudformation_cli_python_lib"
DISTRIBUTION = "cloudformation-cli-python-lib"
#: The classes whose fields make the request shape.
CLASSES = ("TestEvent", "UnmodelledRequest", "HandlerRequest", "RequestData")
#: Values for fields an old library requires and cfn-debug does not otherwise send. An empty
#: providerLogGroupName keeps the library from shipping logs to CloudWatch.
REQUIRED_FILL: dict[str, Any] = {
    "responseEndpoint": "",
    "resourceTypeVersion": "00000001",
    "providerLogGroupName": "",
    "stackId": "",
    "logicalResourceId": "MyResource",
    "resourceType": "",
}


@dataclass(frozen=True)
class ClassFields:
    """One dataclass of the library: its fields, those without a default, and whether it
    ignores keys it does not declare (a custom ``__init__``)."""

    names: frozenset[str]
    required: frozenset[str]
    tolerant: bool


@dataclass(frozen=True)
class LibraryShape:
    """The request classes of one installed cloudformation-cli-python-lib."""

    version: str  # "2.0.0", or "unknown" (vendored without its dist-info)
    path: Path  # the package's directory
    classes: dict[str, ClassFields] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{DISTRIBUTION} {self.version}"

    def needs_fitting(self) -> bool:
        """Whether a request as cfn-debug builds it for the newest library would not fit this
        one (an old version); False for the versions that read it as it is."""
        sent = {
            "TestEvent": {"credentials", "action", "request", "callbackContext", "region"},
            "UnmodelledRequest": {"clientRequestToken", "region", "awsAccountId"},
            "HandlerRequest": {"action", "awsAccountId", "bearerToken", "region", "requestData"},
            "RequestData": {"resourceProperties", "logicalResourceId", "callerCredentials"},
        }
        for name, keys in sent.items():
            found = self.classes.get(name)
            if found is None:
                continue
            if found.required - keys or not all(self.reads(name, k) for k in keys):
                return True
        return False

    def reads(self, class_name: str, key: str) -> bool:
        """Whether ``class_name`` takes ``key`` (True when the class is unknown or tolerant)."""
        found = self.classes.get(class_name)
        return found is None or found.tolerant or key in found.names


def parse_classes(source: str) -> dict[str, ClassFields]:
    """The fields of the request classes in the library's ``utils.py`` source."""
    found: dict[str, ClassFields] = {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return found
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or node.name not in CLASSES:
            continue
        names: set[str] = set()
        required: set[str] = set()
        tolerant = False
        for item in node.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                names.add(item.target.id)
                if item.value is None:
                    required.add(item.target.id)
            elif isinstance(item, ast.FunctionDef) and item.name == "__init__":
                tolerant = True
        found[node.name] = ClassFields(frozenset(names), frozenset(required), tolerant)
    return found


def _version_beside(package_dir: Path) -> str:
    parent = package_dir.parent
    try:
        entries = sorted(os.listdir(parent))
    except OSError:
        return "unknown"
    prefix = f"{PACKAGE}-"
    for entry in entries:
        if entry.startswith(prefix) and entry.endswith((".dist-info", ".egg-info")):
            return entry[len(prefix) :].rsplit(".", 1)[0].split("-")[0] or "unknown"
    return "unknown"


@lru_cache(maxsize=32)
def _shape_at(package_dir: Path, mtime_ns: int) -> LibraryShape:
    try:
        source = (package_dir / "utils.py").read_text(encoding="utf-8", errors="replace")
    except OSError:
        source = ""
    return LibraryShape(_version_beside(package_dir), package_dir, parse_classes(source))


def shape_in(dirs: Iterable[Path]) -> LibraryShape | None:
    """The library found first in ``dirs`` (each a ``sys.path`` entry), or None."""
    for directory in dirs:
        package_dir = Path(directory) / PACKAGE
        utils = package_dir / "utils.py"
        try:
            mtime = utils.stat().st_mtime_ns
        except OSError:
            continue
        return _shape_at(package_dir, mtime)
    return None


def _venv_paths(python: Path) -> list[Path] | None:
    """A virtual environment's site-packages and the paths its ``.pth`` files add, read from
    disk; None when ``python`` is not in a venv."""
    root = python.parent.parent
    if not (root / "pyvenv.cfg").is_file():
        return None
    paths: list[Path] = []
    for site_dir in sorted((root / "lib").glob("python*/site-packages")):
        paths.append(site_dir)
        for pth in sorted(site_dir.glob("*.pth")):
            try:
                lines = pth.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            for line in lines:
                line = line.strip()
                if line and not line.startswith(("#", "import ")) and os.path.isabs(line):
                    paths.append(Path(line))
    return paths


@lru_cache(maxsize=16)
def _interpreter_paths(python: str) -> tuple[Path, ...]:
    # a venv's python is a symlink to its base interpreter: compare the paths, not their targets
    if os.path.abspath(python) == os.path.abspath(sys.executable):
        return tuple(Path(p) for p in sys.path if p)
    from_disk = _venv_paths(Path(python))
    if from_disk is not None:
        return tuple(from_disk)
    try:
        out = subprocess.run(
            [python, "-c", "import json, sys; print(json.dumps(sys.path))"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        ).stdout
        return tuple(Path(p) for p in json.loads(out) if p)
    except (OSError, ValueError, subprocess.SubprocessError):
        return ()


def find_library(python: str | Path | None, code_dirs: Sequence[Path] = ()) -> LibraryShape | None:
    """The library a handler run by ``python`` with ``code_dirs`` first on its path imports."""
    dirs = list(code_dirs)
    if python is not None:
        dirs.extend(_interpreter_paths(str(python)))
    return shape_in(dirs)


def _fit(
    mapping: dict[str, Any], shape: LibraryShape, class_name: str, keep: frozenset[str]
) -> tuple[dict[str, Any], list[str]]:
    found = shape.classes.get(class_name)
    if found is None:
        return mapping, []
    dropped = [k for k in mapping if not found.tolerant and k not in found.names and k not in keep]
    fitted = {k: v for k, v in mapping.items() if k not in dropped}
    for name in sorted(found.required - fitted.keys()):
        if name in REQUIRED_FILL:
            fitted[name] = REQUIRED_FILL[name]
    return fitted, dropped


def fit_payload(
    payload: dict[str, Any], shape: LibraryShape | None, keep: Iterable[str] = ()
) -> tuple[dict[str, Any], list[str]]:
    """``payload`` with the keys the library cannot read dropped (except ``keep``: what the
    user wrote, sent as written so the library's refusal names it) and the fields it requires
    filled; and the dropped keys. A sam-style payload has ``request``; a HandlerRequest has
    ``requestData``. The payload is not mutated."""
    if shape is None:
        return payload, []
    kept = frozenset(keep)
    if isinstance(payload.get("request"), dict):
        outer, dropped = _fit(payload, shape, "TestEvent", kept)
        inner, more = _fit(payload["request"], shape, "UnmodelledRequest", kept)
        outer["request"] = inner
        return outer, dropped + [f"request.{k}" for k in more]
    outer, dropped = _fit(payload, shape, "HandlerRequest", kept)
    if isinstance(payload.get("requestData"), dict):
        inner, more = _fit(payload["requestData"], shape, "RequestData", kept)
        outer["requestData"] = inner
        dropped += [f"requestData.{k}" for k in more]
    return outer, dropped
