"""``{{ExportName}}`` placeholders in inputs, events and overrides, filled as `cfn test` fills them.

`cfn test` (rpdk.core.test.render_template) finds ``{{([-A-Za-z0-9:\\s]+?)}}`` in the file's text,
strips the name and puts ``str(value)`` of the CloudFormation export of that name in its place.
Here the same pattern is applied to every string (and key) of the parsed JSON, which gives the
same result for every placeholder inside a JSON string, and keeps the JSON valid whatever the
value holds. Unlike `cfn test`, which logs a warning and drops the file's values, a placeholder
with no export is an error naming the file, the JSON pointer and the placeholder: the handler
never receives ``{{...}}``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfn_debug.errors import CfnDebugError, EventError

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
) -> tuple[Any, list[Filled]]:
    """``data`` with every placeholder replaced, and the placeholders filled.

    Raises PlaceholderError naming ``path``, the JSON pointer and the placeholder for the first
    one ``exports`` cannot fill. Data without any placeholder is returned as it is (not copied).
    """
    filled: list[Filled] = []
    if not _contains(data):
        return data, filled

    def text(value: str, pointer: str) -> str:
        def one(match: re.Match[str]) -> str:
            name = match.group(1).strip()
            found = exports.lookup(name) if exports is not None else None
            if found is None:
                raise PlaceholderError(_missing(name, exports), path=path, field=pointer or "/")
            filled.append(Filled(pointer or "/", name))
            return str(found)

        return PATTERN.sub(one, value) if "{{" in value else value

    def walk(node: Any, pointer: str) -> Any:
        if isinstance(node, str):
            return text(node, pointer)
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                where = f"{pointer}/{_escape(str(key))}"
                new_key = text(key, where) if isinstance(key, str) else key
                out[new_key] = walk(value, where)
            return out
        if isinstance(node, list):
            return [walk(item, f"{pointer}/{index}") for index, item in enumerate(node)]
        return node

    try:
        out = walk(data, base)
    except RecursionError:
        raise EventError("expected JSON nested less deeply", path=path) from None
    return (out if filled else data), filled


def fill_data(data: Any, exports: Exports | None, *, path: Path | str | None) -> Any:
    return fill(data, exports, path=path)[0]


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
        import orjson

        return b"{{" in orjson.dumps(data)
    except (TypeError, ImportError):  # not plain JSON (or no orjson): walk it
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
