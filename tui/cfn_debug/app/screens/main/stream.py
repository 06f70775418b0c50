"""The main screen's half that follows the engine. The chain and watch workers it runs post one
typed message per outcome of the engine's stream (``ChainStepCompleted``, ``SaveDetected``, …,
see ``cfn_debug.app.messages``) and ``RunFailed``, ``RunFinished``, ``WatchStopped``,
``Progress``; each has its handler here. The run's state changes in ``RunView.apply``; the
handlers then tell the widgets what to show. Watch mode's on and off. A mixin of ``MainScreen``
(``screen.py``), which holds the state."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cfn_debug.app import demo_support
from cfn_debug.app.chain_runs import watch_support
from cfn_debug.app.messages import (
    BuildBegan,
    BuildEnded,
    ChainAwaiting,
    ChainDelaying,
    ChainInvoking,
    ChainRunEnded,
    ChainRunStarted,
    ChainStepCompleted,
    EngineMessage,
    JournalStopped,
    Progress,
    RerunBegan,
    RunCompared,
    RunFailed,
    RunFinished,
    SaveDetected,
    WatchProblemFound,
    WatchReadied,
    WatchStopped,
)
from cfn_debug.app.opening import engine_support
from cfn_debug.app.render import changes_section
from cfn_debug.app.runview import RunView
from cfn_debug.app.summary import comparison_line, error_code, run_summary
from cfn_debug.app.widgets.notices import Notices
from cfn_debug.app.widgets.progress import WorkProgress
from cfn_debug.app.widgets.run_status import Countdown, InFlight, Prompt

if TYPE_CHECKING:
    from cfn_debug.app.screens.main.screen import MainScreen

    _Base = MainScreen
else:
    _Base = object


class MainStream(_Base):
    def on_run_failed(self, message: RunFailed) -> None:
        if message.generation != self.view.generation:
            return
        self.view.fail()
        self.say(Prompt(message.error, message.hint, "error"))

    def on_run_finished(self, message: RunFinished) -> None:
        if message.generation == self.view.generation and self.view.rerun is None:
            self.view.worker_done()
            self.running = False
            self.show_mode()

    # --- the engine's stream: one handler per message ---------------------------------------

    def on_progress(self, message: Progress) -> None:
        self.query_one(WorkProgress).report(message)

    def on_journal_stopped(self, message: JournalStopped) -> None:
        self.say(Prompt(message.text, "The runs go on; exports still work.", "error"))
        self._footer_follows()

    def on_rerun_began(self, message: RerunBegan) -> None:
        self._rerun_started(message.event, message.generation)
        self._footer_follows()

    def on_save_detected(self, message: SaveDetected) -> None:
        event = message.event
        self.last_change, self.last_build = event, None
        self.say(
            Prompt(
                f"Saved: {self.live.paths_text(event.paths)}",
                "Re-running…" if not self.config.build else f"Building: {self.config.build}",
            )
        )
        self._run_updated()
        self._footer_follows()

    def on_build_began(self, message: BuildBegan) -> None:
        self.say(Prompt(f"Building: {message.event.command}…"))
        self._footer_follows()

    def on_build_ended(self, message: BuildEnded) -> None:
        event = message.event
        self.last_build = event
        if not event.ok:
            code = "could not start" if event.returncode is None else f"exit {event.returncode}"
            last = event.output.strip().splitlines()[-1:] or [""]
            self.say(
                Prompt(
                    f"Build failed ({code}): nothing re-ran. {last[0]}",
                    "The Findings tab's Changes section has the build output.",
                    "error",
                )
            )
        self._run_updated()
        self._footer_follows()

    def on_watch_problem_found(self, message: WatchProblemFound) -> None:
        if self._shown(message) and self.view.rerun is not None:
            self.view.fail()
            self.running = False
        self.say(
            Prompt(message.event.message, "Fix it and save again: watch mode goes on.", "error")
        )
        self._footer_follows()

    def on_watch_readied(self, _message: WatchReadied) -> None:
        self.header.watch = True
        self._footer_follows()

    def on_run_compared(self, message: RunCompared) -> None:
        if self._shown(message):
            self.view.comparison = message.event
            self._show_summary()
            self._run_updated()
        self._footer_follows()

    def _shown(self, message: EngineMessage) -> bool:
        """The message belongs to the run shown (a late one of a replaced run does not)."""
        return message.generation == self.view.generation

    def _rerun_started(self, event: Any, generation: int | None) -> None:
        workspace = self.live.workspace
        if generation is None or workspace is None:
            return
        names = [e.name for e in self.events]
        kinds = getattr(self.last_change, "kinds", None)
        if kinds:
            support = watch_support()  # loaded: this is a watch re-run
            if kinds & {support.EVENT, support.SCHEMA}:
                self._show_events(workspace, reload=True)
                names = [e.name for e in workspace.events]
            # a saved schema (or models.py, a source file) may add or settle a notice
            notices = engine_support().workspace_notices(workspace)
            self.query_one(Notices).show(notices, f"{workspace.project.root}")
        index = names.index(event.event_name) if event.event_name in names else None
        self.pending_context = ...
        self.view = RunView(
            generation, index, mode=self.mode, rerun=self.last_change, event_name=event.event_name
        )
        self.view.changes = self._changes()
        self.running = True
        if index is not None:
            self.selected_event = index
            self.panel.select_index(index)
            self._show_function(index)
        self._run_shown()
        self.say(Prompt(f"Re-running {event.event_name} ({event.reason} saved)…"))

    # --- the chain's stream: the run shown changes (RunView.apply), then its widgets --------

    def on_chain_run_started(self, message: ChainRunStarted) -> None:
        if self._shown(message):
            self.view.apply(message.event)
            self._run_updated()
        self._footer_follows()

    def on_chain_invoking(self, message: ChainInvoking) -> None:
        if not self._shown(message):
            return
        record = message.event
        self.view.apply(record)
        if self.view.limit_s is None:
            self.view.limit_s = self._limit(record.action)
        self.say(
            InFlight(record.index, record.action.value, record.limit_s, record.started_monotonic)
        )
        self._footer_follows()

    def on_chain_step_completed(self, message: ChainStepCompleted) -> None:
        if not self._shown(message):
            return
        self.view.apply(message.event)
        step = message.event.step
        self.timeline.add_step(step)
        self.detail.add_step(self.view, step)
        self.say(None)  # the gauge of the invocation that returned goes
        self._footer_follows()

    def on_chain_delaying(self, message: ChainDelaying) -> None:
        if not self._shown(message):
            return
        record = message.event
        self.say(
            Countdown(record.index, record.seconds, record.requested_s, record.started_monotonic)
        )
        self._footer_follows()

    def on_chain_awaiting(self, message: ChainAwaiting) -> None:
        if not self._shown(message):
            return
        record = message.event
        self.view.apply(record)
        edited = "" if self.pending_context is ... else " (callbackContext edited)"
        self.say(
            Prompt(
                f"Step mode: invocation #{record.next_index} is ready{edited}.",
                "s sends it · c edits its callbackContext · x stops the chain",
            )
        )
        self._footer_follows()

    def on_chain_run_ended(self, message: ChainRunEnded) -> None:
        if not self._shown(message):
            return
        view = self.view
        view.apply(message.event)
        if view.rerun is not None:
            self.running = False
        view.changes = self._changes()
        self._run_ended()
        self._show_summary()
        self._footer_follows()

    def _limit(self, action: Any) -> float | None:
        workspace = self.live.workspace
        if workspace is None or workspace.schema is None:
            return None
        try:
            return float(workspace.schema.handler_timeout_s(action))
        except Exception:
            return None

    def _show_summary(self) -> None:
        view = self.view
        if view.run is None or not view.ended:
            return
        text, hint, tone = run_summary(view.run, single=view.mode == "stop")
        if view.run.final_status == "FAILED" and error_code(view.run) == "AlreadyExists":
            hint = demo_support.already_exists_hint(view.run, self.live.runs, demo=self._is_demo())
        if view.comparison is not None:
            text = f"{text}  {comparison_line(view.comparison)}"
        self.say(Prompt(text, hint, tone))

    def _changes(self) -> Any:
        """The Findings tab's Changes section: the save behind this re-run, the build, and the
        findings against the previous run of the event."""
        view = self.view
        change, build = view.rerun, self.last_build
        if view.comparison is None and change is None and build is None:
            return None
        if change is None and not self.watching:
            build = None
        paths = self.live.paths_text(change.paths) if change is not None else None
        return changes_section(
            paths, build, view.comparison, self.palette, deterministic=self._deterministic
        )

    def _is_demo(self) -> bool:
        """The bundled demo or a copy of it, as the engine decides it (``Workspace.is_demo``,
        which also picks the runs' fresh token and Name)."""
        workspace = self.live.workspace
        return workspace is not None and workspace.is_demo

    # --- watch mode -------------------------------------------------------------------------

    def _start_watching(self) -> None:
        if self.chains is None or not self.chains.start_watching(self.config.build):
            return
        self.watching = True
        if self.selected_event is not None:
            self._target(self.selected_event)
        self.header.watch = True
        build = f", then `{self.config.build}`" if self.config.build else ""
        self.say(
            Prompt(
                "Watch mode on: saving a handler source, the schema or an event file re-runs "
                f"the selected event{build}.",
                "w turns it off · the Findings tab shows what changed against the last run",
            )
        )

    def stop_watching(self) -> None:
        self.watching = False
        if self.chains is not None:
            self.chains.stop_watching()
        self.header.watch = False

    def on_watch_stopped(self, message: WatchStopped) -> None:
        self.stop_watching()
        self.say(Prompt(f"Watch mode stopped: {message.error}", "Press w to watch again.", "error"))
