"""The main screen's half that follows the engine: what the App routes to it from the chain
and watch workers (``WatchUpdate``, ``RunFailed``, ``RunFinished``, ``WatchStopped``,
``Progress``) updates the run shown (the screen's ``RunView``) and becomes messages for the
widgets (StepAdded, RunEnded, RunUpdated, StatusChanged, Progress). Watch mode's on and off.
A mixin of ``MainScreen`` (``screens/main.py``), which holds the state."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from cfn_debug.app.messages import (
    EventChosen,
    Progress,
    RunEnded,
    RunFailed,
    RunFinished,
    StepAdded,
    WatchStopped,
    WatchUpdate,
)
from cfn_debug.app.render import changes_section
from cfn_debug.app.runview import RunView
from cfn_debug.app.summary import comparison_line, error_code, landing_row, run_summary
from cfn_debug.app.widgets.progress import WorkProgress, is_progress
from cfn_debug.app.widgets.run_status import Countdown, InFlight, Prompt, RunStatus
from cfn_debug.app.widgets.step_detail import StepDetail
from cfn_debug.app.widgets.timeline import Timeline
from cfn_debug.records import (
    AwaitingStep,
    DelayStarted,
    InvocationStarted,
    RunRecord,
    StepCompleted,
)
from cfn_debug.records import RunEnded as RunRecordEnded
from cfn_debug.records import RunStarted as RunRecordStarted

if TYPE_CHECKING:
    from cfn_debug.app.screens.main import MainScreen

    _Base = MainScreen
else:
    _Base = object

#: The widgets that follow the run shown.
RUN_WIDGETS = (Timeline, StepDetail)


class MainStream(_Base):
    def on_run_failed(self, message: RunFailed) -> None:
        if message.generation != self.view.generation:
            return
        self.view.ended = True
        self.say(Prompt(message.error, message.hint, "error"))

    def on_run_finished(self, message: RunFinished) -> None:
        if message.generation == self.view.generation and self.view.rerun is None:
            if not self.view.ended and self.view.run is None:
                # never started: a save's re-run or another run took its place
                self.view.ended = True
            self.running = False
            self.show_mode()

    # --- the engine's stream --------------------------------------------------------------

    def on_watch_update(self, message: WatchUpdate) -> None:
        self._route(message)
        self._footer_follows()

    def on_progress(self, message: Progress) -> None:
        bar = partial(Progress, message.label, message.done, message.total, message.finished)
        self.tell(bar, WorkProgress)

    def _route(self, message: WatchUpdate) -> None:
        from cfn_debug import watch

        event = message.event
        if is_progress(event):
            done = int(event.done)
            finished = bool(getattr(event, "finished", False))
            self.on_progress(Progress(str(event.label), done, event.total, finished))
        elif isinstance(event, JournalProblem):
            self.say(Prompt(event.text, "The runs go on; exports still work.", "error"))
        elif isinstance(event, watch.RerunStarted):
            self._rerun_started(event, message.generation)
        elif isinstance(event, watch.ChangeDetected):
            self.last_change, self.last_build = event, None
            self.say(
                Prompt(
                    f"Saved: {self.live.paths_text(event.paths)}",
                    "Re-running…" if not self.config.build else f"Building: {self.config.build}",
                )
            )
            self._run_updated()
        elif isinstance(event, watch.BuildStarted):
            self.say(Prompt(f"Building: {event.command}…"))
        elif isinstance(event, watch.BuildFinished):
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
        elif isinstance(event, watch.WatchProblem):
            if message.generation == self.view.generation and self.view.rerun is not None:
                self.view.ended = True
                self.running = False
            self.say(Prompt(event.message, "Fix it and save again: watch mode goes on.", "error"))
        elif isinstance(event, watch.WatchReady):
            self.header.watch = True
        elif isinstance(event, watch.Comparison):
            if message.generation == self.view.generation:
                self.view.comparison = event
                self._show_summary()
                self._run_updated()
        elif message.generation == self.view.generation:
            self._chain_event(event)

    def _rerun_started(self, event: Any, generation: int | None) -> None:
        workspace = self.live.workspace
        if generation is None or workspace is None:
            return
        names = [e.name for e in self.events]
        kinds = getattr(self.last_change, "kinds", None)
        if kinds:
            from cfn_debug.watch import EVENT, SCHEMA

            if kinds & {EVENT, SCHEMA}:
                self._show_events(workspace, reload=True)
                names = [e.name for e in workspace.events]
            # a saved schema (or models.py, a source file) may add or settle a notice
            from cfn_debug.app.opening import workspace_notices
            from cfn_debug.app.widgets.notices import Notices

            self.query_one(Notices).post_message(
                Notices.Show(workspace_notices(workspace), f"{workspace.project.root}")
            )
        index = names.index(event.event_name) if event.event_name in names else None
        self.pending_context = ...
        self.view = RunView(
            generation, index, mode=self.mode, rerun=self.last_change, event_name=event.event_name
        )
        self.view.changes = self._changes()
        self.running = True
        if index is not None:
            self.selected_event = index
            self.panel.post_message(EventChosen(index))
            self._show_function(index)
        self._run_shown()
        self.say(Prompt(f"Re-running {event.event_name} ({event.reason} saved)…"))

    def _chain_event(self, record: Any) -> None:
        view = self.view
        if isinstance(record, RunRecordStarted):
            view.run = record.run
            self._run_updated()
        elif isinstance(record, InvocationStarted):
            view.awaiting = None
            view.invocations.append(record)
            if view.limit_s is None:
                view.limit_s = self._limit(record.action)
            self.say(
                InFlight(
                    record.index, record.action.value, record.limit_s, record.started_monotonic
                )
            )
        elif isinstance(record, StepCompleted):
            view.steps.append(record.step)
            self.status_state = None  # the status line clears itself on StepAdded
            self.tell(partial(StepAdded, view, record.step), Timeline, StepDetail, RunStatus)
        elif isinstance(record, DelayStarted):
            self.say(
                Countdown(
                    record.index, record.seconds, record.requested_s, record.started_monotonic
                )
            )
        elif isinstance(record, AwaitingStep):
            view.awaiting = record
            edited = "" if self.pending_context is ... else " (callbackContext edited)"
            self.say(
                Prompt(
                    f"Step mode: invocation #{record.next_index} is ready{edited}.",
                    "s sends it · c edits its callbackContext · x stops the chain",
                )
            )
        elif isinstance(record, RunRecordEnded):
            self._run_ended(record.run)

    def _run_ended(self, run: RunRecord) -> None:
        view = self.view
        view.run, view.ended, view.awaiting = run, True, None
        if len(run.steps) >= len(view.steps):
            view.steps = list(run.steps)
        if view.rerun is not None:
            self.running = False
        view.changes = self._changes()
        self.tell(partial(RunEnded, view, landing_row(view.steps)), *RUN_WIDGETS)
        self._show_summary()

    def _limit(self, action: Any) -> float | None:
        workspace = self.live.workspace
        if workspace is None or workspace.schema is None:
            return None
        try:
            return float(workspace.schema.handler_timeout_s(action))
        except Exception:
            return None

    def _show_summary(self) -> None:
        from cfn_debug.app import demo_support

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


class JournalProblem:
    """The session journal stopped (a full disk): said once, the runs go on."""

    def __init__(self, text: str) -> None:
        self.text = text
