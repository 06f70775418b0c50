"""`/` search in a detail tab: the tab's renderable as styled text, every match marked, the
current one in another colour, and the line to scroll to. Pure: no widgets."""

from __future__ import annotations

import io
from dataclasses import dataclass

from rich.console import Console, RenderableType
from rich.text import Text

MATCH_STYLE = "reverse"
CURRENT_STYLE = "bold black on yellow"


@dataclass(frozen=True)
class Found:
    text: Text
    #: Character offsets of every match in ``text.plain``.
    starts: tuple[int, ...]
    current: int  # index into starts, -1 when nothing matched
    line: int  # the line of the current match (0 when none)


def as_text(renderable: RenderableType, width: int) -> Text:
    """What ``renderable`` draws at ``width`` columns, as one styled Text (lines joined)."""
    console = Console(
        width=max(20, width), file=io.StringIO(), force_terminal=True, color_system="truecolor"
    )
    options = console.options.update_width(max(20, width))
    text = Text(no_wrap=True, end="")
    for number, line in enumerate(console.render_lines(renderable, options, pad=False)):
        if number:
            text.append("\n")
        for segment in line:
            if not segment.control:
                text.append(segment.text, segment.style)
    return text


def find(text: Text, query: str, current: int) -> Found:
    """Mark every case-insensitive match of ``query`` in ``text``; ``current`` wraps around."""
    plain = text.plain.lower()
    needle = query.lower()
    starts: list[int] = []
    if needle:
        at = plain.find(needle)
        while at >= 0:
            starts.append(at)
            at = plain.find(needle, at + len(needle))
    if not starts:
        return Found(text, (), -1, 0)
    current %= len(starts)
    marked = text.copy()
    for index, start in enumerate(starts):
        style = CURRENT_STYLE if index == current else MATCH_STYLE
        marked.stylize(style, start, start + len(needle))
    line = plain.count("\n", 0, starts[current])
    return Found(marked, tuple(starts), current, line)
