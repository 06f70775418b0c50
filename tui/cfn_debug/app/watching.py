"""The dashboard's use of ``cfn_debug.watch``: one chain at a time, whoever starts it; the
message of each watch event (``WATCH_MESSAGES``). ``cfn_debug.app.chain_runs`` loads this module
with the first run (the watch engine is not needed for the first frame).

The dashboard runs chains through two watchers: ``runner`` for the runs the user starts (never
watching files) and, while watch mode is on, ``watcher`` for the re-runs a save starts. They share
one lock, so at most one chain is in flight: a save cancels the user's chain (the app cancels it
on ``ChangeDetected``) and the re-run starts once it has wound down; a key press cancels a re-run
and the user's run follows it. They share the record of previous runs, so every run is compared
with the previous run of its event whichever watcher ran it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from cfn_debug import watch
from cfn_debug.app import messages
from cfn_debug.app.messages import EngineMessage
from cfn_debug.chain import ChainControl, ChainOptions
from cfn_debug.events import EventSpec
from cfn_debug.watch import (
    EVENT,
    SCHEMA,
    ChangeDetected,
    RerunStarted,
    Watcher,
    WatchProblem,
    compare_runs,
)

__all__ = [
    "EVENT",
    "SCHEMA",
    "WATCH_MESSAGES",
    "ChainControl",
    "ChainOptions",
    "ChangeDetected",
    "DashboardWatcher",
    "RerunStarted",
    "compare_runs",
]

#: The message of each event of watch mode's stream (``cfn_debug.app.messages``).
WATCH_MESSAGES: dict[type, type[EngineMessage]] = {
    watch.Comparison: messages.RunCompared,
    watch.WatchReady: messages.WatchReadied,
    watch.ChangeDetected: messages.SaveDetected,
    watch.BuildStarted: messages.BuildBegan,
    watch.BuildFinished: messages.BuildEnded,
    watch.WatchProblem: messages.WatchProblemFound,
    watch.RerunStarted: messages.RerunBegan,
}


class DashboardWatcher(Watcher):
    def __init__(self, *args: object, lock: asyncio.Lock, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lock = lock
        #: The dashboard's run this watcher's events belong to (set when its chain starts).
        self.generation: int | None = None

    async def run_events(self, events: Sequence[EventSpec], reason: str | None = None) -> None:
        async with self.lock:
            try:
                await super().run_events(events, reason)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # a re-run that cannot start must not end watch mode
                if reason is None:
                    raise
                result = self.on_event(WatchProblem(f"{type(error).__name__}: {error}"))
                if asyncio.iscoroutine(result):
                    await result

    async def run_when_free(self, events: Sequence[EventSpec], wanted: Callable[[], bool]) -> bool:
        """Run ``events`` once no other chain is in flight, if ``wanted()`` still holds then
        (the user may have started another run meanwhile). True when they ran."""
        async with self.lock:
            if not wanted():
                return False
            await Watcher.run_events(self, events)
            return True
