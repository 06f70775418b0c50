"""What the user should know before the first event, kept in view: the schema's warnings and the
workspace's notices (a handler's models.py that does not match the schema). Hidden when there
are none; ``!`` (and the palette's "Notices") shows them all in full."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from cfn_debug.app.render import Palette
from cfn_debug.text.terminal import printable

#: Notices shown in the line itself; the rest are counted (``!`` shows them all).
SHOWN = 2


class Notices(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[str] = []
        self.palette = Palette()
        self.display = False

    def show(self, lines: list[str], where: str = "") -> None:
        """The notices of the project ``where`` (an empty list: none)."""
        root = where.rstrip("/") + "/" if where else None
        # the project's own files by their path in it (the header names the project)
        self.lines = [line.replace(root, "") if root else line for line in lines]
        self.display = bool(self.lines)
        self._draw()

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self._draw()

    def _draw(self) -> None:
        if not self.lines:
            self.update("")
            return
        p = self.palette
        count = len(self.lines)
        text = Text(f"⚠ {count} notice{'s' if count != 1 else ''}", style=f"bold {p.warn}")
        text.append("  ! shows them all", style=p.muted)
        for line in self.lines[:SHOWN]:
            text.append("\n  " + printable(line))
        if count > SHOWN:
            text.append(f"\n  … and {count - SHOWN} more", style=p.muted)
        self.update(text)
