"""The ``Watcher``: watches the files of a workspace, builds, and re-runs the affected events
(see :mod:`cfn_debug.watch`)."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfn_debug.chain import ChainControl, ChainOptions
from cfn_debug.errors import CfnDebugError
from cfn_debug.events import EventSpec, load_event
from cfn_debug.hooks.project import reload_hook_event
from cfn_debug.records import EndReason, RunEnded, RunRecord
from cfn_debug.text.redact import redact_text
from cfn_debug.watch.plan import (
    EVENT,
    SCHEMA,
    SOURCE,
    event_key,
    plan_for,
    real_path,
    with_fresh_token,
)
from cfn_debug.watch.reports import (
    BuildFinished,
    BuildStarted,
    ChangeDetected,
    Comparison,
    OnEvent,
    RerunStarted,
    WatchEvent,
    WatchProblem,
    WatchReady,
    compare_runs,
)

if TYPE_CHECKING:
    from cfn_debug.workspace import Workspace


#: watchfiles' grouping: a batch is yielded once no change arrived for STEP_MS (and at the latest
#: DEBOUNCE_MS after its first change). bench/watch.py measures the save-to-rerun latency.
DEBOUNCE_MS = 400
STEP_MS = 30
#: Build output kept for display (the tail, when longer).
BUILD_OUTPUT_LIMIT = 20_000


async def run_build(command: str, cwd: Path) -> BuildFinished:
    """Run ``command`` in a shell in ``cwd``; its output captured, never raised."""
    started = time.monotonic()
    try:
        process = await asyncio.create_subprocess_shell(
            command,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
    except OSError as error:
        return BuildFinished(command, False, None, str(error), time.monotonic() - started)
    try:
        raw, _ = await process.communicate()
    except asyncio.CancelledError:
        if process.returncode is None:
            process.kill()
            await process.wait()
        raise
    output = raw.decode("utf-8", errors="replace")
    if len(output) > BUILD_OUTPUT_LIMIT:
        output = "…" + output[-BUILD_OUTPUT_LIMIT:]
    code = process.returncode
    return BuildFinished(command, code == 0, code, redact_text(output), time.monotonic() - started)


# --- the watcher -------------------------------------------------------------------------------


@dataclass
class _Batch:
    paths: set[str] = field(default_factory=set)
    kinds: set[str] = field(default_factory=set)
    events: set[str] = field(default_factory=set)  # event files (real paths) that changed
    detected: float = 0.0

    def merge(self, other: _Batch) -> None:
        self.paths |= other.paths
        self.kinds |= other.kinds
        self.events |= other.events
        self.detected = self.detected or other.detected


class Watcher:
    """Watch a workspace's files and re-run its events; see the module docstring.

    ``event_files`` None watches every event of the project (the dashboard); a list watches just
    those files (``cfn-debug run --watch EVENT...``).
    """

    def __init__(
        self,
        workspace: Workspace,
        options: ChainOptions,
        *,
        on_event: OnEvent,
        build: str | None = None,
        event_files: Sequence[Path] | None = None,
        debounce_ms: int = DEBOUNCE_MS,
        step_ms: int = STEP_MS,
    ) -> None:
        self.workspace = workspace
        self.options = options
        self.on_event = on_event
        self.build = build
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self._event_files = list(event_files) if event_files is not None else None
        self.plan = plan_for(workspace, self._event_files)
        self.targets: list[EventSpec] = []
        self.previous: dict[str, RunRecord] = {}  # event_key -> last complete run
        self._known: dict[str, EventSpec] = {}  # real path -> event, for event-file changes
        self._pending: _Batch | None = None
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()
        self._control: ChainControl | None = None
        self._running = False

    # --- steering (call from the loop the watcher runs in) ---

    @property
    def control(self) -> ChainControl | None:
        """The ChainControl of the chain in flight (skip a delay, advance in step mode)."""
        return self._control

    def set_targets(self, events: Sequence[EventSpec]) -> None:
        """What a source or schema change re-runs (the dashboard: the selected event)."""
        self.targets = list(events)
        for event in events:
            if event.path is not None:
                self._known[real_path(event.path)] = event

    def note_run(self, run: RunRecord) -> Comparison | None:
        """Remember a complete run (one the consumer ran itself, too) as the previous run of its
        event; returns its comparison with the one before, if any."""
        if run.end_reason in (EndReason.CANCELLED, None) or not run.steps:
            return None
        key = real_path(run.event_path) if run.event_path else run.event_name
        before = self.previous.get(key)
        self.previous[key] = run
        return compare_runs(before, run) if before is not None else None

    def stop(self) -> None:
        """End ``watch``: the chain in flight is cancelled, the watchers stop."""
        self._stop.set()
        self._wake.set()
        if self._control is not None:
            self._control.cancel()

    # --- running ---

    async def _emit(self, event: WatchEvent) -> None:
        result = self.on_event(event)
        if inspect.isawaitable(result):
            await result

    async def run_events(self, events: Sequence[EventSpec], reason: str | None = None) -> None:
        """Run ``events`` one after the other (a re-run when ``reason`` is given), each compared
        with its previous run. A change arriving meanwhile cancels the rest."""
        for event in events:
            if self._stop.is_set() or (reason is not None and self._pending is not None):
                return
            spec = self.workspace.request_for(event)
            if reason is not None and spec is event:
                spec = with_fresh_token(event)
            if reason is not None:
                await self._emit(
                    RerunStarted(
                        event.name,
                        str(event.path) if event.path else None,
                        reason,
                        time.monotonic(),
                    )
                )
            control = ChainControl()
            self._control = control
            try:
                stream = self.workspace.run(spec, self.options, control, as_written=True)
                async for chain_event in stream:
                    await self._emit(chain_event)
                    if isinstance(chain_event, RunEnded):
                        comparison = self.note_run(chain_event.run)
                        if comparison is not None:
                            await self._emit(comparison)
            finally:
                self._control = None

    async def watch(self, initial: Sequence[EventSpec] = ()) -> None:
        """Run ``initial`` (they become the targets), then re-run on every save until ``stop()``
        or cancellation."""
        from watchfiles import awatch  # lazy: watchfiles (~70 ms) only once watching starts

        if initial:
            self.set_targets(initial)
        for event in self.workspace.events:
            if event.path is not None:
                self._known.setdefault(real_path(event.path), event)
        stop = self._stop
        watchers: list[asyncio.Task[None]] = []
        for roots, recursive in (
            (self.plan.recursive_roots(), True),
            (self.plan.flat_roots(), False),
        ):
            if roots:
                stream = awatch(
                    *roots,
                    debounce=self.debounce_ms,
                    step=self.step_ms,
                    stop_event=stop,
                    recursive=recursive,
                )
                watchers.append(asyncio.ensure_future(self._consume(stream)))
        # One turn of the loop: each stream's first step registers its inotify watches.
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        try:
            if initial:
                await self.run_events(initial)
            await self._emit(
                WatchReady(tuple([*self.plan.recursive_roots(), *self.plan.flat_roots()]))
            )
            await self._loop(watchers)
        finally:
            stop.set()
            for task in watchers:
                task.cancel()
            await asyncio.gather(*watchers, return_exceptions=True)

    async def _consume(self, stream: Any) -> None:
        async for changes in stream:
            batch = _Batch(detected=time.monotonic())
            for _change, raw in changes:
                path = real_path(raw)
                kind = self.plan.classify(path)
                if kind is None:
                    continue
                batch.paths.add(path)
                batch.kinds.add(kind)
                if kind == EVENT:
                    batch.events.add(path)
            if not batch.kinds:
                continue
            if self._pending is None:
                self._pending = batch
            else:
                self._pending.merge(batch)
            if self._control is not None:
                self._control.cancel()  # the run loop awaits the chain's end, then re-runs
            self._wake.set()

    async def _loop(self, watchers: list[asyncio.Task[None]]) -> None:
        while not self._stop.is_set():
            await self._wake.wait()
            self._wake.clear()
            for task in watchers:
                if task.done() and not task.cancelled() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
            batch, self._pending = self._pending, None
            if batch is None or self._stop.is_set():
                continue
            await self._handle(batch)

    async def _handle(self, batch: _Batch) -> None:
        await self._emit(
            ChangeDetected(tuple(sorted(batch.paths)), frozenset(batch.kinds), batch.detected)
        )
        if self.build:
            await self._emit(BuildStarted(self.build))
            finished = await run_build(self.build, Path(self.workspace.project.root))
            await self._emit(finished)
            if not finished.ok:
                return
        try:
            if SCHEMA in batch.kinds or (EVENT in batch.kinds and self._event_files is None):
                self.workspace.reload()
                for problem in self._refresh_known(batch.events):
                    await self._emit(WatchProblem(problem))
        except CfnDebugError as error:
            await self._emit(WatchProblem(str(error)))
            return
        if SOURCE in batch.kinds and self.workspace.embedded is not None:
            # The next worker starts importing the saved code while the re-run is prepared.
            self.workspace.embedded.restart_workers(prewarm=True)
        reruns: list[tuple[EventSpec, str]] = []
        if batch.kinds & {SOURCE, SCHEMA}:
            reason = SCHEMA if SCHEMA in batch.kinds else SOURCE
            fresh_targets = []
            for event in self.targets:
                loaded = await self._reload_event(event)
                if loaded is not None:
                    fresh_targets.append(loaded)
            self.targets = fresh_targets
            reruns.extend((event, reason) for event in fresh_targets)
        for path in sorted(batch.events):
            known = self._known.get(path)
            if known is None or any(event_key(e) == path for e, _ in reruns):
                continue
            loaded = await self._reload_event(known)
            if loaded is not None:
                reruns.append((loaded, EVENT))
        for event, reason in reruns:
            if self._pending is not None or self._stop.is_set():
                return
            await self.run_events([event], reason)

    def _refresh_known(self, changed: set[str]) -> list[str]:
        """Take the reloaded project's events; the changed ones that no longer load are
        forgotten (not re-run stale) and returned as problems."""
        for event in self.workspace.events:
            if event.path is not None:
                self._known[real_path(event.path)] = event
        problems = []
        for error in self.workspace.project.event_errors:
            path = real_path(error.path) if error.path else None
            if path in changed:
                self._known.pop(path, None)
                problems.append(str(error))
        return problems

    async def _reload_event(self, event: EventSpec) -> EventSpec | None:
        """The event as its file now reads (the file is the truth after a save)."""
        if event.path is None:
            return event
        path = real_path(event.path)
        hook = getattr(self.workspace, "hook", None)
        if hook is not None:  # a hook's event: one input file holds several (cfn_debug.hooks)
            try:
                return reload_hook_event(event, hook.schema, self.workspace.project.exports)  # type: ignore[arg-type]
            except CfnDebugError as error:
                await self._emit(WatchProblem(str(error)))
                return None
        if self._event_files is None:
            known = self._known.get(path)
            if known is None:  # it no longer loads: reported when the project was reloaded
                return None
            fresh = known
        else:
            try:
                fresh = load_event(
                    Path(event.path), name=event.name, exports=self.workspace.project.exports
                )
            except CfnDebugError as error:
                await self._emit(WatchProblem(str(error)))
                return None
        self._known[path] = fresh
        for i, target in enumerate(self.targets):
            if event_key(target) == path:
                self.targets[i] = fresh
        return fresh
