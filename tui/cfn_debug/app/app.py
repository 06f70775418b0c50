"""The cfn-debug dashboard: the App, its state, and the workers that feed it.

Workers never touch widgets: they post messages (``messages.py``). The handlers below own the state
(the workspace, the events, the run being shown) and update the widgets from it.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from textual import on, work
from textual.app import App, SystemCommand
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Tree

from cfn_debug.app.actions import ACTIONS, CONTEXTUAL, LIVE_ONLY, TABS, bindings
from cfn_debug.app.commands import EventCommands
from cfn_debug.app.config import MODES, AppConfig
from cfn_debug.app.editing import context_problems, restore_redacted
from cfn_debug.app.journaling import SessionLog
from cfn_debug.app.masking import known_secrets, scrub_secrets
from cfn_debug.app.messages import (
    ExportFinished,
    RunFailed,
    RunFinished,
    SessionLoaded,
    WatchStopped,
    WatchUpdate,
    WorkspaceFailed,
    WorkspaceReady,
)
from cfn_debug.app.render import changes_section
from cfn_debug.app.runview import RunView
from cfn_debug.app.screens.help import HelpScreen
from cfn_debug.app.screens.json_editor import JsonEditor
from cfn_debug.app.screens.main import MainScreen
from cfn_debug.app.summary import (
    comparison_line,
    error_code,
    error_hint,
    landing_row,
    run_summary,
    transcript_kind,
)
from cfn_debug.app.themes import DARK, LIGHT, THEMES, palette_for
from cfn_debug.app.transcripts import EXPORT_FORMATS
from cfn_debug.app.widgets.events_panel import EventsPanel
from cfn_debug.app.widgets.header import SessionHeader
from cfn_debug.app.widgets.progress import WorkProgress, is_progress
from cfn_debug.app.widgets.run_status import Countdown, InFlight, Prompt, RunStatus
from cfn_debug.app.widgets.step_detail import StepDetail
from cfn_debug.app.widgets.timeline import Timeline
from cfn_debug.errors import CfnDebugError
from cfn_debug.records import (
    Action,
    AwaitingStep,
    DelayStarted,
    InvocationStarted,
    RunEnded,
    RunRecord,
    RunStarted,
    Step,
    StepCompleted,
)
from cfn_debug.textsafe import printable

if TYPE_CHECKING:
    from cfn_debug.app.watching import DashboardWatcher
    from cfn_debug.chain import ChainControl, ChainOptions
    from cfn_debug.events import EventSpec
    from cfn_debug.session import Journal, Session
    from cfn_debug.workspace import Workspace

WorkspaceOpener = Callable[[AppConfig], "Workspace"]


def open_workspace(config: AppConfig) -> Workspace:
    """Blocking: discovers the project and starts the embedded endpoint. Run it in a thread."""
    from cfn_debug.workspace import Workspace

    return Workspace.open(
        config.project_dir,
        endpoint=config.endpoint,
        function_name=config.function_name,
        schema_path=config.schema,
        region=config.region,
        profile=config.profile,
        env_vars=config.env_vars,
        python=config.python,
        aws=config.aws,
    )


def contract_sentence(rule_id: str, action: Action | None = None) -> str | None:
    """The contract sentence a rule enforces; for a step, only the part about its action."""
    try:
        from cfn_debug.contract import rule

        entry = rule(rule_id)
    except Exception:  # an unknown id (or no catalogue yet) just shows no sentence
        return None
    if action is not None:
        try:
            return entry.contract_for(action) or entry.contract
        except Exception:
            return entry.contract
    return entry.contract


#: More UI errors than this within ERROR_WINDOW_S is a loop the app cannot show its way out of.
ERROR_BURST = 10
ERROR_WINDOW_S = 1.0


class CfnDebugApp(App[int]):
    """The dashboard a resource-type author keeps open beside the editor."""

    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses live elsewhere
    TITLE = "cfn-debug"
    BINDINGS = bindings()
    COMMANDS = App.COMMANDS | {EventCommands}

    def __init__(self, config: AppConfig | None = None, *, opener: WorkspaceOpener | None = None):
        super().__init__()
        self.config = config or AppConfig()
        self._opener = opener or open_workspace
        self.mode = self.config.mode
        self.workspace: Workspace | None = None
        self.workspace_error: tuple[str, str] | None = None
        self.selected_event: int | None = None
        self.view = RunView(generation=0, event_index=None)
        self.running = False
        self.pending_context: Any = ...
        self._workspace_lock = threading.Lock()
        self._shutting_down = False
        #: Read-only: a saved session (`cfn-debug open`); nothing runs.
        self.read_only = self.config.transcript is not None
        self.saved: Session | None = None
        #: Every run of this session, as it ended (what an export writes).
        self.session_runs: list[RunRecord] = []
        self.session_log = SessionLog(self.config.journal, self._journal_problem)
        #: Runs the user starts, and (while watch mode is on) the re-runs saves start.
        self.runner: DashboardWatcher | None = None
        self.watcher: DashboardWatcher | None = None
        self.watching = self.config.watch
        self._chain_lock: asyncio.Lock | None = None
        self._last_generation = 0
        self._watch_generation: int | None = None
        #: Watch mode's latest activity: the save seen (ChangeDetected), the build (BuildFinished).
        self.last_change: Any = None
        self.last_build: Any = None
        #: UI errors caught in place: (monotonic time, text) of the latest ones.
        self.ui_errors: list[tuple[float, str]] = []
        self.last_export: Path | None = None
        self._shown_context: tuple[bool, ...] = ()
        #: What `y` copied last (tests and watchers read it; the terminal got it by OSC 52).
        self.last_copied: str | None = None
        self.last_screenshot: Path | None = None
        if self.config.deterministic:
            self.animation_level = "none"

    # --- layout ---------------------------------------------------------------------------

    def get_default_screen(self) -> Screen[Any]:
        return MainScreen(contract_sentence, deterministic=self.config.deterministic)

    @property
    def main(self) -> Screen[Any]:
        """The main screen (the bottom of the stack), whichever screen is shown over it."""
        return self.screen_stack[0]

    @property
    def status_line(self) -> RunStatus:
        return self.main.query_one(RunStatus)

    @property
    def timeline(self) -> Timeline:
        return self.main.query_one(Timeline)

    @property
    def detail(self) -> StepDetail:
        return self.main.query_one(StepDetail)

    @property
    def header(self) -> SessionHeader:
        return self.main.query_one(SessionHeader)

    @property
    def panel(self) -> EventsPanel:
        return self.main.query_one(EventsPanel)

    @property
    def events(self) -> list[EventSpec]:
        """The project's events, as this session edited them (the events panel owns them)."""
        try:
            return self.panel.events
        except Exception:  # before the main screen is mounted, or after it went
            return []

    @property
    def edited(self) -> set[int]:
        try:
            return self.panel.edited
        except Exception:
            return set()

    def on_main_screen_ready(self, _message: MainScreen.Ready) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = self.config.theme
        self.theme_changed_signal.subscribe(self, lambda _theme: self._apply_palette())
        self._apply_palette()
        self._chain_lock = asyncio.Lock()
        header = self.header
        header.mode = self.mode
        header.watch = self.watching
        self.timeline.border_title = "Timeline"
        if self.read_only:
            self.panel.border_title = "Runs"
            header.type_name = "saved session"
            header.mode = "read-only " + transcript_kind(self.config.transcript)
            header.watch = False
            self.watching = False
            self.status_line.show(Prompt(f"Opening {self.config.transcript}…"))
            self.panel.focus()
            self._load_saved()
            return
        self.panel.border_title = "Events"
        self.status_line.show(Prompt("Opening the project and starting the endpoint…"))
        self.panel.focus()
        self._open_workspace()

    def _apply_palette(self) -> None:
        palette = palette_for(self.current_theme)
        timeline = self.timeline
        timeline.palette = palette
        status = self.status_line
        status.palette = palette
        detail = self.detail
        detail.palette = palette
        timeline.redraw()
        status.show(status.state)
        self._refresh_detail()

    # --- never a traceback ------------------------------------------------------------------

    async def _dispatch_message(self, message: Message) -> None:
        """An exception in one of the app's handlers (a message, a key's action, a callback)
        is shown in place and the app goes on: Textual would end the app's message loop."""
        try:
            await super()._dispatch_message(message)
        except Exception as error:
            if not self._caught_in_place(error):
                raise

    def _handle_exception(self, error: Exception) -> None:
        """The same for what reaches Textual's last resort (a widget's handler, a timer)."""
        if not self._caught_in_place(error):
            super()._handle_exception(error)

    def _caught_in_place(self, error: Exception) -> bool:
        """Show ``error`` in the status line; False when that cannot help: while starting or
        shutting down, or in a burst of errors (a widget failing on every frame)."""
        try:
            now = time.monotonic()
            recent = [t for t, _ in self.ui_errors if now - t < ERROR_WINDOW_S]
            if self._shutting_down or len(recent) >= ERROR_BURST or not self._ui_alive():
                return False
            self._show_ui_error(error, now)
        except Exception:
            return False
        return True

    def _show_ui_error(self, error: Exception, now: float) -> None:
        import traceback

        from cfn_debug.redact import redact_text

        text = redact_text(f"{type(error).__name__}: {error}")
        self.ui_errors = [*self.ui_errors[-20:], (now, text)]
        where = ""
        log = self._error_log_path()
        if log is not None:
            try:
                log.parent.mkdir(parents=True, exist_ok=True)
                with log.open("a", encoding="utf-8") as out:
                    out.write(redact_text("".join(traceback.format_exception(error))) + "\n")
                where = f" The traceback is in {log}."
            except OSError:
                where = ""
        self.status_line.show(
            Prompt(
                f"Internal error (the dashboard keeps running): {text}",
                "Nothing was lost: the session journal is intact." + where + " Please report it.",
                "error",
            )
        )

    def _error_log_path(self) -> Path | None:
        return self.session_log.errors_path

    # --- the session journal ----------------------------------------------------------------

    @property
    def journal(self) -> Journal | None:
        return self.session_log.journal

    @property
    def journal_path(self) -> Path | None:
        return self.config.transcript if self.read_only else self.session_log.path

    def _journal_problem(self, text: str) -> None:
        self.post_message(WatchUpdate(_JournalProblem(text), None))

    # --- the workspace ----------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="workspace", exit_on_error=False)
    def _open_workspace(self) -> None:
        try:
            workspace = self._opener(self.config)
        except CfnDebugError as error:
            self.post_message(WorkspaceFailed(str(error), error_hint(error)))
            return
        except Exception as error:  # never a traceback: say what broke and what to do
            self.post_message(
                WorkspaceFailed(f"{type(error).__name__}: {error}", error_hint(error))
            )
            return
        with self._workspace_lock:
            closing = self._shutting_down
            if not closing:
                self.workspace = workspace
        if closing:
            workspace.close()
            return
        self.post_message(WorkspaceReady(workspace))

    def on_workspace_ready(self, message: WorkspaceReady) -> None:
        if not self._ui_alive():
            return
        workspace = message.workspace
        self.workspace_error = None
        if self.workspace is not None:
            self.session_log.start(self.workspace)
        self._start_runner()
        self.header.endpoint = workspace.endpoint_label
        self.header.aws = str(getattr(workspace, "aws_description", "") or "")
        self._show_events(workspace)
        first = self.panel.first_index()
        if first is not None:
            self.selected_event = first
            self.panel.select_index(first)
            self._show_function(first)
            self.status_line.show(
                Prompt(
                    f"{len(self.events)} events found. Select one and press r to run it.",
                    "e edits it · m changes the replay mode · w watches for saves · "
                    "? shows every key",
                )
            )
        else:
            self.status_line.show(
                Prompt(
                    "No events found in this project.",
                    "Add sam-style events under sample_events/ or sam-tests/ "
                    "(or inputs/inputs_1_create.json), then restart.",
                    tone="warn",
                )
            )
        if self.watching:
            self._start_watching()

    def on_workspace_failed(self, message: WorkspaceFailed) -> None:
        if not self._ui_alive():
            return
        self.workspace_error = (message.error, message.hint)
        self.header.type_name = "(no project)"
        again = "" if self.read_only else "  Press r to try again, q to quit."
        what = "the saved session" if self.read_only else "the project"
        self.status_line.show(
            Prompt(f"Could not open {what}: {message.error}", message.hint + again, tone="error")
        )

    def _ui_alive(self) -> bool:
        """False while the app shuts down and a late message arrives after the widgets went."""
        stack = self.screen_stack
        return bool(stack) and bool(stack[0].query(RunStatus))

    def _project_root(self) -> Path | None:
        if self.workspace is None:
            return None
        root = getattr(self.workspace.project, "root", None)
        return Path(root) if root is not None else None

    def _show_function(self, index: int) -> None:
        if self.workspace is None or not (0 <= index < len(self.events)):
            return
        try:
            function, _shape = self.workspace.function_for(self.events[index])
        except CfnDebugError as error:
            function = f"? ({error.detail})"
        self.header.function = function

    def _close_workspace(self) -> None:
        with self._workspace_lock:
            self._shutting_down = True
            workspace, self.workspace = self.workspace, None
        for watcher in (self.watcher, self.runner):
            if watcher is not None:
                watcher.stop()
        if workspace is not None:
            workspace.close()
        self.session_log.close()

    def on_unmount(self) -> None:
        self._close_workspace()

    # --- a saved session, read-only -----------------------------------------------------------

    @work(thread=True, exclusive=True, group="workspace", exit_on_error=False)
    def _load_saved(self) -> None:
        from cfn_debug.export import load_session

        path = self.config.transcript
        assert path is not None
        if self.config.saved is not None:  # `open` read it before starting
            self.post_message(SessionLoaded(self.config.saved))
            return
        try:
            session = load_session(path)
        except CfnDebugError as error:
            hint = "Name a JSON transcript (cfn-debug export) or a session journal (.jsonl)."
            self.post_message(WorkspaceFailed(str(error), hint))
            return
        except Exception as error:
            self.post_message(
                WorkspaceFailed(f"{type(error).__name__}: {error}", error_hint(error))
            )
            return
        self.post_message(SessionLoaded(session))

    def on_session_loaded(self, message: SessionLoaded) -> None:
        if not self._ui_alive():
            return
        session = message.session
        self.saved = session
        self.session_runs = list(session.runs)
        header = self.header
        header.type_name = Path(session.project).name if session.project else "saved session"
        header.endpoint = f"{session.endpoint or 'unknown endpoint'} (saved)"
        panel = self.panel
        panel.show_runs(self.session_runs, session.problems)
        count = len(self.session_runs)
        problems = f" ({'; '.join(session.problems)})" if session.problems else ""
        self.status_line.show(
            Prompt(
                f"Saved session {self.config.transcript}: {count} run{'s' if count != 1 else ''}"
                f", read-only.{problems}",
                "Select a run to see its steps; nothing runs here (open the project with "
                "`cfn-debug PROJECT_DIR` to run events).",
                "warn" if session.problems else "info",
            )
        )
        if self.session_runs:
            panel.select_index(0)
            self._show_saved_run(0)

    def _show_saved_run(self, index: int) -> None:
        if not (0 <= index < len(self.session_runs)):
            return
        run = self.session_runs[index]
        self.selected_event = index
        self._last_generation += 1
        self.view = RunView(
            self._last_generation,
            None,
            mode="read-only",
            run=run,
            steps=list(run.steps),
            ended=True,
            event_name=run.event_name,
        )
        self.header.function = run.function_name
        self.timeline.show_steps(self.view.steps)
        self._title_timeline()
        self._refresh_detail()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A saved session shows (and runs) only what works on it; the step, delay and stop
        keys show only while they do something (an 80-column footer stays whole)."""
        if self.read_only and action in LIVE_ONLY:
            return False
        if action in CONTEXTUAL:
            return self._contextual().get(action, True)
        return True

    def _contextual(self) -> dict[str, bool]:
        stepping = self.view.awaiting is not None or (self.mode == "step" and not self.running)
        try:
            counting = isinstance(self.status_line.state, Countdown)
        except Exception:  # no main screen yet (starting, shutting down)
            counting = False
        return {
            "advance": stepping,
            "edit_context": self.view.awaiting is not None,
            "skip_delay": counting,
            "cancel_run": self.running,
        }

    def _footer_follows(self) -> None:
        """Refresh the footer when what the contextual keys can do changed (not per step)."""
        now = tuple(self._contextual().values())
        if now != self._shown_context:
            self._shown_context = now
            self.refresh_bindings()

    def action_copy(self) -> None:
        """y: copy a piece of the selected step, masked as exports are (OSC 52)."""
        from cfn_debug.app.screens.copy import CopyScreen

        step = self.detail.step
        if step is None or self.view.run is None:
            self.bell()
            self.notify("Select a step first: y copies from the selected step.")
            return
        self.push_screen(CopyScreen(step.index, self.detail.active), self._copy_chosen)

    def _copy_chosen(self, what: str | None) -> None:
        from cfn_debug.export.clip import CLIPS, clip_text

        step, run = self.detail.step, self.view.run
        if what is None or step is None or run is None:
            return
        schema = self.workspace.schema if self.workspace is not None else None
        steps = self.view.steps if self.view.steps else run.steps
        index = next((i for i, s in enumerate(steps) if s is step), step.index)
        text = clip_text(run, steps, index, what, schema.write_only if schema else ())
        self.copy_to_clipboard(text)
        self.last_copied = text
        title = dict(CLIPS)[what]
        self.notify(
            f"Copied the {title} of step #{step.index} ({len(text):,} characters).", markup=False
        )

    def action_search(self) -> None:
        """/: search the current detail tab."""
        self.detail.start_search()

    def action_toggle_sidebar(self) -> None:
        self.panel.toggle_class("-hidden")
        if self.panel.has_class("-hidden") and self.panel.has_focus:
            self.timeline.focus()

    def action_maximize_detail(self) -> None:
        screen = self.main
        if screen.maximized is not None:
            screen.minimize()
        else:
            screen.maximize(self.detail, container=False)

    def _refuse_read_only(self) -> bool:
        """True (after saying so) when the dashboard shows a saved session."""
        if not self.read_only:
            return False
        self.status_line.show(
            Prompt(
                "This is a saved session, opened read-only: nothing runs, nothing is edited.",
                "Open the project with `cfn-debug PROJECT_DIR` to run its events; "
                "Ctrl+E exports this session.",
                "warn",
            )
        )
        return True

    # --- events -----------------------------------------------------------------------------

    @on(Tree.NodeHighlighted, "#events")
    def _event_highlighted(self, message: Tree.NodeHighlighted[int]) -> None:
        if message.node.data is None:
            error = self.panel.error_of(message.node)
            if error is not None:
                self.status_line.show(
                    Prompt(
                        f"Not loaded: {error}",
                        "Fix the file and restart (or save it in watch mode).",
                        "error",
                    )
                )
            return
        if self.read_only:
            self._show_saved_run(message.node.data)
            return
        self.selected_event = message.node.data
        self._show_function(message.node.data)
        self._target(message.node.data)

    @on(EventsPanel.RunRequested)
    def _event_chosen(self, message: EventsPanel.RunRequested) -> None:
        if self.read_only:
            return
        self.selected_event = message.index
        self.run_event(message.index)

    def _target(self, index: int) -> None:
        """What a save re-runs in watch mode: the event selected or run last."""
        if self.watcher is not None and 0 <= index < len(self.events):
            self.watcher.set_targets([self.events[index]])

    def _selected(self) -> EventSpec | None:
        if self.read_only:
            return None
        if self.selected_event is None or not (0 <= self.selected_event < len(self.events)):
            return None
        return self.events[self.selected_event]

    def _event_problems(self, data: Any) -> list[tuple[str, str]]:
        """Validate an edited event: its shape (engine rules), then its model (schema)."""
        from cfn_debug.events import parse_event

        spec = self._selected()
        try:
            parsed = parse_event(data, name=spec.name if spec else "edited", path=None)
        except CfnDebugError as error:
            return [(error.field or "", error.detail)]
        from cfn_debug.event_checks import model_problems

        schema = self.workspace.schema if self.workspace is not None else None
        if schema is None:
            return []
        problems = model_problems(schema, parsed.action, parsed.normalized.desired)
        return [(f"desiredResourceState{pointer}", text) for pointer, text in problems]

    def action_edit_event(self) -> None:
        if self._refuse_read_only():
            return
        spec, index = self._selected(), self.selected_event
        if spec is None or index is None:
            self.bell()
            return
        from cfn_debug.redact import redact

        editor = JsonEditor(
            f"Event {spec.name}: edits apply to this session (credentials stay as they are); "
            "E opens the file in $EDITOR",
            redact(spec.data),
            self._event_problems,
            allow_with_problems=True,
        )
        self.push_screen(editor, lambda value: self._event_edited(index, value))

    def _event_edited(self, index: int, value: Any) -> None:
        if value is ...:
            return
        from cfn_debug.events import parse_event

        original = self.events[index]
        value = restore_redacted(value, original.data)
        try:
            edited = parse_event(value, name=original.name, path=original.path)
        except CfnDebugError as error:
            self.status_line.show(
                Prompt(
                    f"The edited event was not applied: {error}",
                    "Press e to edit it again.",
                    "error",
                )
            )
            return
        self.panel.replace(index, edited, edited=True)
        self._target(index)
        self.status_line.show(
            Prompt(f"Edited {original.name} (this session only).", "Press r to run it.", "ok")
        )

    def action_open_in_editor(self) -> None:
        if self._refuse_read_only():
            return
        spec, index = self._selected(), self.selected_event
        if spec is None or index is None or spec.path is None:
            self.bell()
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        try:
            with self.suspend():
                subprocess.run([*shlex.split(editor), str(spec.path)], check=False)
        except Exception as error:  # no terminal to hand over (tests, web) or no such editor
            self.status_line.show(
                Prompt(
                    f"Could not open $EDITOR ({editor}): {error}",
                    "Set EDITOR, or press e to edit the event here.",
                    "error",
                )
            )
            return
        self._reload_event(index)

    def _reload_event(self, index: int) -> None:
        from cfn_debug.events import load_event

        original = self.events[index]
        assert original.path is not None
        try:
            exports = self.workspace.project.exports if self.workspace is not None else None
            reloaded = load_event(original.path, name=original.name, exports=exports)
        except CfnDebugError as error:
            self.status_line.show(
                Prompt(
                    f"The event did not reload: {error}", "Fix the file and press E again.", "error"
                )
            )
            return
        self.panel.replace(index, reloaded, edited=False)
        self._target(index)
        self.status_line.show(Prompt(f"Reloaded {original.name} from disk.", tone="ok"))

    # --- running ----------------------------------------------------------------------------

    def _options(self) -> ChainOptions:
        from cfn_debug.chain import ChainOptions

        return ChainOptions(
            max_reinvoke=0 if self.mode == "stop" else self.config.max_reinvoke,
            max_delay_s=self.config.max_delay,
            step_mode=self.mode == "step",
            read_back=self.config.read_back,
        )

    def _start_runner(self) -> None:
        from cfn_debug.app.watching import DashboardWatcher

        if self.workspace is None or self.runner is not None:
            return
        assert self._chain_lock is not None
        self.runner = DashboardWatcher(
            self.workspace,
            self._options(),
            on_event=partial(self._engine_event, "run"),
            lock=self._chain_lock,
        )

    @property
    def control(self) -> ChainControl | None:
        """The ChainControl of the chain in flight, whichever watcher runs it."""
        for watcher in (self.runner, self.watcher):
            if watcher is not None and watcher.control is not None:
                return watcher.control
        return None

    def action_run_event(self) -> None:
        if self._refuse_read_only():
            return
        if self.workspace is None:
            if self.workspace_error is not None:
                self.workspace_error = None
                self.status_line.show(Prompt("Opening the project again…"))
                self._open_workspace()
            return
        if self.selected_event is None:
            self.bell()
            return
        self.run_event(self.selected_event)

    def run_event(self, index: int) -> None:
        """Start (or restart) a chain for the event at ``index`` in the current replay mode."""
        if self.read_only or self.workspace is None or not (0 <= index < len(self.events)):
            return
        if self.runner is None:
            self._start_runner()
        runner = self.runner
        assert runner is not None
        control = self.control
        if control is not None:
            control.cancel()  # the new run starts once this one has wound down
        runner.options = self._options()
        self._target(index)
        self.pending_context = ...
        self._last_generation += 1
        event = self.events[index]
        if index in self.edited:  # an edit pins token and Name (Workspace.request_for)
            self.workspace.pin(event)
        self.selected_event = index
        self.panel.select_index(index)
        self.view = RunView(self._last_generation, index, mode=self.mode, event_name=event.name)
        self.running = True
        self._footer_follows()
        self.timeline.reset()
        self._title_timeline()
        self._refresh_detail()
        self.status_line.show(Prompt(f"Running {event.name}…"))
        self._show_function(index)
        self._run_chain(self.view.generation, event, runner)

    @work(group="chain", exit_on_error=False)
    async def _run_chain(self, generation: int, event: EventSpec, runner: Any) -> None:
        try:
            wanted = partial(self._still_wanted, generation)
            await runner.run_when_free([event], wanted)
        except CfnDebugError as error:
            self.post_message(RunFailed(generation, str(error), error_hint(error)))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the engine broke: say so in place, never a traceback
            self.post_message(
                RunFailed(generation, f"{type(error).__name__}: {error}", error_hint(error))
            )
        finally:
            self.post_message(RunFinished(generation))

    def _still_wanted(self, generation: int) -> bool:
        wanted = self.view.generation == generation and not self._shutting_down
        if wanted and self.runner is not None:
            self.runner.generation = generation  # type: ignore[attr-defined]
        return wanted

    def _engine_event(self, source: str, event: Any) -> None:
        """Every event of the engine's stream, from either watcher, as it happens: journalled
        here, then handed to the UI."""
        from cfn_debug.watch import ChangeDetected, RerunStarted

        if isinstance(event, RunStarted | StepCompleted | RunEnded):
            self.session_log.record(event)
            if isinstance(event, RunEnded):
                self.session_runs.append(event.run)
        generation: int | None
        if source == "run":
            generation = getattr(self.runner, "generation", None)
        else:
            if isinstance(event, ChangeDetected) and self.runner is not None:
                control = self.runner.control
                if control is not None:
                    control.cancel()  # a save cancels the user's chain; the re-run follows
            if isinstance(event, RerunStarted):
                self._last_generation += 1
                self._watch_generation = self._last_generation
            generation = self._watch_generation
        self.post_message(WatchUpdate(event, generation))

    def on_watch_update(self, message: WatchUpdate) -> None:
        if not self._ui_alive():
            return
        self._route(message)
        self._footer_follows()

    def _route(self, message: WatchUpdate) -> None:
        if is_progress(message.event):
            self._show_progress(message.event)
            return
        from cfn_debug import watch

        event = message.event
        if isinstance(event, _JournalProblem):
            self.status_line.show(
                Prompt(event.text, "The runs go on; exports still work.", "error")
            )
        elif isinstance(event, watch.RerunStarted):
            self._rerun_started(event, message.generation)
        elif isinstance(event, watch.ChangeDetected):
            self.last_change, self.last_build = event, None
            self.status_line.show(
                Prompt(
                    f"Saved: {self._paths_text(event.paths)}",
                    "Re-running…" if not self.config.build else f"Building: {self.config.build}",
                )
            )
            self._refresh_detail()
        elif isinstance(event, watch.BuildStarted):
            self.status_line.show(Prompt(f"Building: {event.command}…"))
        elif isinstance(event, watch.BuildFinished):
            self.last_build = event
            if not event.ok:
                code = "could not start" if event.returncode is None else f"exit {event.returncode}"
                last = event.output.strip().splitlines()[-1:] or [""]
                self.status_line.show(
                    Prompt(
                        f"Build failed ({code}): nothing re-ran. {last[0]}",
                        "The Findings tab's Changes section has the build output.",
                        "error",
                    )
                )
            self._refresh_detail()
        elif isinstance(event, watch.WatchProblem):
            if message.generation == self.view.generation and self.view.rerun is not None:
                self.view.ended = True
                self.running = False
            self.status_line.show(
                Prompt(event.message, "Fix it and save again: watch mode goes on.", "error")
            )
        elif isinstance(event, watch.WatchReady):
            self.header.watch = True
        elif isinstance(event, watch.Comparison):
            if message.generation == self.view.generation:
                self.view.comparison = event
                self._show_summary()
                self._refresh_detail()
        elif message.generation == self.view.generation:
            self._chain_event(event)

    def _show_progress(self, event: Any) -> None:
        """Long work the engine reports (a setup stack, an environment build, generated inputs):
        a bar with counts and elapsed time above the status line."""
        bar = self.main.query_one(WorkProgress)
        if getattr(event, "finished", False):
            bar.finish()
        else:
            bar.advance(int(event.done), str(event.label), event.total)

    def _paths_text(self, paths: Iterable[str]) -> str:
        root = self._project_root()
        shown = []
        for path in paths:
            try:
                shown.append(str(Path(path).relative_to(root.resolve())) if root else path)
            except ValueError:
                shown.append(path)
        return ", ".join(shown)

    def _rerun_started(self, event: Any, generation: int | None) -> None:
        if generation is None:
            return
        if self.last_change is not None and getattr(self.last_change, "kinds", None):
            from cfn_debug.watch import EVENT, SCHEMA

            if self.last_change.kinds & {EVENT, SCHEMA}:
                self._take_reloaded_events()
        names = [e.name for e in self.events]
        index = names.index(event.event_name) if event.event_name in names else None
        self.pending_context = ...
        self.view = RunView(
            generation,
            index,
            mode=self.mode,
            rerun=self.last_change,
            event_name=event.event_name,
        )
        self.running = True
        if index is not None:
            self.selected_event = index
            self.panel.select_index(index)
            self._show_function(index)
        self.timeline.reset()
        self._title_timeline()
        self._refresh_detail()
        self.status_line.show(Prompt(f"Re-running {event.event_name} ({event.reason} saved)…"))

    def _take_reloaded_events(self) -> None:
        if self.workspace is not None:
            self._show_events(self.workspace)

    def _show_events(self, workspace: Workspace) -> None:
        """Take the workspace's events (dropping this session's edits) and its type name."""
        errors = [str(e) for e in getattr(workspace.project, "event_errors", [])]
        self.panel.show_events(list(workspace.events), self._project_root(), errors)
        schema = workspace.schema
        self.header.type_name = schema.type_name if schema is not None else "(no schema)"

    def _chain_event(self, record: Any) -> None:
        view = self.view
        status = self.status_line
        if isinstance(record, RunStarted):
            view.run = record.run
            self._title_timeline()
        elif isinstance(record, InvocationStarted):
            view.awaiting = None
            view.invocations.append(record)
            status.show(
                InFlight(
                    record.index, record.action.value, record.limit_s, record.started_monotonic
                )
            )
        elif isinstance(record, StepCompleted):
            self._add_step(record.step)
            status.show(None)
        elif isinstance(record, DelayStarted):
            status.show(
                Countdown(
                    record.index, record.seconds, record.requested_s, record.started_monotonic
                )
            )
        elif isinstance(record, AwaitingStep):
            view.awaiting = record
            edited = "" if self.pending_context is ... else " (callbackContext edited)"
            status.show(
                Prompt(
                    f"Step mode: invocation #{record.next_index} is ready{edited}.",
                    "s sends it · c edits its callbackContext · x stops the chain",
                )
            )
        elif isinstance(record, RunEnded):
            self._run_ended(record.run)

    def _add_step(self, step: Step) -> None:
        self.view.steps.append(step)
        self.timeline.queue_step(step)  # its cursor move refreshes the detail

    def _run_ended(self, run: RunRecord) -> None:
        view = self.view
        view.run, view.ended, view.awaiting = run, True, None
        if len(run.steps) >= len(view.steps):
            view.steps = list(run.steps)
        self.timeline.finish(view.steps, landing_row(view.steps))
        if view.rerun is not None:
            self.running = False
        self._title_timeline()
        self._show_summary()
        self._refresh_detail()

    def _show_summary(self) -> None:
        view = self.view
        if view.run is None or not view.ended:
            return
        text, hint, tone = run_summary(view.run, single=view.mode == "stop")
        if view.run.final_status == "FAILED" and error_code(view.run) == "AlreadyExists":
            hint = self._already_exists_hint(view.run)
        if view.comparison is not None:
            text = f"{text}  {comparison_line(view.comparison)}"
        self.status_line.show(Prompt(text, hint, tone))

    def _already_exists_hint(self, run: RunRecord) -> str:
        """AlreadyExists after an earlier run of this session created the same Name: say so,
        and how to start again."""
        from cfn_debug.demo.runs import requested_name

        name = requested_name(run.steps[0].request) if run.steps else None
        earlier = [
            n
            for n, past in enumerate(self.session_runs, start=1)
            if past is not run
            and past.action is Action.CREATE
            and past.final_status == "SUCCESS"
            and past.steps
            and requested_name(past.steps[0].request) == name
        ]
        cause = (
            f"Run #{earlier[-1]} of this session created {name!r}. "
            if earlier and name
            else "A previous run may have created it. "
        )
        if self._is_demo():
            return cause + "R resets the demo's state (or edit the event's Name)."
        return cause + "Delete it first (run a delete event), or change the Name."

    def _is_demo(self) -> bool:
        from cfn_debug.demo.runs import is_demo

        return is_demo(self._project_root())

    def action_reset_demo(self) -> None:
        if self._refuse_read_only():
            return
        if not self._is_demo():
            self.status_line.show(
                Prompt(
                    "R resets the bundled demo's state; this project is not the demo.", tone="warn"
                )
            )
            return
        if self.running:
            self.status_line.show(
                Prompt("A chain is running: stop it (x) before resetting the demo.", tone="warn")
            )
            return
        from cfn_debug.demo.runs import reset_state

        try:
            root = reset_state(self.config.env_vars)
        except OSError as error:
            self.status_line.show(
                Prompt(f"Could not reset the demo's state: {error}", tone="error")
            )
            return
        self.status_line.show(
            Prompt(
                f"Demo state reset ({root}): every widget your runs created is gone.",
                "The seed widgets come back with the next invocation.",
                "ok",
            )
        )

    def _title_timeline(self) -> None:
        self.timeline.show_title(self.view)

    def on_run_failed(self, message: RunFailed) -> None:
        if not self._ui_alive():
            return
        if message.generation != self.view.generation:
            return
        self.view.ended = True
        self.status_line.show(Prompt(message.error, message.hint, "error"))

    def on_run_finished(self, message: RunFinished) -> None:
        if not self._ui_alive():
            return
        if message.generation == self.view.generation and self.view.rerun is None:
            if not self.view.ended and self.view.run is None:
                # never started: a save's re-run or another run took its place
                self.view.ended = True
            self.running = False
            self._show_mode()

    # --- step selection and detail ----------------------------------------------------------

    @on(DataTable.RowHighlighted, "#timeline")
    def _step_highlighted(self, message: DataTable.RowHighlighted) -> None:
        # The row under the cursor now: a late message must not show an older step.
        self._refresh_detail()

    def _refresh_detail(self, row: int | None = None) -> None:
        if not self._ui_alive():
            return
        steps = self.view.steps
        timeline = self.timeline
        if row is None:
            row = timeline.cursor_row if timeline.row_count else -1
        step = steps[row] if 0 <= row < len(steps) else None
        limit = None
        if self.workspace is not None and self.workspace.schema is not None and steps:
            try:
                limit = self.workspace.schema.handler_timeout_s(steps[0].action)
            except Exception:
                limit = None
        detail = self.detail
        detail.changes = self._changes()
        detail.show(step, steps, self.view.run if self.view.ended else None, limit)

    def _changes(self) -> RenderableType | None:
        """The Findings tab's Changes section: the save behind this re-run, the build, and the
        findings against the previous run of the event."""
        view = self.view
        change = view.rerun
        build = self.last_build
        if view.comparison is None and change is None and build is None:
            return None
        if change is None and not self.watching:
            build = None
        paths = self._paths_text(change.paths) if change is not None else None
        return changes_section(
            paths,
            build,
            view.comparison,
            self.detail.palette,
            deterministic=self.config.deterministic,
        )

    def action_show_tab(self, tab: str) -> None:
        self.detail.active = tab

    # --- replay controls --------------------------------------------------------------------

    def action_cycle_mode(self) -> None:
        if self._refuse_read_only():
            return
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        if self.watcher is not None:
            self.watcher.options = self._options()
        self._show_mode()

    def _show_mode(self) -> None:
        """The header shows the mode; one changed during a run applies to the next run."""
        self._footer_follows()
        if self.read_only:
            return
        pending = self.running and self.mode != self.view.mode
        self.header.mode = f"{self.mode} (next run)" if pending else self.mode

    def action_advance(self) -> None:
        if self._refuse_read_only():
            return
        control, awaiting = self.control, self.view.awaiting
        if control is None or awaiting is None:
            if not self.running and self.mode == "step" and self.selected_event is not None:
                self.run_event(self.selected_event)
            else:
                self.bell()
            return
        self.view.awaiting = None
        if self.pending_context is ...:
            control.advance()
        else:
            control.advance(callback_context=self.pending_context)
        self.pending_context = ...

    def action_edit_context(self) -> None:
        if self._refuse_read_only():
            return
        awaiting = self.view.awaiting
        if awaiting is None:
            self.bell()
            return
        current = awaiting.callback_context if self.pending_context is ... else self.pending_context
        editor = JsonEditor(
            f"callbackContext for invocation #{awaiting.next_index} (a JSON object, or null)",
            current,
            context_problems,
            apply_label="Use it (Ctrl+S)",
        )
        self.push_screen(editor, self._context_edited)

    def _context_edited(self, value: Any) -> None:
        awaiting = self.view.awaiting
        if value is ... or awaiting is None:
            return
        self.pending_context = value
        self.status_line.show(
            Prompt(
                f"Step mode: invocation #{awaiting.next_index} is ready (callbackContext edited).",
                "s sends it · c edits its callbackContext · x stops the chain",
            )
        )

    def action_skip_delay(self) -> None:
        if self._refuse_read_only():
            return
        status = self.status_line
        control = self.control
        if control is None or not isinstance(status.state, Countdown):
            self.bell()
            return
        control.skip_delay()
        status.show(Prompt("Delay skipped."))

    def action_cancel_run(self) -> None:
        if self._refuse_read_only():
            return
        control = self.control
        if control is None:
            self.bell()
            return
        control.cancel()

    # --- watch mode -------------------------------------------------------------------------

    def action_toggle_watch(self) -> None:
        if self._refuse_read_only():
            return
        if self.watcher is not None or (self.watching and self.workspace is None):
            self._stop_watching()
            self.status_line.show(
                Prompt("Watch mode off.", "w watches the handler sources, schema and events again.")
            )
            return
        self.watching = True
        if self.workspace is None:
            self.header.watch = True
            return  # it starts when the project opens
        self._start_watching()

    def _start_watching(self) -> None:
        from cfn_debug.app.watching import DashboardWatcher

        if self.workspace is None or self.watcher is not None:
            return
        assert self._chain_lock is not None
        self._start_runner()
        watcher = DashboardWatcher(
            self.workspace,
            self._options(),
            on_event=partial(self._engine_event, "watch"),
            build=self.config.build,
            lock=self._chain_lock,
        )
        if self.runner is not None:
            watcher.previous = self.runner.previous  # one record of previous runs, shared
        self.watcher = watcher
        self.watching = True
        if self.selected_event is not None:
            self._target(self.selected_event)
        self.header.watch = True
        build = f", then `{self.config.build}`" if self.config.build else ""
        self.status_line.show(
            Prompt(
                "Watch mode on: saving a handler source, the schema or an event file re-runs "
                f"the selected event{build}.",
                "w turns it off · the Findings tab shows what changed against the last run",
            )
        )
        self._watch_files(watcher)

    def _stop_watching(self) -> None:
        watcher, self.watcher = self.watcher, None
        self.watching = False
        self._watch_generation = None
        if watcher is not None:
            watcher.stop()
        self.workers.cancel_group(self, "watch")
        self.header.watch = False

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def _watch_files(self, watcher: Any) -> None:
        try:
            await watcher.watch()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # watching broke (no inotify, a vanished directory)
            self.post_message(WatchStopped(f"{type(error).__name__}: {error}"))

    def on_watch_stopped(self, message: WatchStopped) -> None:
        if not self._ui_alive():
            return
        self._stop_watching()
        self.status_line.show(
            Prompt(f"Watch mode stopped: {message.error}", "Press w to watch again.", "error")
        )

    # --- transcripts ------------------------------------------------------------------------

    def action_export(self, fmt: str | None = None) -> None:
        """Export the session; without a format, ask which."""
        if fmt is None:
            from cfn_debug.app.screens.export import ExportScreen

            self.push_screen(ExportScreen(), self._export_chosen)
            return
        self._export_chosen(fmt)

    def _export_chosen(self, fmt: str | None) -> None:
        if fmt is None:
            return
        from cfn_debug.app.transcripts import export_target

        base = self.journal_path
        if base is None:
            from cfn_debug.session import default_journal_path

            base = default_journal_path()
        if not self.session_runs:
            self.status_line.show(
                Prompt("Nothing to export yet.", "Run an event first (r).", "warn")
            )
            return
        target = export_target(base, fmt)
        self.status_line.show(Prompt(f"Exporting the session to {target}…"))
        self._write_export(fmt, target, self._export_session())

    def _export_session(self) -> Any:
        from cfn_debug.session import Session

        if self.saved is not None:
            return self.saved
        workspace = self.workspace
        return Session(
            runs=list(self.session_runs),
            project=str(self._project_root()) if self._project_root() else None,
            endpoint=workspace.endpoint_label if workspace is not None else None,
        )

    @work(thread=True, group="export", exit_on_error=False)
    def _write_export(self, fmt: str, target: Path, session: Any) -> None:
        from cfn_debug.app.transcripts import write_export

        schema = self.workspace.schema if self.workspace is not None else None
        write_only = schema.write_only if schema is not None else ()
        try:
            write_export(session, fmt, target, write_only)
        except (OSError, CfnDebugError, ValueError) as error:
            self.post_message(ExportFinished(fmt, target, f"{type(error).__name__}: {error}"))
            return
        self.post_message(ExportFinished(fmt, target))

    def on_export_finished(self, message: ExportFinished) -> None:
        if not self._ui_alive():
            return
        self.last_export = message.path
        if message.error is not None:
            self.status_line.show(
                Prompt(f"The export failed: {message.error}", "Check the directory.", "error")
            )
            return
        title = dict(EXPORT_FORMATS).get(message.fmt, message.fmt)
        self.status_line.show(Prompt(f"Exported the session as {title}: {message.path}", tone="ok"))
        self.notify(f"Exported {printable(str(message.path))}", title="Export", markup=False)

    # --- misc -------------------------------------------------------------------------------

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT.name if self.theme == DARK.name else DARK.name

    def action_scenarios(self) -> None:
        from cfn_debug.app.screens.scenarios import ScenariosScreen

        self.push_screen(ScenariosScreen.for_app(self))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            path = self.journal_path
            shown = None
            if path is not None:
                shown = f"…/{path.name}" if self.config.deterministic else str(path)
            self.push_screen(HelpScreen(shown, saved=self.read_only))

    def action_screenshot(self) -> None:
        """An SVG of the screen shown, credentials masked, in the state directory (or
        --screenshot-dir): never into the project."""
        from cfn_debug.session import state_dir

        folder = self.config.screenshot_dir or state_dir() / "screenshots"
        target = folder / f"cfn-debug_{time.strftime('%Y%m%d_%H%M%S')}.svg"
        svg = scrub_secrets(self.export_screenshot(title="cfn-debug"), self._known_secrets())
        try:
            folder.mkdir(parents=True, exist_ok=True)
            target.write_text(svg, encoding="utf-8")
        except OSError as error:
            self.notify(
                printable(f"Could not save the screenshot: {error}"), severity="error", markup=False
            )
            return
        self.last_screenshot = target
        self.notify(printable(f"Saved {target}"), markup=False)

    def _known_secrets(self) -> set[str]:
        """Every credential value the session carries (events, profile): none may be drawn."""
        sources: list[Any] = [event.data for event in self.events]
        if self.workspace is not None:
            sources.append(getattr(self.workspace.defaults, "credentials", None))
        return known_secrets(sources)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for action in ACTIONS:
            yield SystemCommand(action.title, action.help, self._runner_of(action.action))
        for tab_id, title in TABS:
            yield SystemCommand(
                f"Show {title}", f"Switch the detail to the {title} tab.", self._tab_runner(tab_id)
            )
        for fmt, title in EXPORT_FORMATS:
            yield SystemCommand(
                f"Export session as {title}",
                "Write every run of this session beside the journal (credentials redacted).",
                partial(self.action_export, fmt),
            )

    def _runner_of(self, action: str) -> Callable[[], Any]:
        return lambda: self.run_action(action)

    def _tab_runner(self, tab_id: str) -> Callable[[], None]:
        return lambda: self.action_show_tab(tab_id)


@dataclass(frozen=True)
class _JournalProblem:
    text: str
