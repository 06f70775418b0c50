"""Recognise an answer in which cloudformation-cli-python-lib refused the request itself.

Before a handler runs, the library builds its request objects: its request dataclasses (a key
they do not declare, a field they require) and the handler's model class (``recast_object``
looks every property of the input up in the model's dataclass fields: an unknown property is a
``KeyError``). A failure there comes back as FAILED (InternalFailure from the test entrypoint,
InvalidRequest from the resource entrypoint) with the message ``"<error> (<ErrorType>)"`` and
the traceback ("Invalid request") on the function's output. The handler never saw that request,
so nothing about it is the handler's: ``library_refusal`` names the library, its version and the
field, in one line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfn_debug.pylib.shape import DISTRIBUTION, PACKAGE, LibraryShape, shape_in

#: The library's message for an error while building the request: "<error> (<ErrorType>)".
_SUFFIXED = re.compile(r"^(?P<error>.*) \((?P<kind>TypeError|KeyError|InvalidRequest)\)$", re.S)
_UNEXPECTED = re.compile(
    r"(?:(?P<cls>\w+)\.)?__init__\(\) got an unexpected keyword argument '(?P<field>[^']+)'"
)
_MISSING = re.compile(
    r"(?:(?P<cls>\w+)\.)?__init__\(\) missing \d+ required (?:positional|keyword-only) "
    r"arguments?: (?P<fields>.+)"
)
_KEY = re.compile(r"^'(?P<field>[^']*)'$")
#: Frames of the library's request parsing (any version), as they appear in a traceback.
_PARSE_FRAMES = (
    "_parse_test_request",
    "_parse_request",
    "_cast_resource_request",
    "to_modelled",
    "recast_object",
    "_deserialize",
)
_HANDLER_FRAMES = ("_invoke_handler",)


@dataclass(frozen=True)
class Refusal:
    """The library refused the request: ``field`` names what it refused; ``input_fault`` is
    True when the input (a property the model class lacks) and not cfn-debug's request shape
    is at fault."""

    line: str
    field: str
    input_fault: bool


_LIBRARY_FILE = re.compile(r'File "(?P<dir>[^"]*?)[/\\\\]' + PACKAGE + r"[/\\\\]")


def library_in_logs(logs: Sequence[str]) -> LibraryShape | None:
    """The library whose files the invocation's traceback names (so its version is known
    without asking the endpoint), or None."""
    for entry in reversed(logs):
        match = _LIBRARY_FILE.search(entry)
        if match is not None:
            return shape_in([Path(match.group("dir"))])
    return None


def _library(shape: LibraryShape | None) -> str:
    return shape.label if shape is not None else DISTRIBUTION


def _parse_frames_in(logs: Sequence[str]) -> bool | None:
    """True when the last traceback of ``logs`` ran through the library's request parsing and
    not into the handler; False when it reached the handler; None with no traceback."""
    text = "\n".join(logs)
    start = text.rfind("Traceback (most recent call last):")
    if start < 0:
        return None
    block = text[start:]
    if any(name in block for name in _HANDLER_FRAMES):
        return False
    return any(name in block for name in _PARSE_FRAMES)


def library_refusal(
    progress: Mapping[str, Any] | None,
    logs: Sequence[str] = (),
    shape: LibraryShape | None = None,
) -> Refusal | None:
    """The refusal ``progress`` reports, or None when the handler ran (or it is not a library
    refusal). ``logs`` (the invocation's output) confirm it when they hold the traceback."""
    if not isinstance(progress, Mapping) or progress.get("status") != "FAILED":
        return None
    if progress.get("errorCode") not in ("InternalFailure", "InvalidRequest"):
        return None
    message = progress.get("message")
    if not isinstance(message, str):
        return None
    match = _SUFFIXED.match(message.strip())
    if match is None:
        return None
    if _parse_frames_in(logs) is False:
        return None
    error, kind = match.group("error"), match.group("kind")
    library = _library(shape or library_in_logs(logs))
    if kind == "TypeError":
        unexpected = _UNEXPECTED.search(error)
        if unexpected is not None:
            name = unexpected.group("field")
            owner = unexpected.group("cls") or "its request class"
            return Refusal(
                f"{library} does not read the request field {name!r} ({owner} has no such "
                "field): the handler never ran, nothing is judged",
                name,
                False,
            )
        missing = _MISSING.search(error)
        if missing is not None:
            names = missing.group("fields").strip()
            owner = missing.group("cls") or "its request class"
            return Refusal(
                f"{library} requires the request field(s) {names} ({owner}): the handler "
                "never ran, nothing is judged",
                names.replace("'", "").split(" and ")[0].split(",")[0].strip(),
                False,
            )
        return None
    if kind == "KeyError":
        key = _KEY.match(error.strip())
        if key is None:
            return None
        name = key.group("field")
        return Refusal(
            f"{library}'s model class has no property {name!r} (KeyError while reading the "
            "input in recast_object): the input is at fault; the handler never ran and is not "
            "judged",
            name,
            True,
        )
    if kind == "InvalidRequest":
        return Refusal(
            f"{library} could not read the input ({error}): the input is at fault; the handler "
            "never ran and is not judged (input-valid says what the schema finds in the input)",
            "",
            True,
        )
    return None
