"""The chain-run controller: starts the chains the user asks for and (in watch mode) the re-runs
a save starts, and turns the engine's stream into messages. It never touches a widget.

Every event of the stream is journalled here, on the worker's side (nothing the UI does can
keep a step out of the journal), then posted as its own typed message (``engine_message``:
``ChainStepCompleted(generation, event)``, ``SaveDetected``, …); the generation names the
dashboard run it belongs to, so a late event of a run the user replaced is dropped by the
screen.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from functools import cache, partial
from typing import TYPE_CHECKING, Any

from textual.dom import DOMNode
from textual.message import Message

from cfn_debug.app import messages
from cfn_debug.app.live import LiveSession
from cfn_debug.app.messages import EngineMessage, Progress, RunFailed, RunFinished, WatchStopped
from cfn_debug.app.opening import engine_support
from cfn_debug.app.summary import error_hint
from cfn_debug.app.widgets.progress import is_progress
from cfn_debug.errors import CfnDebugError
from cfn_debug.records import (
    AwaitingStep,
    DelayStarted,
    InvocationStarted,
    RunEnded,
    RunRecord,
    RunStarted,
    Step,
    StepCompleted,
)

if TYPE_CHECKING:
    from types import ModuleType

    from cfn_debug.app.watching import DashboardWatcher
    from cfn_debug.chain import ChainControl, ChainOptions
    from cfn_debug.events import EventSpec


def watch_support() -> ModuleType:
    """``cfn_debug.app.watching``: the watchers, the watch events and the chain engine, part of
    the engine the worker opening the project loads (``opening.engine_support``), not before the
    dashboard's first frame. The main screen's other uses of the engine's chain and watch go
    through it too."""
    return engine_support().watching


class ChainRuns:
    """``host`` runs the workers (the main screen); ``post`` delivers their messages (the
    host's own ``post_message``); ``options()`` is the chain options of the current mode;
    ``shown()`` the generation of the run the screen shows."""

    def __init__(
        self,
        live: LiveSession,
        host: DOMNode,
        post: Callable[[Message], object],
        options: Callable[[], ChainOptions],
        shown: Callable[[], int],
    ) -> None:
        self.live = live
        self.host = host
        self.post = post
        self.options = options
        self.shown = shown
        #: Runs the user starts, and (while watch mode is on) the re-runs saves start.
        self.runner: DashboardWatcher | None = None
        self.watcher: DashboardWatcher | None = None
        self.lock = asyncio.Lock()
        self.last_generation = 0
        self._watch_generation: int | None = None

    def next_generation(self) -> int:
        self.last_generation += 1
        return self.last_generation

    @property
    def control(self) -> ChainControl | None:
        """The ChainControl of the chain in flight, whichever watcher runs it."""
        for watcher in (self.runner, self.watcher):
            if watcher is not None and watcher.control is not None:
                return watcher.control
        return None

    def new_options(self) -> None:
        """The mode changed: the next chain of either watcher runs with the new options."""
        for watcher in (self.runner, self.watcher):
            if watcher is not None:
                watcher.options = self.options()

    def target(self, event: EventSpec) -> None:
        """What a save re-runs in watch mode: the event selected or run last."""
        if self.watcher is not None:
            self.watcher.set_targets([event])

    # --- the user's runs ----------------------------------------------------------------------

    def _start_runner(self) -> DashboardWatcher | None:
        workspace = self.live.workspace
        if workspace is not None and self.runner is None:
            self.runner = watch_support().DashboardWatcher(
                workspace,
                self.options(),
                on_event=partial(self._engine_event, "run"),
                lock=self.lock,
            )
        return self.runner

    def start(self, generation: int, event: EventSpec) -> None:
        """Run ``event`` as the dashboard's run ``generation`` once the chain in flight (told
        to stop here) has wound down."""
        runner = self._start_runner()
        if runner is None:
            return
        control = self.control
        if control is not None:
            control.cancel()
        runner.options = self.options()
        self.target(event)
        self.host.run_worker(
            self._run_chain(generation, event, runner), group="chain", exit_on_error=False
        )

    async def _run_chain(self, generation: int, event: EventSpec, runner: Any) -> None:
        try:
            await runner.run_when_free([event], partial(self._still_wanted, generation))
        except CfnDebugError as error:
            self.post(RunFailed(generation, str(error), error_hint(error)))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the engine broke: say so in place, never a traceback
            self.post(RunFailed(generation, f"{type(error).__name__}: {error}", error_hint(error)))
        finally:
            self.post(RunFinished(generation))

    def replay(self, generation: int, run: RunRecord, step: Step) -> None:
        """Replay ``step`` of ``run`` under the debugger as the dashboard's run ``generation``
        (see Workspace.replay); its findings are compared with the step's (a Comparison)."""
        runner = self._start_runner()
        if runner is None:
            return
        control = self.control
        if control is not None:
            control.cancel()
        self.host.run_worker(
            self._run_replay(generation, run, step, runner), group="chain", exit_on_error=False
        )

    async def _run_replay(self, generation: int, run: RunRecord, step: Step, runner: Any) -> None:
        workspace = self.live.workspace
        try:
            async with self.lock:
                if workspace is None or not self._still_wanted(generation):
                    return
                control = watch_support().ChainControl()
                runner._control = control
                try:
                    async for event in workspace.replay(run, step, control):
                        self._engine_event("run", event)
                        if isinstance(event, RunEnded):
                            original = dataclasses.replace(run, steps=[step], chain_findings=[])
                            comparison = watch_support().compare_runs(original, event.run)
                            self.post(messages.RunCompared(generation, comparison))
                finally:
                    runner._control = None
        except CfnDebugError as error:
            self.post(RunFailed(generation, str(error), error_hint(error)))
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self.post(RunFailed(generation, f"{type(error).__name__}: {error}", error_hint(error)))
        finally:
            self.post(RunFinished(generation))

    def _still_wanted(self, generation: int) -> bool:
        wanted = self.shown() == generation and not self.live.shutting_down
        if wanted and self.runner is not None:
            self.runner.generation = generation
        return wanted

    def _engine_event(self, source: str, event: Any) -> None:
        """Every event of the engine's stream, from either watcher, as it happens."""
        watching = watch_support()
        if isinstance(event, RunStarted | StepCompleted | RunEnded):
            self.live.log.record(event)
            if isinstance(event, RunEnded):
                self.live.runs.append(event.run)
        generation: int | None
        if source == "run":
            generation = self.runner.generation if self.runner is not None else None
        else:
            if isinstance(event, watching.ChangeDetected) and self.runner is not None:
                control = self.runner.control
                if control is not None:
                    control.cancel()  # a save cancels the user's chain; the re-run follows
            if isinstance(event, watching.RerunStarted):
                self._watch_generation = self.next_generation()
            generation = self._watch_generation
        message = engine_message(event, generation)
        if message is not None:
            self.post(message)

    # --- watch mode ---------------------------------------------------------------------------

    def start_watching(self, build: str | None) -> bool:
        """Watch the handler sources, schema and events; False when there is nothing to watch
        yet (the project is not open) or watch mode is on already."""
        workspace = self.live.workspace
        if workspace is None or self.watcher is not None:
            return False

        self._start_runner()
        watcher = watch_support().DashboardWatcher(
            workspace,
            self.options(),
            on_event=partial(self._engine_event, "watch"),
            build=build,
            lock=self.lock,
        )
        if self.runner is not None:
            watcher.previous = self.runner.previous  # one record of previous runs, shared
        self.watcher = watcher
        self.host.run_worker(
            self._watch_files(watcher), group="watch", exclusive=True, exit_on_error=False
        )
        return True

    def stop_watching(self) -> None:
        watcher, self.watcher = self.watcher, None
        self._watch_generation = None
        if watcher is not None:
            watcher.stop()
        self.host.workers.cancel_group(self.host, "watch")

    async def _watch_files(self, watcher: DashboardWatcher) -> None:
        try:
            await watcher.watch()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # watching broke (no inotify, a vanished directory)
            self.post(WatchStopped(f"{type(error).__name__}: {error}"))

    def close(self) -> None:
        for watcher in (self.watcher, self.runner):
            if watcher is not None:
                watcher.stop()


#: The message of each event of a chain's stream (``ChainEvent``).
CHAIN_MESSAGES: dict[type, type[EngineMessage]] = {
    RunStarted: messages.ChainRunStarted,
    InvocationStarted: messages.ChainInvoking,
    StepCompleted: messages.ChainStepCompleted,
    DelayStarted: messages.ChainDelaying,
    AwaitingStep: messages.ChainAwaiting,
    RunEnded: messages.ChainRunEnded,
}


@cache
def _message_types() -> dict[type, type[EngineMessage]]:
    """The message of each type of engine event (watch mode's types load with the first call)."""
    return {**CHAIN_MESSAGES, **watch_support().WATCH_MESSAGES}


def engine_message(event: object, generation: int | None) -> Message | None:
    """The typed message that carries ``event`` of the engine's stream; a progress report (by
    its shape) is a ``Progress``; None for an event the dashboard does not show."""
    kind = _message_types().get(type(event))
    if kind is not None:
        return kind(generation, event)  # type: ignore[call-arg]
    if is_progress(event):
        done, total = int(event.done), event.total  # type: ignore[attr-defined]
        finished = bool(getattr(event, "finished", False))
        return Progress(str(event.label), done, total, finished)  # type: ignore[attr-defined]
    return None
