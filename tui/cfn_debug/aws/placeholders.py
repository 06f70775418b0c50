"""``{{ExportName}}`` placeholders in inputs, events and overrides, filled as `cfn test` fills them.

`cfn test` (rpdk.core.test.render_template) finds ``{{([-A-Za-z0-9:\\s]+?)}}`` in the file's text,
strips the name and puts ``str(value)`` of the CloudFormation export of that name in its place.
Here the same pattern is applied to every string (and key) of the parsed JSON, which gives the
same result for every placeholder inside a JSON string, and keeps the JSON valid whatever the
value holds. Unlike `cfn test`, which logs a warning and drops the file's values, a placeholder
with no export is an error naming the file, the JSON pointer and the placeholder: the handler
never receives ``{{...}}``.

A placeholder may also stand outside a JSON string where a value goes (``"Count": {{Count}}``):
`cfn test` puts the export's text there, so the file is JSON once filled and the value is a
number, ``true``, an object... whatever that text is. :func:`read_json_filled` reads such a file
the same way (the placeholder is parsed as a marker string first, so the rest of the file is
checked as JSON and every value gets its pointer); an export whose text is not a JSON value
(``my-bucket``) is an error naming the file, the pointer and the placeholder, with the hint to
quote it, where `cfn test` would fail to parse the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from cfn_debug.errors import CfnDebugError, EventError
from cfn_debug.filesafe import read_json, read_text

#: rpdk's own pattern (rpdk/core/test.py), so the same files fill the same way.
PATTERN = re.compile(r"{{([-A-Za-z0-9:\s]+?)}}")
HINT = (
    "deploy test/setup.yml with --local-aws, read an account's exports with --profile, "
    "or give --export NAME=VALUE"
)


class PlaceholderError(EventError):
    """A ``{{Name}}`` that no export fills (or whose exports could not be listed)."""


@dataclass
class Exports:
    """Export name -> value: the ones given by hand, over the ones a loader lists on first use.

    ``loader`` (ListExports of the local or real AWS) runs only when a placeholder asks for a
    name not given by hand, so a project without placeholders never calls AWS for them.
    """

    manual: dict[str, str] = field(default_factory=dict)
    listed: dict[str, str] | None = None  # None: not listed yet
    loader: Callable[[], dict[str, str]] | None = None
    source: str = ""  # where listed values come from, for messages ("the local AWS", ...)
    _failed: CfnDebugError | None = field(default=None, repr=False)

    def lookup(self, name: str) -> str | None:
        if name in self.manual:
            return self.manual[name]
        if self.listed is None and self.loader is not None:
            if self._failed is not None:  # listed once, failed: not again for every file
                raise self._failed
            try:
                self.listed = dict(self.loader())
            except CfnDebugError as error:
                self._failed = error
                raise
        return (self.listed or {}).get(name)

    def known(self) -> list[str]:
        return sorted({*self.manual, *(self.listed or {})})


@dataclass(frozen=True)
class Filled:
    """One placeholder that was filled: where, which export, and the value it became."""

    pointer: str
    name: str


def has_placeholder(text: str) -> bool:
    return "{{" in text and PATTERN.search(text) is not None


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def fill(
    data: Any,
    exports: Exports | None,
    *,
    path: Path | str | None,
    base: str = "",
    bare: dict[str, str] | None = None,
) -> tuple[Any, list[Filled]]:
    """``data`` with every placeholder replaced, and the placeholders filled.

    ``bare`` maps the marker strings :func:`read_json_filled` put where a placeholder stood
    outside a JSON string to the placeholder's name: such a marker becomes the JSON value the
    export's text is. Raises PlaceholderError naming ``path``, the JSON pointer and the
    placeholder for the first one ``exports`` cannot fill. Data without any placeholder is
    returned as it is (not copied).
    """
    filled: list[Filled] = []
    if not bare and not _contains(data):
        return data, filled

    def lookup(name: str, pointer: str) -> str:
        found = exports.lookup(name) if exports is not None else None
        if found is None:
            raise PlaceholderError(_missing(name, exports), path=path, field=pointer or "/")
        filled.append(Filled(pointer or "/", name))
        return str(found)

    def value(name: str, pointer: str) -> Any:
        text = lookup(name, pointer)
        try:
            return json.loads(text)
        except ValueError:  # JSONDecodeError, or an integer past the digit limit
            shown = text if len(text) <= 60 else text[:57] + "..."
            raise PlaceholderError(
                f"{{{{{name}}}}} stands outside a JSON string, so the export's text must be a "
                f"JSON value (a number, true, false, null, an object...), got {shown!r}; write "
                f'"{{{{{name}}}}}" (in quotes) for a string',
                path=path,
                field=pointer or "/",
            ) from None

    def text(value: str, pointer: str) -> str:
        def one(match: re.Match[str]) -> str:
            return lookup(match.group(1).strip(), pointer)

        return PATTERN.sub(one, value) if "{{" in value else value

    def walk(node: Any, pointer: str) -> Any:
        if isinstance(node, str):
            if bare and node in bare:
                return value(bare[node], pointer)
            return text(node, pointer)
        if isinstance(node, dict):
            out = {}
            for key, item in node.items():
                where = f"{pointer}/{_escape(str(key))}"
                if bare and key in bare:
                    raise PlaceholderError(
                        f"{{{{{bare[key]}}}}} stands outside a JSON string where a key goes; "
                        f'write "{{{{{bare[key]}}}}}" (in quotes)',
                        path=path,
                        field=pointer or "/",
                    )
                new_key = text(key, where) if isinstance(key, str) else key
                out[new_key] = walk(item, where)
            return out
        if isinstance(node, list):
            return [walk(item, f"{pointer}/{index}") for index, item in enumerate(node)]
        return node

    try:
        out = walk(data, base)
    except RecursionError:
        raise EventError("expected JSON nested less deeply", path=path) from None
    return (out if filled else data), filled


def fill_data(
    data: Any,
    exports: Exports | None,
    *,
    path: Path | str | None,
    bare: dict[str, str] | None = None,
) -> Any:
    return fill(data, exports, path=path, bare=bare)[0]


#: A JSON string, or a placeholder outside one (JSON has no ``{{`` outside a string).
_STRING_OR_PLACEHOLDER = re.compile(r'"(?:[^"\\]|\\.)*"|' + PATTERN.pattern)
#: The marker a placeholder outside a string becomes before parsing (then its value).
_MARKER = "\\u0000cfn-debug-placeholder-{}"  # JSON text: the string starts with U+0000


def read_json_bare(
    path: Path, error: type[CfnDebugError] = EventError
) -> tuple[Any, dict[str, str]]:
    """The JSON of ``path`` (``filesafe.read_json``), and the markers of the placeholders that
    stand outside a JSON string (marker -> name, for :func:`fill`'s ``bare``). A file that is
    not JSON keeps ``read_json``'s error unless its placeholders are all that makes it so."""
    try:
        return read_json(path, error), {}
    except CfnDebugError as first:
        if not first.detail.startswith("invalid JSON"):
            raise
        try:
            text = read_text(path)
        except (OSError, UnicodeDecodeError):
            raise first from None
        if "{{" not in text:
            raise
        bare: dict[str, str] = {}
        shifts: list[tuple[int, int]] = []  # (end in the marked text, characters added so far)

        def mark(match: re.Match[str]) -> str:
            if match.group(1) is None:  # a string: kept as it is
                return match.group()
            marker = f'"{_MARKER.format(len(bare))}"'
            bare[json.loads(marker)] = match.group(1).strip()
            added = (shifts[-1][1] if shifts else 0) + len(marker) - len(match.group())
            shifts.append((match.end() + added, added))
            return marker

        marked = _STRING_OR_PLACEHOLDER.sub(mark, text)
        if not bare:
            raise
        try:
            return json.loads(marked), bare
        except json.JSONDecodeError as again:  # another fault: where it is in the file itself
            before = [added for end, added in shifts if end <= again.pos]
            pos = again.pos - (before[-1] if before else 0)
            line = text.count("\n", 0, pos) + 1
            column = pos - (text.rfind("\n", 0, pos) + 1) + 1
            raise error(
                f"invalid JSON at line {line}, column {column}: {again.msg}", path=path
            ) from None
        except (ValueError, RecursionError):
            raise first from None


def read_json_filled(
    path: Path, exports: Exports | None, error: type[CfnDebugError] = EventError
) -> tuple[Any, list[Filled]]:
    """The JSON of ``path`` with its placeholders filled, inside strings or outside them."""
    data, bare = read_json_bare(path, error)
    return fill(data, exports, path=path, bare=bare)


def _missing(name: str, exports: Exports | None) -> str:
    placeholder = "{{" + name + "}}"
    if exports is None or (not exports.manual and exports.loader is None):
        return f"unresolved placeholder {placeholder}: no exports to fill it from; {HINT}"
    known = exports.known()
    listed = f" (known: {', '.join(known[:8])}{', ...' if len(known) > 8 else ''})" if known else ""
    where = f" in {exports.source}" if exports.source else ""
    return (
        f"unresolved placeholder {placeholder}: no export of that name{where}{listed}; "
        f"add it to the setup stack's Outputs or give --export {name}=VALUE"
    )


def _contains(data: Any) -> bool:
    """Whether any string of ``data`` holds ``{{``: one fast encode instead of a walk."""
    try:
        return b"{{" in orjson.dumps(data)
    except TypeError:  # not plain JSON (orjson.JSONEncodeError is a TypeError): walk it
        return _walk_contains(data)


def _walk_contains(node: Any) -> bool:
    if isinstance(node, str):
        return "{{" in node
    if isinstance(node, dict):
        return any(_walk_contains(k) or _walk_contains(v) for k, v in node.items())
    if isinstance(node, list):
        return any(_walk_contains(item) for item in node)
    return False


def parse_export_options(values: list[str] | None) -> dict[str, str]:
    """--export NAME=VALUE (repeatable): the last value of a name wins."""
    out: dict[str, str] = {}
    for given in values or []:
        name, sep, value = given.partition("=")
        name = name.strip()
        if not sep or not name:
            raise CfnDebugError(
                f"expected NAME=VALUE, e.g. --export MyBucket=my-bucket-name, got {given!r}",
                field="--export",
            )
        if not re.fullmatch(r"[-A-Za-z0-9:]+", name):
            raise CfnDebugError(
                f"expected an export name of letters, digits, '-' and ':', got {name!r}",
                field="--export",
            )
        out[name] = value
    return out
