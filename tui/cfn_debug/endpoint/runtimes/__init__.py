"""Which runtime runs a function: the dispatch from a template's ``Runtime`` to a runtime module.

``runtime_for(spec, project_dir, options)`` reads the function's ``Runtime`` (else the project's
``.rpdk-config`` language, else Python, the endpoint's default) and returns that runtime's
object. Each family lives in a module of its own, imported only when a function uses it:

    python   python3.x                                       python.py
    node     nodejsN.x (an older N, which published types      node.py
             still name, runs on the local Node.js too)
    provided provided, provided.al2, provided.al2023, go1.x   provided.py
    java     java8, java8.al2, java11, java17, java21         java.py

A runtime outside this table, or a family whose module is not there, is an ``UnsupportedRuntime``
error (exit 2) naming it and how to run it anyway (SAM's start-lambda and ``--endpoint``).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from cfn_debug.endpoint.runtimes.base import Launch, Runtime, RuntimeOptions, rpdk_config
from cfn_debug.errors import EndpointError

if TYPE_CHECKING:
    from cfn_debug.endpoint.template import FunctionSpec

__all__ = [
    "FAMILIES",
    "Launch",
    "Runtime",
    "RuntimeOptions",
    "UnsupportedRuntime",
    "endpoint_url_note",
    "family_of",
    "project_language",
    "runtime_for",
]

#: family -> "module:Class" of its runtime.
FAMILIES = {
    "python": "cfn_debug.endpoint.runtimes.python:PythonRuntime",
    "node": "cfn_debug.endpoint.runtimes.node:NodeRuntime",
    "provided": "cfn_debug.endpoint.runtimes.provided:ProvidedRuntime",
    "java": "cfn_debug.endpoint.runtimes.java:JavaRuntime",
}

_RUNTIMES = (
    (re.compile(r"^python3(\.\d+)?$"), "python"),
    (re.compile(r"^nodejs\d+\.x$"), "node"),
    (re.compile(r"^(provided(\.al2|\.al2023)?|go1\.x)$"), "provided"),
    (re.compile(r"^java(8|8\.al2|11|17|21)$"), "java"),
)
#: `.rpdk-config` "language" -> family, for a project whose template names no runtime.
_LANGUAGES = (
    (re.compile(r"^python3?\d*$"), "python"),
    (re.compile(r"^(typescript|javascript|nodejs)"), "node"),
    (re.compile(r"^go$"), "provided"),
    (re.compile(r"^java"), "java"),
)
SUPPORTED = "python3.x, nodejsN.x, provided(.al2, .al2023), go1.x, java8.al2/11/17/21"


class UnsupportedRuntime(EndpointError):
    """A function whose runtime the embedded endpoint cannot run (exit 2)."""


def _how_else(name: str) -> str:
    return (
        f"run it in SAM instead (sam local start-lambda, then cfn-debug ... --endpoint "
        f"http://127.0.0.1:3001), or with the runtime's own emulator; {name} was not started"
    )


def family_of(runtime: str | None, language: str | None = None) -> str | None:
    """The family of a ``Runtime`` value (else of a ``.rpdk-config`` language); "python" when
    neither is given; None for a runtime or language outside the table."""
    if runtime:
        return next((family for pattern, family in _RUNTIMES if pattern.match(runtime)), None)
    if language:
        return next((family for pattern, family in _LANGUAGES if pattern.match(language)), None)
    return "python"


def project_language(project_dir: Path) -> str | None:
    """The ``language`` of the project's ``.rpdk-config`` (None without one)."""
    language = rpdk_config(Path(project_dir)).get("language")
    return language if isinstance(language, str) else None


def runtime_for(
    spec: FunctionSpec,
    project_dir: Path,
    options: RuntimeOptions | None = None,
    *,
    language: str | None = None,
) -> Runtime:
    """The runtime object of one function; UnsupportedRuntime when the endpoint cannot run it."""
    family = family_of(spec.runtime, language)
    shown = spec.runtime or (f"language {language}" if language else "?")
    if family is None:
        raise UnsupportedRuntime(
            f"runtime {shown!r} is not one the embedded endpoint runs ({SUPPORTED}); "
            + _how_else(spec.name),
            field=f"{spec.name}.Runtime",
        )
    module_name, _, class_name = FAMILIES[family].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        raise UnsupportedRuntime(
            f"runtime {shown!r} is not run by this version of the embedded endpoint; "
            + _how_else(spec.name),
            field=f"{spec.name}.Runtime",
        ) from None
    runtime_class: type[Runtime] = getattr(module, class_name)
    return runtime_class(spec, Path(project_dir), options or RuntimeOptions())


def endpoint_url_note(runtimes: Iterable[Runtime]) -> str | None:
    """What the AWS line adds for handlers in other languages than Python: which of their SDKs
    read AWS_ENDPOINT_URL, which every worker gets. None for Python-only endpoints."""
    families: dict[str, str] = {}
    for runtime in runtimes:
        families.setdefault(runtime.family, runtime.endpoint_url_readers)
    if set(families) <= {"python"}:
        return None
    readers = " and by ".join(reader for reader in families.values() if reader)
    return f"AWS_ENDPOINT_URL is read by {readers}"
