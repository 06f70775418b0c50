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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Tree

from cfn_debug.app.actions import ACTIONS, TABS, bindings
from cfn_debug.app.commands import EventCommands
from cfn_debug.app.config import MODES, AppConfig
from cfn_debug.app.messages import (
    ChainUpdate,
    RunFailed,
    RunFinished,
    SourceChanged,
    SourceReloaded,
    WorkspaceFailed,
    WorkspaceReady,
)
from cfn_debug.app.screens.help import HelpScreen
from cfn_debug.app.screens.json_editor import JsonEditor
from cfn_debug.app.summary import error_hint, run_summary
from cfn_debug.app.themes import DARK, LIGHT, THEMES, palette_for
from cfn_debug.app.widgets.events_panel import EventsPanel
from cfn_debug.app.widgets.header import SessionHeader
from cfn_debug.app.widgets.run_status import Countdown, InFlight, Prompt, RunStatus
from cfn_debug.app.widgets.step_detail import StepDetail
from cfn_debug.app.widgets.timeline import Timeline
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
    from cfn_debug.chain import ChainControl
    from cfn_debug.events import EventSpec
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
    )


def contract_sentence(rule_id: str) -> str | None:
    try:
        from cfn_debug.contract import rule

        return rule(rule_id).contract
    except Exception:  # an unknown id (or no catalogue yet) just shows no sentence
        return None


@dataclass
class RunView:
    """The run the dashboard shows: what the engine has streamed so far."""

    generation: int
    event_index: int | None
    mode: str = "auto"
    run: RunRecord | None = None
    steps: list[Step] | None = None
    awaiting: AwaitingStep | None = None
    ended: bool = False
    invocations: list[InvocationStarted] | None = None
    delays: list[DelayStarted] | None = None

    def __post_init__(self) -> None:
        self.steps = self.steps or []
        self.invocations = self.invocations or []
        self.delays = self.delays or []


