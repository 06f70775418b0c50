"""Escaping untrusted text for the export formats: Markdown paragraphs, table cells, code spans
and fences; XML 1.0 text and attributes (characters XML cannot carry become visible escapes)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from cfn_debug.export.formatting import visible

_PUNCTUATION = re.compile(r"([\\`*_\[\]<>|~#!&])")
_BACKTICKS = re.compile(r"`+")


def text(value: str) -> str:
    """Plain text safe in a paragraph or a table cell: punctuation escaped, one line."""
    value = _PUNCTUATION.sub(r"\\\1", visible(value))
    return value.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "<br>")


def code(value: str, *, in_table: bool = True) -> str:
    """An inline code span showing ``value`` exactly (newlines become spaces)."""
    value = visible(value.replace("\r\n", " ").replace("\n", " ").replace("\r", " "))
    if not value:
        return "` `"
    longest = max((len(m) for m in _BACKTICKS.findall(value)), default=0)
    fence = "`" * (longest + 1)
    if value.startswith("`") or value.endswith("`") or (value[0] == " " and value[-1] == " "):
        value = f" {value} "
    if in_table:
        value = value.replace("|", "\\|")
    return f"{fence}{value}{fence}"


def fence_for(lines: Iterable[str]) -> str:
    longest = max((len(m) for line in lines for m in _BACKTICKS.findall(line)), default=0)
    return "`" * max(3, longest + 1)


_INVALID_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def xml_text(value: str) -> str:
    value = _INVALID_XML.sub(_visible, visible(value))
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def xml_attr(value: object) -> str:
    text = xml_text(str(value)).replace('"', "&quot;")
    return text.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
