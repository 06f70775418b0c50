"""The main screen: the dashboard's job. It lays out the header, the events tree, the timeline,
the progress bar, the status line, the step detail and, once a handler stops in pdb, the
Debugger panel, holds the run it shows (a ``RunView``:
one source of truth for all of them) and runs the keys of that job. What its workers post (one
message per outcome of the engine's stream) and what the App routes to it (the workspace) change
its state; it then tells its widgets what to show by their methods (attributes down), and they
tell it what the user did by messages (messages up).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Tree

from cfn_debug.app.actions import CONTEXTUAL, LIVE_ONLY, bindings
from cfn_debug.app.chain_runs import ChainRuns, watch_support
from cfn_debug.app.config import MODES
from cfn_debug.app.live import LiveSession
from cfn_debug.app.messages import (
    DebuggerEvent,
    SessionLoaded,
    WorkspaceFailed,
    WorkspaceReady,
)
from cfn_debug.app.opening import engine_support
from cfn_debug.app.render import Palette
from cfn_debug.app.runview import RunView
from cfn_debug.app.screens.main.actions import MainActions
from cfn_debug.app.screens.main.stream import MainStream
from cfn_debug.app.summary import landing_row, run_summary, transcript_kind
from cfn_debug.app.widgets.events_panel import EventsPanel
from cfn_debug.app.widgets.header import SessionHeader
from cfn_debug.app.widgets.notices import Notices
from cfn_debug.app.widgets.progress import WorkProgress
from cfn_debug.app.widgets.run_status import Countdown, InFlight, Prompt, RunStatus
from cfn_debug.app.widgets.step_detail import ContractOf, StepDetail
from cfn_debug.app.widgets.timeline import Timeline
from cfn_debug.errors import CfnDebugError
from cfn_debug.text.terminal import printable

if TYPE_CHECKING:
    from cfn_debug.app.widgets.debugger_panel import DebuggerPanel
    from cfn_debug.chain import ChainControl, ChainOptions
    from cfn_debug.events import EventSpec
    from cfn_debug.workspace import Workspace


class MainScreen(MainActions, MainStream, Screen[None]):
    BINDINGS = bindings(app=False)

    class Ready(Message):
        """The widgets are mounted: the App may open the project and theme them."""

    def __init__(
        self, live: LiveSession, contract_of: ContractOf, *, deterministic: bool = False
    ) -> None:
        super().__init__(id="main-screen")
        self.live = live
        self.config = live.config
        self._contract_of = contract_of
        self._deterministic = deterministic
        self.mode = self.config.mode
        self.watching = self.config.watch and not live.read_only
        #: The project's events as this session edited them (the tree shows them), and the
        #: indexes of the edited ones (sent as edited, marked with a *).
        self.events: list[EventSpec] = []
        self.edited: set[int] = set()
        self.selected_event: int | None = None
        self.view = RunView(generation=0, event_index=None)
        self.running = False
        self.pending_context: Any = ...
        #: What the status line was told last (the footer's keys depend on it).
        self.status_state: InFlight | Countdown | Prompt | None = None
        #: The "Could not open" prompt: the one error a successful (re)open replaces.
        self._open_error: Prompt | None = None
        #: Watch mode's latest activity: the save seen (ChangeDetected), the build (BuildFinished).
        self.last_change: Any = None
        self.last_build: Any = None
        self.last_copied: str | None = None
        self.palette = Palette()
        self._shown_context: tuple[bool, ...] = ()
        self.chains: ChainRuns | None = None
        #: True from mount to unmount: the App routes messages here only then.
        self.alive = False
        #: The Debugger panel, mounted when a handler first stops in pdb.
        self._debugger: DebuggerPanel | None = None

    def compose(self) -> ComposeResult:
        det = self._deterministic
        yield SessionHeader(deterministic=det, id="header")
        with Horizontal(id="main"):
            yield EventsPanel(id="events")
            with Vertical(id="right"):
                yield Timeline(deterministic=det, id="timeline")
                yield Notices(id="notices")
                yield WorkProgress(deterministic=det, id="work")
                yield RunStatus(deterministic=det, id="status")
                yield StepDetail(self._contract_of, deterministic=det, id="detail")
        yield Footer()

    # --- the widgets, and telling them ------------------------------------------------------

    @property
    def header(self) -> SessionHeader:
        return self.query_one(SessionHeader)

    @property
    def panel(self) -> EventsPanel:
        return self.query_one(EventsPanel)

    @property
    def listed_events(self) -> list[EventSpec]:
        """The project's events as this session edited them, once the tree shows them (empty
        before: a script selecting in the tree waits for this)."""
        try:
            return self.events if self.panel.events else []
        except Exception:  # before the widgets are mounted, or after they went
            return []

    @property
    def watcher(self) -> Any:
        """Watch mode's watcher (None while watch mode is off)."""
        return self.chains.watcher if self.chains is not None else None

    @property
    def timeline(self) -> Timeline:
        return self.query_one(Timeline)

    @property
    def detail(self) -> StepDetail:
        return self.query_one(StepDetail)

    def say(self, state: InFlight | Countdown | Prompt | None) -> None:
        """What the status line shows now."""
        self.status_state = state
        self.query_one(RunStatus).show(state)

    def show_palette(self, palette: Palette) -> None:
        self.palette = palette
        self.timeline.set_palette(palette)
        self.detail.set_palette(palette)
        self.query_one(RunStatus).set_palette(palette)
        self.query_one(WorkProgress).set_palette(palette)
        self.query_one(Notices).set_palette(palette)

    def _run_shown(self) -> None:
        self.timeline.show_run(self.view)
        self.detail.show_run(self.view)

    def _run_updated(self) -> None:
        self.view.changes = self._changes()
        self.timeline.update_run(self.view)
        self.detail.update_run(self.view)

    def _run_ended(self) -> None:
        self.timeline.end_run(self.view, landing_row(self.view.steps))
        self.detail.update_run(self.view)

    @on(Timeline.Selected)
    def _step_selected(self, message: Timeline.Selected) -> None:
        message.stop()
        self.detail.select_step(self.view, message.row)

    async def on_debugger_event(self, message: DebuggerEvent) -> None:
        """A worker's pdb: the Debugger panel shows it, mounted above the step detail when the
        first event arrives (most sessions never debug: the panel stays off the first frame)."""
        panel = self._debugger
        if panel is None:
            # lazy: the panel brings pdb's view and the debug channel (~10 ms of start-up)
            from cfn_debug.app.widgets.debugger_panel import DebuggerPanel

            panel = self._debugger = DebuggerPanel(id="debugger")
            await self.query_one("#right").mount(panel, before=self.detail)
        panel.take(message.session, message.event)
        if message.event.kind == "input" and panel.session is message.session:
            self._tell_stopped_below(panel)

    def _tell_stopped_below(self, panel: DebuggerPanel) -> None:
        """pdb waits while another screen (help, export, the scenarios) is on top of this one:
        say so there, or the run looks stuck with nothing to say why."""
        if self.app.screen is self:
            return
        where = f"{panel.view.function or '?'} line {panel.view.line}"
        self.app.notify(
            f"A handler stopped in pdb ({printable(where)}): its Debugger panel is on the main "
            "screen; close this screen (Esc) to answer it.",
            title="Debugger",
            severity="warning",
            timeout=15,
            markup=False,
        )

    # --- opening --------------------------------------------------------------------------

    def on_unmount(self) -> None:
        self.alive = False

    def on_mount(self) -> None:
        self.alive = True
        self.chains = ChainRuns(
            self.live, self, self.post_message, self._options, lambda: self.view.generation
        )
        header = self.header
        header.mode, header.watch = self.mode, self.watching
        self.query_one(Timeline).border_title = "Timeline"
        self.panel.focus()
        if self.live.read_only:
            self.panel.border_title = "Runs"
            header.type_name = "saved session"
            header.mode = "read-only " + transcript_kind(self.config.transcript)
            self.say(Prompt(f"Opening {self.config.transcript}…"))
        else:
            self.panel.border_title = "Events"
            self.say(Prompt("Opening the project and starting the endpoint…"))
        self.app.post_message(self.Ready())

    def on_workspace_ready(self, message: WorkspaceReady) -> None:
        workspace = message.workspace
        self.live.workspace_error = None
        if self.live.log.journal is None:  # one journal for the whole session
            self.live.log.start(engine_support().open_journal(self.live.log.requested, workspace))
        self.header.endpoint = workspace.endpoint_label
        target = workspace.aws_target
        self.header.aws = target.short() if target is not None else "none"
        self._show_events(workspace)
        self.query_one(Notices).show(
            engine_support().workspace_notices(workspace), f"{workspace.project.root}"
        )
        if self.watching:
            self._start_watching()

    @on(EventsPanel.Shown)
    def _events_shown(self, message: EventsPanel.Shown) -> None:
        """The tree shows a new list, its cursor on the first entry."""
        message.stop()
        first = message.first
        if self.live.read_only:
            if first is not None and self.view.run is None:
                self._show_saved_run(first)
            return
        if self.live.workspace is None or self.view.generation:
            return  # a reload in watch mode: the re-run selects its event
        if first is None:
            self.say(
                Prompt(
                    "No events found in this project.",
                    "Add sam-style events under sample_events/ or sam-tests/ "
                    "(or inputs/inputs_1_create.json), then restart.",
                    tone="warn",
                )
            )
            return
        if self.selected_event is None:  # its NodeHighlighted may come later
            self.selected_event = first
        self._show_function(self.selected_event)
        shown = self.status_state
        if isinstance(shown, Prompt) and shown.tone == "error" and shown is not self._open_error:
            return  # an error said meanwhile (an internal one, the journal's) stays in view
        self.say(
            Prompt(
                f"{len(self.events)} events found. Select one and press r to run it.",
                "e edits it · m changes the replay mode · w watches for saves · ? shows every key",
            )
        )

    def on_workspace_failed(self, message: WorkspaceFailed) -> None:
        self.live.workspace_error = (message.error, message.hint)
        self.header.type_name = "(no project)"
        again = "" if self.live.read_only else "  Press r to try again, q to quit."
        what = "the saved session" if self.live.read_only else "the project"
        self._open_error = Prompt(
            f"Could not open {what}: {message.error}", message.hint + again, "error"
        )
        self.say(self._open_error)

    def _show_events(self, workspace: Workspace, *, reload: bool = False) -> None:
        """Take the workspace's events (dropping this session's edits) and its type name."""
        errors = [str(e) for e in getattr(workspace.project, "event_errors", [])]
        root = self.live.project_root
        # The tree shows these next; an index the user picks there is into this same list.
        self.events, self.edited = list(workspace.events), set()
        self.panel.load_events(list(workspace.events), root, errors, keep_cursor=reload)
        schema = workspace.schema
        hook = getattr(workspace, "hook", None)
        if hook is not None:
            self.header.type_name = f"{hook.schema.type_name} (hook)"
        else:
            self.header.type_name = schema.type_name if schema is not None else "(no schema)"

    def _show_function(self, index: int) -> None:
        workspace = self.live.workspace
        if workspace is None or not (0 <= index < len(self.events)):
            return
        try:
            function, _shape = workspace.function_for(self.events[index])
        except CfnDebugError as error:
            function = f"? ({error.detail})"
        self.header.function = function

    # --- a saved session, read-only -----------------------------------------------------------

    def on_session_loaded(self, message: SessionLoaded) -> None:
        session = message.session
        self.live.saved = session
        self.live.runs = list(session.runs)
        header = self.header
        header.type_name = (
            session.project.replace("\\", "/").rsplit("/", 1)[-1]
            if session.project
            else "saved session"
        )
        header.endpoint = f"{session.endpoint or 'unknown endpoint'} (saved)"
        self.panel.load_runs(self.live.runs, list(session.problems))
        count = len(self.live.runs)
        problems = f" ({'; '.join(session.problems)})" if session.problems else ""
        self.say(
            Prompt(
                f"Saved session {self.config.transcript}: {count} run{'s' if count != 1 else ''}"
                f", read-only.{problems}",
                "Select a run to see its steps; nothing runs here (open the project with "
                "`cfn-debug PROJECT_DIR` to run events).",
                "warn" if session.problems else "info",
            )
        )

    def _show_saved_run(self, index: int) -> None:
        if not (0 <= index < len(self.live.runs)):
            return
        run = self.live.runs[index]
        self.selected_event = index
        assert self.chains is not None
        self.view = RunView(
            self.chains.next_generation(),
            None,
            mode="read-only",
            run=run,
            steps=list(run.steps),
            ended=True,
            event_name=run.event_name,
            limit_s=self._limit(run.steps[0].action) if run.steps else None,
        )
        self.header.function = run.function_name
        self._run_shown()
        self._run_ended()
        # what the live run said when it ended: its outcome and why it stopped
        text, hint, tone = run_summary(run)
        if run.end_reason is None:
            text = f"Interrupted: the session ended before this run did. {text}"
        self.say(Prompt(text, f"{hint}  (A saved session: read-only.)", tone))

    # --- keys: what works where -----------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A saved session shows (and runs) only what works on it; the step, delay and stop
        keys show only while they do something (an 80-column footer stays whole)."""
        if self.live.read_only and action in LIVE_ONLY:
            return False
        if action in CONTEXTUAL:
            return self._contextual().get(action, True)
        return True

    def _contextual(self) -> dict[str, bool]:
        stepping = self.view.awaiting is not None or (self.mode == "step" and not self.running)
        return {
            "advance": stepping,
            "edit_context": self.view.awaiting is not None,
            "skip_delay": isinstance(self.status_state, Countdown),
            "cancel_run": self.running,
        }

    def _footer_follows(self) -> None:
        """Refresh the footer when what the contextual keys can do changed (not per step)."""
        now = tuple(self._contextual().values())
        if now != self._shown_context:
            self._shown_context = now
            self.refresh_bindings()

    def refuse_read_only(self) -> bool:
        """True (after saying so) when the dashboard shows a saved session."""
        if not self.live.read_only:
            return False
        self.say(
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
                self.say(
                    Prompt(
                        f"Not loaded: {error}",
                        "Fix the file and restart (or save it in watch mode).",
                        "error",
                    )
                )
            return
        if self.live.read_only:
            self._show_saved_run(message.node.data)
            return
        self.selected_event = message.node.data
        self._show_function(message.node.data)
        self._target(message.node.data)

    @on(EventsPanel.RunRequested)
    def _event_chosen(self, message: EventsPanel.RunRequested) -> None:
        message.stop()
        if not self.live.read_only:
            self.run_event(message.index)

    def _target(self, index: int, event: EventSpec | None = None) -> None:
        if self.chains is not None and 0 <= index < len(self.events):
            self.chains.target(event or self.events[index])

    def selected(self) -> EventSpec | None:
        index = self.selected_event
        if self.live.read_only or index is None or not (0 <= index < len(self.events)):
            return None
        return self.events[index]

    def replace_event(self, index: int, event: EventSpec, *, edited: bool) -> None:
        self.events[index] = event
        if edited:
            self.edited.add(index)
            # pinned now, not when it is first run: a watch re-run (a save) may send it before
            if self.live.workspace is not None:
                self.live.workspace.pin(event)
        else:
            self.edited.discard(index)
        self.panel.replace(index, event, edited=edited)
        self._target(index, event)

    # --- running ----------------------------------------------------------------------------

    def _options(self) -> ChainOptions:
        # asked for when a run starts: the chain engine loads then (watch_support), not before
        # the first frame
        return watch_support().ChainOptions(
            max_reinvoke=0 if self.mode == "stop" else self.config.max_reinvoke,
            max_delay_s=self.config.max_delay,
            step_mode=self.mode == "step",
            read_back=self.config.read_back,
        )

    @property
    def control(self) -> ChainControl | None:
        return self.chains.control if self.chains is not None else None

    def run_event(self, index: int) -> None:
        """Start (or restart) a chain for the event at ``index`` in the current replay mode."""

        chains = self.chains
        if (
            self.live.read_only
            or self.live.workspace is None
            or chains is None
            or not (0 <= index < len(self.events))
        ):
            return
        self.pending_context = ...
        event = self.events[index]
        if index in self.edited:  # an edit pins token and Name (Workspace.request_for)
            self.live.workspace.pin(event)
        self.selected_event = index
        self.panel.select_index(index)
        self.view = RunView(chains.next_generation(), index, mode=self.mode, event_name=event.name)
        self.running = True
        self._footer_follows()
        self._run_shown()
        self.say(Prompt(f"Running {event.name}…"))
        self._show_function(index)
        chains.start(self.view.generation, event)

    def show_mode(self) -> None:
        """The header shows the mode; one changed during a run applies to the next run."""
        self._footer_follows()
        if self.live.read_only:
            return
        pending = self.running and self.mode != self.view.mode
        self.header.mode = f"{self.mode} (next run)" if pending else self.mode

    def cycle_mode(self) -> None:
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        if self.chains is not None:
            self.chains.new_options()
        self.show_mode()
