"""Command palette: every event by name (the app's actions come from get_system_commands)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from cfn_debug.app.app import CfnDebugApp


class EventCommands(Provider):
    def _choices(self) -> list[tuple[str, str, int]]:
        app: CfnDebugApp = self.app  # type: ignore[assignment]
        out = []
        for index, event in enumerate(app.events):
            action = getattr(event.action, "value", event.action)
            where = str(event.path) if event.path is not None else "edited"
            out.append((f"Run {event.name} ({action})", f"Run the event {where}", index))
        return out

    async def discover(self) -> Hits:
        for title, help_text, index in self._choices():
            yield DiscoveryHit(title, partial(self._run, index), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, index in self._choices():
            score = matcher.match(title)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(title), partial(self._run, index), help=help_text
                )

    def _run(self, index: int) -> None:
        app: CfnDebugApp = self.app  # type: ignore[assignment]
        app.run_event(index)  # it selects the event too