class CfnDebugApp(App[int]):
    """The dashboard a resource-type author keeps open beside the editor."""

    CSS_PATH = "app.tcss"
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
        self.events: list[EventSpec] = []
        self.edited: set[int] = set()
        self.selected_event: int | None = None
        self.view = RunView(generation=0, event_index=None)
        self.control: ChainControl | None = None
        self.running = False
        self.pending_context: Any = ...
        self._workspace_lock = threading.Lock()
        self._shutting_down = False
        self._watch_stop: asyncio.Event | None = None
        if self.config.deterministic:
            self.animation_level = "none"

    # --- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        det = self.config.deterministic
        yield SessionHeader(deterministic=det, id="header")
        with Horizontal(id="main"):
            yield EventsPanel(id="events")
            with Vertical(id="right"):
                yield Timeline(deterministic=det, id="timeline")
                yield RunStatus(deterministic=det, id="status")
                yield StepDetail(contract_sentence, deterministic=det, id="detail")
        yield Footer()

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = self.config.theme
        self.theme_changed_signal.subscribe(self, lambda _theme: self._apply_palette())
        self._apply_palette()
        header = self.query_one(SessionHeader)
        header.mode = self.mode
        header.watch = self.config.watch
        self.query_one(EventsPanel).border_title = "Events"
        self.query_one(Timeline).border_title = "Timeline"
        self.query_one(RunStatus).show(Prompt("Opening the project and starting the endpoint…"))
        self.query_one(EventsPanel).focus()
        self._open_workspace()

    def _apply_palette(self) -> None:
        palette = palette_for(self.current_theme)
        timeline = self.query_one(Timeline)
        timeline.palette = palette
        status = self.query_one(RunStatus)
        status.palette = palette
        detail = self.query_one(StepDetail)
        detail.palette = palette
        timeline.show_steps(self.view.steps or [])
        status.show(status.state)
        self._refresh_detail()

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
        self.events = list(workspace.events)
        self.edited.clear()
        header = self.query_one(SessionHeader)
        schema = workspace.schema
        header.type_name = schema.type_name if schema is not None else "(no schema)"
        header.endpoint = workspace.endpoint_label
        panel = self.query_one(EventsPanel)
        errors = [str(e) for e in getattr(workspace.project, "event_errors", [])]
        panel.show_events(self.events, self._project_root(), self.edited, errors)
        if self.events:
            self.selected_event = 0
            panel.select_index(0)
            self._show_function(0)
            self.query_one(RunStatus).show(
                Prompt(
                    f"{len(self.events)} events found. Select one and press r to run it.",
                    "e edits it · m changes the replay mode · ? shows every key",
                )
            )
        else:
            self.query_one(RunStatus).show(
                Prompt(
                    "No events found in this project.",
                    "Add sam-style events under sample_events/ or sam-tests/ "
                    "(or inputs/inputs_1_create.json), then restart.",
                    tone="warn",
                )
            )
        if self.config.watch:
            self._watch_sources()

    def on_workspace_failed(self, message: WorkspaceFailed) -> None:
        if not self._ui_alive():
            return
        self.workspace_error = (message.error, message.hint)
        self.query_one(SessionHeader).type_name = "(no project)"
        self.query_one(RunStatus).show(
            Prompt(
                f"Could not open the project: {message.error}",
                message.hint + "  Press r to try again, q to quit.",
                tone="error",
            )
        )

    def _ui_alive(self) -> bool:
        """False while the app shuts down and a late message arrives after the widgets went."""
        return bool(self.query(RunStatus))

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
        self.query_one(SessionHeader).function = function

    def _close_workspace(self) -> None:
        with self._workspace_lock:
            self._shutting_down = True
            workspace, self.workspace = self.workspace, None
        if self._watch_stop is not None:
            self._watch_stop.set()
        if self.control is not None:
            self.control.cancel()
        if workspace is not None:
            workspace.close()

    def on_unmount(self) -> None:
        self._close_workspace()

    # --- events -----------------------------------------------------------------------------

    @on(Tree.NodeHighlighted, "#events")
    def _event_highlighted(self, message: Tree.NodeHighlighted[int]) -> None:
        if message.node.data is not None:
            self.selected_event = message.node.data
            self._show_function(message.node.data)

    @on(Tree.NodeSelected, "#events")
    def _event_chosen(self, message: Tree.NodeSelected[int]) -> None:
        if message.node.data is not None:
            self.selected_event = message.node.data
            self.run_event(message.node.data)

    def _selected(self) -> EventSpec | None:
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
        schema = self.workspace.schema if self.workspace is not None else None
        desired = parsed.normalized.desired
        if schema is None or desired is None:
            return []
        return [
            (f"desiredResourceState{pointer}", text)
            for pointer, text in schema.input_errors(desired)
        ]

    def action_edit_event(self) -> None:
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
            self.events[index] = parse_event(value, name=original.name, path=original.path)
        except CfnDebugError as error:
            self.query_one(RunStatus).show(
                Prompt(
                    f"The edited event was not applied: {error}",
                    "Press e to edit it again.",
                    "error",
                )
            )
            return
        self.edited.add(index)
        self.query_one(EventsPanel).mark_edited(index, original)
        self.query_one(RunStatus).show(
            Prompt(f"Edited {original.name} (this session only).", "Press r to run it.", "ok")
        )

    def action_open_in_editor(self) -> None:
        spec, index = self._selected(), self.selected_event
        if spec is None or index is None or spec.path is None:
            self.bell()
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        try:
            with self.suspend():
                subprocess.run([*shlex.split(editor), str(spec.path)], check=False)
        except Exception as error:  # no terminal to hand over (tests, web) or no such editor
            self.query_one(RunStatus).show(
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
            self.events[index] = load_event(original.path, name=original.name)
        except CfnDebugError as error:
            self.query_one(RunStatus).show(
                Prompt(
                    f"The event did not reload: {error}", "Fix the file and press E again.", "error"
                )
            )
            return
        self.edited.discard(index)
        self.query_one(RunStatus).show(Prompt(f"Reloaded {original.name} from disk.", tone="ok"))

    # --- running ----------------------------------------------------------------------------

    def action_run_event(self) -> None:
        if self.workspace is None:
            if self.workspace_error is not None:
                self.workspace_error = None
                self.query_one(RunStatus).show(Prompt("Opening the project again…"))
                self._open_workspace()
            return
        if self.selected_event is None:
            self.bell()
            return
        self.run_event(self.selected_event)

    def run_event(self, index: int) -> None:
        """Start (or restart) a chain for the event at ``index`` in the current replay mode."""
        if self.workspace is None or not (0 <= index < len(self.events)):
            return
        from cfn_debug.chain import ChainControl, ChainOptions

        if self.control is not None:
            self.control.cancel()
        options = ChainOptions(
            max_reinvoke=0 if self.mode == "stop" else self.config.max_reinvoke,
            max_delay_s=self.config.max_delay,
            step_mode=self.mode == "step",
        )
        control = ChainControl()
        self.control = control
        self.pending_context = ...
        self.view = RunView(self.view.generation + 1, index, mode=self.mode)
        self.running = True
        self.query_one(Timeline).reset()
        self._refresh_detail()
        self.query_one(RunStatus).show(Prompt(f"Running {self.events[index].name}…"))
        self._show_function(index)
        self._run_chain(self.view.generation, self.events[index], options, control)

    @work(exclusive=True, group="chain", exit_on_error=False)
    async def _run_chain(
        self, generation: int, event: EventSpec, options: Any, control: ChainControl
    ) -> None:
        workspace = self.workspace
        try:
            if workspace is None:
                return
            async for record in workspace.run(event, options, control):
                self.post_message(ChainUpdate(generation, record))
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

    def on_chain_update(self, message: ChainUpdate) -> None:
        if not self._ui_alive():
            return
        if message.generation != self.view.generation:
            return  # a chain that was replaced by a newer run
        record = message.event
        view = self.view
        status = self.query_one(RunStatus)
        if isinstance(record, RunStarted):
            view.run = record.run
        elif isinstance(record, InvocationStarted):
            view.awaiting = None
            assert view.invocations is not None
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
            assert view.delays is not None
            view.delays.append(record)
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
        assert self.view.steps is not None
        self.view.steps.append(step)
        self.query_one(Timeline).queue_step(step)  # its cursor move refreshes the detail

    def _run_ended(self, run: RunRecord) -> None:
        view = self.view
        view.run, view.ended, view.awaiting = run, True, None
        if len(run.steps) >= len(view.steps or []):
            view.steps = list(run.steps)
            self.query_one(Timeline).show_steps(view.steps)
        text, hint, tone = run_summary(run, single=view.mode == "stop")
        self.query_one(RunStatus).show(Prompt(text, hint, tone))
        self._refresh_detail()

    def on_run_failed(self, message: RunFailed) -> None:
        if not self._ui_alive():
            return
        if message.generation != self.view.generation:
            return
        self.view.ended = True
        self.query_one(RunStatus).show(Prompt(message.error, message.hint, "error"))

    def on_run_finished(self, message: RunFinished) -> None:
        if message.generation == self.view.generation:
            self.running = False
            self.control = None
            self._show_mode()

    # --- step selection and detail ----------------------------------------------------------

    @on(DataTable.RowHighlighted, "#timeline")
    def _step_highlighted(self, message: DataTable.RowHighlighted) -> None:
        self._refresh_detail(message.cursor_row)

    def _refresh_detail(self, row: int | None = None) -> None:
        if not self._ui_alive():
            return
        steps = self.view.steps or []
        timeline = self.query_one(Timeline)
        if row is None:
            row = timeline.cursor_row if timeline.row_count else -1
        step = steps[row] if 0 <= row < len(steps) else None
        limit = None
        if self.workspace is not None and self.workspace.schema is not None and steps:
            try:
                limit = self.workspace.schema.handler_timeout_s(steps[0].action)
            except Exception:
                limit = None
        self.query_one(StepDetail).show(
            step, steps, self.view.run if self.view.ended else None, limit
        )

    def action_show_tab(self, tab: str) -> None:
        self.query_one(StepDetail).active = tab

    # --- replay controls --------------------------------------------------------------------

    def action_cycle_mode(self) -> None:
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        self._show_mode()

    def _show_mode(self) -> None:
        """The header shows the mode; one changed during a run applies to the next run."""
        pending = self.running and self.mode != self.view.mode
        self.query_one(SessionHeader).mode = f"{self.mode} (next run)" if pending else self.mode

    def action_advance(self) -> None:
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
        awaiting = self.view.awaiting
        if awaiting is None:
            self.bell()
            return
        current = awaiting.callback_context if self.pending_context is ... else self.pending_context
        editor = JsonEditor(
            f"callbackContext for invocation #{awaiting.next_index} (a JSON object, or null)",
            current,
            _context_problems,
            apply_label="Use it (Ctrl+S)",
        )
        self.push_screen(editor, self._context_edited)

    def _context_edited(self, value: Any) -> None:
        awaiting = self.view.awaiting
        if value is ... or awaiting is None:
            return
        self.pending_context = value
        self.query_one(RunStatus).show(
            Prompt(
                f"Step mode: invocation #{awaiting.next_index} is ready (callbackContext edited).",
                "s sends it · c edits its callbackContext · x stops the chain",
            )
        )

    def action_skip_delay(self) -> None:
        status = self.query_one(RunStatus)
        if self.control is None or not isinstance(status.state, Countdown):
            self.bell()
            return
        self.control.skip_delay()
        status.show(Prompt("Delay skipped."))

    def action_cancel_run(self) -> None:
        if self.control is None:
            self.bell()
            return
        self.control.cancel()

    # --- watch mode -------------------------------------------------------------------------

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def _watch_sources(self) -> None:
        root = self._project_root()
        if root is None:
            return
        from watchfiles import awatch

        self._watch_stop = asyncio.Event()
        try:
            async for changes in awatch(root, stop_event=self._watch_stop, debounce=200):
                self.post_message(SourceChanged(sorted({path for _kind, path in changes})))
        except Exception as error:
            self.post_message(WorkspaceFailed(f"watch stopped: {error}", "Restart with --watch."))

    def on_source_changed(self, message: SourceChanged) -> None:
        """Watch mode: handler code is swapped by the endpoint itself; JSON (events, schema)
        is read again. Then the last event runs again, unless a chain is running."""
        if self.running or self.workspace is None:
            return
        index = self.view.event_index
        name = self.events[index].name if index is not None and index < len(self.events) else None
        reload = any(path.endswith(".json") for path in message.paths)
        self._reload_and_rerun(name, reload)

    @work(thread=True, exclusive=True, group="reload", exit_on_error=False)
    def _reload_and_rerun(self, name: str | None, reload: bool) -> None:
        workspace = self.workspace
        if workspace is None:
            return
        if reload:
            try:
                workspace.reload()
            except Exception as error:
                self.post_message(WorkspaceFailed(str(error), error_hint(error)))
                return
        self.post_message(SourceReloaded(name, reload))

    def on_source_reloaded(self, message: SourceReloaded) -> None:
        if not self._ui_alive():
            return
        workspace = self.workspace
        if workspace is None:
            return
        if message.reloaded:
            self.events = list(workspace.events)
            self.edited.clear()
            errors = [str(e) for e in getattr(workspace.project, "event_errors", [])]
            self.query_one(EventsPanel).show_events(
                self.events, self._project_root(), self.edited, errors
            )
        names = [event.name for event in self.events]
        if message.event_name in names:
            index = names.index(message.event_name)
            self.selected_event = index
            self.query_one(EventsPanel).select_index(index)
            self.run_event(index)

    # --- misc -------------------------------------------------------------------------------

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT.name if self.theme == DARK.name else DARK.name

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_screenshot(self) -> None:
        path = self.save_screenshot(path=os.getcwd())
        self.notify(f"Saved {path}")

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for action in ACTIONS:
            yield SystemCommand(action.title, action.help, self._runner(action.action))
        for tab_id, title in TABS:
            yield SystemCommand(
                f"Show {title}", f"Switch the detail to the {title} tab.", self._tab_runner(tab_id)
            )

    def _runner(self, action: str) -> Callable[[], Any]:
        return lambda: self.run_action(action)

    def _tab_runner(self, tab_id: str) -> Callable[[], None]:
        return lambda: self.action_show_tab(tab_id)


def restore_redacted(edited: Any, original: Any) -> Any:
    """The editor shows credentials redacted; put the original values back where the marker
    is still in place (anything the user typed over it is kept)."""
    from cfn_debug.redact import REDACTED

    if edited == REDACTED:
        return original
    if isinstance(edited, dict) and isinstance(original, dict):
        return {k: restore_redacted(v, original.get(k)) for k, v in edited.items()}
    if isinstance(edited, list) and isinstance(original, list):
        return [
            restore_redacted(v, original[i] if i < len(original) else None)
            for i, v in enumerate(edited)
        ]
    return edited


def _context_problems(value: Any) -> list[tuple[str, str]]:
    if value is None or isinstance(value, dict):
        return []
    return [("", f"expected a JSON object or null, got {type(value).__name__}")]
