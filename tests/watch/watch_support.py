"""Helpers of the watch tests: a private copy of the demo project and a Watcher driven in a task.

Every test edits real files in its own copy of the demo (the bundled one is never touched) and
its widgets live in a state directory of its own.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from cfn_debug.chain import ChainOptions
from cfn_debug.events import EventSpec, load_event
from cfn_debug.watch import Watcher, WatchEvent, WatchReady
from cfn_debug.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "tui" / "cfn_debug" / "demo"
SAMPLE_EVENTS = REPO / "sample_events"
HANDLERS = Path("src") / "cfndebug_demo_widget" / "handlers.py"
SCHEMA = Path("cfndebug-demo-widget.json")
#: How long a test waits for one expected event; saves are seen in well under a second.
WAIT_S = 30.0

E = TypeVar("E")


def copy_demo(destination: Path) -> Path:
    """The demo project with its sample events in ``destination``."""
    shutil.copytree(
        DEMO, destination, ignore=shutil.ignore_patterns("__pycache__", ".ruff_cache", "build")
    )
    shutil.copytree(SAMPLE_EVENTS, destination / "sample_events")
    return destination


def edit(path: Path, old: str, new: str) -> None:
    """Replace ``old`` (which must be there exactly once) by ``new``, as a save would."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} not found once in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def open_workspace(project: Path, state: Path) -> Workspace:
    return Workspace.open(project, env_vars={"Parameters": {"CFN_DEBUG_DEMO_STATE": str(state)}})


@dataclass
class Session:
    """A Watcher running in a task, with every event it reported, in order."""

    watcher: Watcher
    seen: list[WatchEvent] = field(default_factory=list)
    queue: asyncio.Queue[WatchEvent] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None

    def on_event(self, event: WatchEvent) -> None:
        self.seen.append(event)
        self.queue.put_nowait(event)

    async def next(self, kind: type[E], where: Callable[[E], bool] = lambda _e: True) -> E:
        """The next reported event of ``kind`` that satisfies ``where`` (others are skipped,
        but stay in ``seen``)."""

        async def find() -> E:
            while True:
                if self.task is not None and self.task.done():
                    self.task.result()  # raise what ended the watcher
                    raise AssertionError("the watcher stopped")
                try:
                    event = await asyncio.wait_for(self.queue.get(), 0.5)
                except asyncio.TimeoutError:
                    continue
                if isinstance(event, kind) and where(event):
                    return event

        return await asyncio.wait_for(find(), WAIT_S)

    def since(self, marker: Any) -> list[WatchEvent]:
        """Every event reported after ``marker`` (an event object from ``seen``)."""
        index = next(i for i, e in enumerate(self.seen) if e is marker)
        return self.seen[index + 1 :]

    async def stop(self) -> None:
        self.watcher.stop()
        if self.task is not None:
            await asyncio.wait_for(self.task, WAIT_S)


async def start(
    workspace: Workspace,
    events: list[EventSpec],
    *,
    event_files: list[Path] | None = None,
    build: str | None = None,
    options: ChainOptions | None = None,
) -> Session:
    """Start watching, run ``events`` once and wait until saves are being watched."""
    session = Session(watcher=None)  # type: ignore[arg-type]
    session.watcher = Watcher(
        workspace,
        options or ChainOptions(max_delay_s=0),
        on_event=session.on_event,
        build=build,
        event_files=event_files,
    )
    session.task = asyncio.ensure_future(session.watcher.watch(initial=events))
    await session.next(WatchReady)
    return session


def event(project: Path, name: str) -> EventSpec:
    return load_event(project / "sample_events" / name)
