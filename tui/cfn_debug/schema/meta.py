"""The provider definition meta-schema layer of schema loading, and the nesting-depth limit."""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sys
import tempfile
import warnings
from functools import cache
from importlib import util
from pathlib import Path
from types import ModuleType
from typing import Any

from cfn_debug.locations import compiled_dir
from cfn_debug.schema.notes import SchemaNote
from cfn_debug.schema.pointers import join_pointer

#: Deeper schemas are refused before any recursive walk (ours, jsonschema's, rpdk's) meets them.
MAX_SCHEMA_DEPTH = 200


def _nesting_depth(data: Any) -> int:
    """How many objects and arrays deep ``data`` goes, without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_SCHEMA_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def _meta_schema_notes(data: dict[str, Any]) -> list[SchemaNote]:
    """Where the schema departs from the provider definition meta-schema (rpdk's), one note
    per departure; nothing without rpdk.

    Warnings, not refusals: the layer exists only where rpdk is installed, and published AWS
    schemas depart from it in ways that do not matter to cfn-debug.
    """
    quick = _meta_fast_check()
    if quick is not None and quick(data):
        return []
    validator = _meta_validator()
    if validator is None:
        return []
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    return [
        SchemaNote(
            join_pointer("", *e.absolute_path),
            "warning",
            f"does not match the resource provider definition meta-schema: {_short(e.message)}",
        )
        for e in errors
    ]


def _short(message: str) -> str:
    return message if len(message) <= 120 else message[:117] + "..."


@cache
def _meta_fast_check() -> Any:
    """The provider definition meta-schema compiled by fastjsonschema: True only for a schema
    with nothing to report (rpdk's jsonschema validator, some 25x slower on the AWS schemas,
    then lists what is wrong). Its references resolve to rpdk's own files and the Draft 7
    meta-schema jsonschema ships, never to the network. None where it cannot be built.

    The compiled code is kept under the state directory, keyed by Python's and the libraries'
    versions: generating and compiling it takes longer than the rest of a schema's loading."""
    key = _compiled_key()
    if key is None:
        return None
    path = compiled_dir() / f"provider-definition-{key}.marshal"
    validate = _load_compiled(path)
    if validate is None:
        compiled = _compile_meta()
        if compiled is None:
            return None
        _keep(path, marshal.dumps(compiled))
        validate = _load_compiled(path, compiled)
    if validate is None:
        return None

    def check(data: Any) -> bool:
        try:
            validate(data)
        except Exception:
            return False
        return True

    return check


def _compiled_key() -> str | None:
    """The cache key of the compiled meta-schema: Python's version and the installed files it is
    made from (rpdk's schemas, fastjsonschema, the Draft 7 meta-schema's package), as they are
    now; None when one of them is missing."""
    parts = [sys.version]
    try:
        for name in ("fastjsonschema", "jsonschema_specifications", "rpdk.core"):
            spec = util.find_spec(name)
            if spec is None or spec.origin is None:
                return None
            files = [Path(spec.origin)]
            if name == "rpdk.core":
                files += sorted((files[0].parent / "data" / "schema").glob("*.json"))
            for file in files:
                stat = file.stat()
                parts.append(f"{file}\0{stat.st_mtime_ns}\0{stat.st_size}")
    except (ImportError, OSError, ValueError):
        return None
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def _load_compiled(path: Path, compiled: tuple[str, Any] | None = None) -> Any:
    """The validate function of ``compiled`` (its entry name and code), else of the one kept
    at ``path``; None when there is none or it does not load."""
    try:
        name, code = compiled if compiled is not None else marshal.loads(path.read_bytes())
        namespace: dict[str, Any] = {}
        exec(code, namespace)  # cfn-debug's own compiled output (see _compile_meta)
        return namespace[name]
    except Exception:  # none kept, or kept by another build: compiled again
        return None


def _compile_meta() -> tuple[str, Any] | None:
    """(entry function name, code object) of the meta-schema's fastjsonschema validator."""
    rpdk = _rpdk()
    return None if rpdk is None else rpdk.compile_meta()


def _keep(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (nothing said when it cannot be)."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".compiled-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


@cache
def _meta_validator() -> Any:
    """rpdk's own validator for the provider definition meta-schema, or None without rpdk."""
    rpdk = _rpdk()
    return None if rpdk is None else rpdk.meta_validator()


@cache
def _rpdk() -> ModuleType | None:
    """schema.meta_rpdk (the meta-schema as rpdk ships it), or None without rpdk."""
    try:
        with warnings.catch_warnings():  # rpdk imports names jsonschema has deprecated
            warnings.simplefilter("ignore", DeprecationWarning)
            # lazy: rpdk loads only to compile the check or for a schema it does not pass
            from cfn_debug.schema import meta_rpdk
    except ImportError:
        return None
    return meta_rpdk
