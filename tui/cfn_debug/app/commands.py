"""Command palette: every event by name (the app's actions come from get_system_commands)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from cfn_debug.app.app import CfnDebugApp


EXACT_BONUS = 1000.0


def _exact_names(name: str, action: str) -> set[str]:
    """What a user may type for one event, in full: its name with or without the folder,
    alone, with its action, or as the command's title (lowercased)."""
    short = name.rsplit("/", 1)[-1]
    names = {name, short}
    return {
        n.lower()
        for base in names
        for n in (base, f"{base} ({action})", f"run {base} ({action})", f"run {base}")
    }


class EventCommands(Provider):
    def _choices(self) -> list[tuple[str, str, int, set[str]]]:
        app: CfnDebugApp = self.app  # type: ignore[assignment]
        out = []
        for index, event in enumerate(app.main.listed_events):
            action = getattr(event.action, "value", event.action)
            where = str(event.path) if event.path is not None else "edited"
            title = f"Run {event.name} ({action})"
            out.append((title, f"Run the event {where}", index, _exact_names(event.name, action)))
        return out

    async def discover(self) -> Hits:
        for title, help_text, index, _ in self._choices():
            yield DiscoveryHit(title, partial(self._run, index), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        typed = " ".join(query.split()).lower()
        for title, help_text, index, exact in self._choices():
            # A name typed in full ranks first: the fuzzy score alone tied "fault-slow-read"
            # with "read" for "Run read (READ)" (Textual's scores are unbounded: add, not set).
            score = matcher.match(title)
            if typed in exact:
                score += EXACT_BONUS
            if score > 0:
                yield Hit(
                    score, matcher.highlight(title), partial(self._run, index), help=help_text
                )

    def _run(self, index: int) -> None:
        app: CfnDebugApp = self.app  # type: ignore[assignment]
        app.run_event(index)  # it selects the event too
