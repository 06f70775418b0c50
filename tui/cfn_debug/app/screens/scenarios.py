"""The contract scenarios screen: run the contract-test sequences (`cfn-debug scenario`) and
watch them, step by step.

A list of every scenario with its outcome badge, the type configuration to send (the demo's
``Fault`` switch is a select when the schema declares one), and, for the selected scenario, its
actions as they run (each step's status, duration and findings; cleanup dimmed), its verdicts
with the contract sentence a failure breaks, its notes and, for generated inputs, the minimal
failing input.

The worker only posts messages, one typed message per event of the scenario stream
(:mod:`cfn_debug.app.scenario_stream`: ``ScenarioBegan``, ``ChainStepCompleted``, …, see
:mod:`cfn_debug.app.messages`), to this screen; each has its handler here.
:class:`~cfn_debug.app.scenario_board.ScenarioBoard` (plain data, no widgets) takes the event
(``ScenarioBoard.apply``) and the handler then renders what changed with
:mod:`cfn_debug.app.scenario_render`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Input, Select, Static

from cfn_debug.app.actions import app_keys
from cfn_debug.app.messages import (
    ChainAwaiting,
    ChainDelaying,
    ChainInvoking,
    ChainRunEnded,
    ChainRunStarted,
    ChainStepCompleted,
    EngineMessage,
    ScenarioActionBegan,
    ScenarioBegan,
    ScenarioFinished,
    ScenarioJudged,
    ScenarioMessage,
    ScenarioNoted,
    ScenariosDone,
    ScenariosFailed,
)
from cfn_debug.app.render import Palette, scrub
from cfn_debug.app.scenario_board import ScenarioBoard
from cfn_debug.app.scenario_render import BADGES, badge_text, scenario_renderable
from cfn_debug.app.scenario_stream import journal, scenario_message
from cfn_debug.app.themes import palette_for
from cfn_debug.app.widgets.progress import WorkProgress
from cfn_debug.chain import ChainOptions
from cfn_debug.errors import CfnDebugError
from cfn_debug.hooks.scenarios import HOOK_SCENARIOS, HookScenarioRunner
from cfn_debug.scenarios import (
    SCENARIOS,
    Outcome,
    ScenarioEnded,
    ScenarioOptions,
    ScenarioRunner,
)
from cfn_debug.type_configuration import type_configuration

if TYPE_CHECKING:
    from cfn_debug.schema import ResourceSchema
    from cfn_debug.workspace import Workspace

# --- the screen --------------------------------------------------------------------------------


def fault_choices(schema: ResourceSchema | None) -> list[str]:
    """The values of the schema's typeConfiguration ``Fault`` enum (the demo's bug switch)."""
    if schema is None:
        return []
    definition = schema.raw.get("typeConfiguration")
    if not isinstance(definition, dict):
        return []
    fault = (definition.get("properties") or {}).get("Fault")
    if not isinstance(fault, dict) or not isinstance(fault.get("enum"), list):
        return []
    return [str(value) for value in fault["enum"]]


class ScenariosScreen(ModalScreen[None]):
    """Contract scenarios: a list with outcome badges, live progress, verdicts and notes."""

    DEFAULT_CSS = """
    ScenariosScreen {
        background: $background;
        layout: vertical;
        align: left top;
    }
    #sc-header {
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $foreground;
    }
    #sc-main {
        height: 1fr;
    }
    #sc-left {
        width: 42;
    }
    #sc-list {
        height: 1fr;
        border: round $foreground 25%;
        border-title-color: $primary;
        background: $surface;
    }
    #sc-list:focus {
        border: round $primary;
    }
    #sc-fault, #sc-config {
        width: 100%;
    }
    #sc-config-label {
        padding: 0 1;
        color: $text-muted;
    }
    #sc-bar {
        height: 1;
        padding: 0 1;
    }
    #sc-progress {
        height: 2;
        padding: 0 1;
        background: $boost;
    }
    #sc-progress.-error {
        background: $error 15%;
        border-left: thick $error;
    }
    #sc-progress.-ok {
        border-left: thick $success;
    }
    #sc-progress.-warn {
        background: $warning 12%;
        border-left: thick $warning;
    }
    #sc-detail {
        width: 1fr;
        border: round $foreground 25%;
        border-title-color: $primary;
        background: $surface;
        padding: 0 1;
    }
    """

    BINDINGS = [
        Binding("r", "run_selected", "Run", id="scenarios-run"),
        Binding("a", "run_all", "Run all", id="scenarios-run-all"),
        Binding("x", "cancel", "Cancel", id="scenarios-cancel"),
        Binding("escape,q", "close", "Back", id="scenarios-close"),
        *app_keys(),
    ]

    def __init__(
        self,
        workspace: Workspace | None,
        *,
        chain: ChainOptions | None = None,
        examples: int | None = None,
        deterministic: bool = False,
        chain_running: Callable[[], bool] = lambda: False,
    ) -> None:
        super().__init__()
        #: True while the dashboard runs a chain (one chain at a time).
        self.chain_running = chain_running
        self.workspace = workspace
        self.chain_options = chain
        self.examples = examples
        self.deterministic = deterministic
        #: A hook project (cfn_debug.hooks): its hook contract scenarios, not a resource type's.
        self.hook = getattr(workspace, "hook", None)
        self.catalogue = HOOK_SCENARIOS if self.hook is not None else SCENARIOS
        self.board = ScenarioBoard(self.catalogue)
        self.runner: ScenarioRunner | HookScenarioRunner | None = None
        self.generation = 0
        self.running = False
        self.cancelling = False
        self.failed = False  # the latest run stopped on an error (its message is shown)
        self.faults = fault_choices(workspace.schema if workspace is not None else None)

    @classmethod
    def for_app(cls, app: Any) -> ScenariosScreen:
        """The screen for the dashboard ``app``: its workspace and its chain settings."""
        config = getattr(app, "config", None)
        chain = ChainOptions(
            max_reinvoke=getattr(config, "max_reinvoke", 100),
            max_delay_s=getattr(config, "max_delay", None),
        )
        main = getattr(app, "main", None)
        return cls(
            getattr(app, "workspace", None),
            chain=chain,
            deterministic=bool(getattr(config, "deterministic", False)),
            chain_running=lambda: bool(getattr(main, "running", False)),
        )

    # --- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(self._header_text(), id="sc-header")
        with Horizontal(id="sc-main"):
            with Vertical(id="sc-left"):
                yield DataTable(id="sc-list", cursor_type="row", zebra_stripes=False)
                if self.hook is not None:  # its hookModel is the project's type configuration
                    yield Static("Sent as hookModel: the project's settings", id="sc-config-label")
                else:
                    yield Static("Sent with every request:", id="sc-config-label")
                    if self.faults:
                        yield Select(
                            [(name, name) for name in self.faults],
                            prompt="Fault: none (the handlers behave)",
                            allow_blank=True,
                            id="sc-fault",
                        )
                    yield Input(placeholder="type configuration: a JSON object", id="sc-config")
            with VerticalScroll(id="sc-detail"):
                yield Static(id="sc-body")
        yield WorkProgress(deterministic=self.deterministic, id="sc-bar")
        yield Static(id="sc-progress")
        yield Footer()

    def _header_text(self) -> Text:
        title = "Hook contract scenarios" if self.hook is not None else "Contract scenarios"
        text = Text(title, style="bold")
        workspace = self.workspace
        if workspace is not None:
            schema = self.hook.schema if self.hook is not None else workspace.schema
            name = schema.type_name if schema is not None else "(no schema)"
            endpoint = workspace.endpoint_label
            if self.deterministic:
                endpoint = scrub(endpoint)
            text.append(f"  {name} at {endpoint}", style="dim")
        return text

    def on_mount(self) -> None:
        table = self.query_one("#sc-list", DataTable)
        table.border_title = "Scenarios"
        self.query_one("#sc-detail").border_title = "Scenario"
        table.add_column(" ", key="badge", width=1)
        table.add_column("scenario", key="name")
        for view in self.board.views.values():
            table.add_row(badge_text(view.badge_key, self.palette), view.name, key=view.name)
        table.focus()
        if self.workspace is None:
            self._progress(
                "The project is not open yet (or could not be opened).",
                "Close this screen (Esc) and wait for the endpoint, or fix the project.",
                "error",
            )
        elif self.hook is not None:
            self._progress(
                f"{len(self.catalogue)} hook contract scenarios. r runs the selected one, "
                "a runs them all.",
                "Targets from inputs/ (else generated from the target types' schemas).",
            )
        elif self.workspace.schema is None:
            self._progress(
                "Scenarios need the resource schema: none found in the project.",
                "Give it with --schema FILE when starting cfn-debug.",
                "error",
            )
        else:
            self._progress(
                f"{len(SCENARIOS)} scenarios. r runs the selected one, a runs them all.",
                "Pick a Fault or type a type configuration to send with every request.",
            )
        self._show_selected()

    @property
    def palette(self) -> Palette:
        try:
            return palette_for(self.app.current_theme)
        except Exception:  # an unknown theme: the plain colours
            return Palette()

    # --- selection and rendering -------------------------------------------------------------

    def selected_name(self) -> str | None:
        table = self.query_one("#sc-list", DataTable)
        if not table.row_count:
            return None
        row = table.cursor_row
        names = list(self.board.views)
        return names[row] if 0 <= row < len(names) else None

    @on(DataTable.RowHighlighted, "#sc-list")
    def _highlighted(self, _message: DataTable.RowHighlighted) -> None:
        self._show_selected()

    @on(DataTable.RowSelected, "#sc-list")
    def _chosen(self, _message: DataTable.RowSelected) -> None:
        self.action_run_selected()

    def _show_selected(self) -> None:
        name = self.selected_name()
        body = self.query_one("#sc-body", Static)
        if name is None:
            body.update("")
            return
        body.update(
            scenario_renderable(
                self.board.views[name], self.palette, deterministic=self.deterministic
            )
        )

    def _refresh_badge(self, name: str) -> None:
        table = self.query_one("#sc-list", DataTable)
        view = self.board.views.get(name)
        if view is None or name not in {key.value for key in table.rows}:
            return
        table.update_cell(name, "badge", badge_text(view.badge_key, self.palette))

    def _select(self, name: str) -> None:
        names = list(self.board.views)
        if name in names:
            self.query_one("#sc-list", DataTable).move_cursor(row=names.index(name))

    def _progress(self, text: str, hint: str = "", tone: str = "") -> None:
        widget = self.query_one("#sc-progress", Static)
        for cls in ("-error", "-ok", "-warn"):
            widget.remove_class(cls)
        if tone:
            widget.add_class(f"-{tone}")
        content = Text(text, style="bold" if tone else "")
        if hint:
            content.append("\n" + hint, style="dim")
        widget.update(content)

    # --- the type configuration ------------------------------------------------------------

    def type_configuration(self) -> dict[str, Any] | None:
        """What the controls say: the JSON typed in, with the Fault picked merged in; checked
        against the schema's typeConfiguration (raises CfnDebugError)."""
        text = self.query_one("#sc-config", Input).value.strip()
        fault: str | None = None
        if self.faults:
            choice = self.query_one("#sc-fault", Select).value
            fault = None if choice is Select.NULL else str(choice)
        args = argparse.Namespace(type_configuration=text or None, fault=fault)
        schema = self.workspace.schema if self.workspace is not None else None
        return type_configuration(args, schema)

    # --- running -----------------------------------------------------------------------------

    def action_run_selected(self) -> None:
        name = self.selected_name()
        if name is None:
            self.app.bell()
            return
        self.start([name])

    def action_run_all(self) -> None:
        self.start(["all"])  # what `cfn-debug scenario all` runs (ScenarioRunner.chosen)

    def start(self, names: Sequence[str]) -> None:
        """Run ``names`` (catalogue order) with the type configuration the controls say."""
        if self.running or self.workspace is None:
            self.app.bell()
            return
        if self.chain_running():
            self._progress(
                "A chain is running in the dashboard.",
                "Wait for it to end (or stop it with x there), then run the scenarios.",
                "warn",
            )
            return

        runner: ScenarioRunner | HookScenarioRunner
        if self.hook is not None:
            runner = HookScenarioRunner(self.workspace, self.chain_options or ChainOptions())
            self._launch(runner, names, None)
            return
        try:
            config = self.type_configuration()
            options = ScenarioOptions(
                chain=self.chain_options or ChainOptions(),
                type_configuration=config,
            )
            if self.examples is not None:
                options.examples = self.examples
            runner = ScenarioRunner(self.workspace, options)
        except CfnDebugError as error:
            self._progress(f"Not started: {error}", "Fix it and press r again.", "error")
            return
        self._launch(runner, names, config)

    def _launch(
        self,
        runner: ScenarioRunner | HookScenarioRunner,
        names: Sequence[str],
        config: dict[str, Any] | None,
    ) -> None:
        names = [s.name for s in runner.chosen(names)]
        self.runner = runner
        self.generation += 1
        self.running, self.cancelling, self.failed = True, False, False
        sent = f" with type configuration {json.dumps(config)}" if config is not None else ""
        self._progress(
            f"Running {len(names)} scenario(s){sent}…",
            f"inputs: {runner.inputs.source} · x cancels",
        )
        self._run(self.generation, runner, list(names))

    @work(exclusive=True, group="scenarios", exit_on_error=False)
    async def _run(
        self, generation: int, runner: ScenarioRunner | HookScenarioRunner, names: list[str]
    ) -> None:
        """Feed the stream to the screen. Stops after the scenario in play when cancelled."""
        try:
            log = getattr(getattr(self.app, "live", None), "log", None)
            write_only = self.workspace.schema.write_only if self.workspace.schema else ()
            async for event in runner.run(names):
                if log is not None:  # journaled on the worker's side, as the dashboard's runs
                    journal(log, event, write_only)
                message = scenario_message(generation, event)
                if message is not None:
                    self.post_message(message)
                if isinstance(event, ScenarioEnded) and runner.control.cancelled:
                    break
        except CfnDebugError as error:
            self.post_message(ScenariosFailed(generation, str(error)))
        except asyncio.CancelledError:
            runner.cancel()
            raise
        except Exception as error:  # the engine broke: say so in place, never a traceback
            self.post_message(ScenariosFailed(generation, f"{type(error).__name__}: {error}"))
        finally:
            self.post_message(ScenariosDone(generation))

    # --- the scenario stream: the board changes (ScenarioBoard.apply), then the widgets ------

    def _current(self, message: ScenarioMessage | EngineMessage) -> bool:
        """The message belongs to the screen's latest run (a late one of a replaced run does
        not) and the screen is still shown."""
        return message.generation == self.generation and self.is_attached

    def _take(self, message: ScenarioMessage | EngineMessage) -> str | None:
        """The board takes the message's event; the scenario it changed, or None."""
        if not self._current(message):
            return None
        return self.board.apply(message.event)

    def _show_if_selected(self, name: str | None) -> None:
        if name is not None and name == self.selected_name():
            self._show_selected()

    def _follow(self, message: ScenarioMessage | EngineMessage) -> None:
        """The board takes the message's event; the scenario shown is drawn again if it
        changed."""
        self._show_if_selected(self._take(message))

    def on_scenario_began(self, message: ScenarioBegan) -> None:
        name = self._take(message)
        if name is None:
            return
        event = message.event
        self.query_one(WorkProgress).advance(
            event.index, f"Scenario {event.name}", total=event.total
        )
        self._refresh_badge(name)
        self._select(name)  # follow the scenario in play
        if not self.cancelling:
            self._progress(
                f"Running {event.index + 1}/{event.total}: {event.name}: {event.title}…",
                "x cancels (what was created is reported, not deleted)",
            )
        self._show_if_selected(name)

    def on_scenario_finished(self, message: ScenarioFinished) -> None:
        name = self._take(message)
        if name is not None:
            self._refresh_badge(name)
        self._show_if_selected(name)

    def on_scenario_action_began(self, message: ScenarioActionBegan) -> None:
        self._follow(message)

    def on_scenario_judged(self, message: ScenarioJudged) -> None:
        self._follow(message)

    def on_scenario_noted(self, message: ScenarioNoted) -> None:
        self._follow(message)

    def on_chain_run_started(self, message: ChainRunStarted) -> None:
        self._follow(message)

    def on_chain_invoking(self, message: ChainInvoking) -> None:
        self._follow(message)

    def on_chain_step_completed(self, message: ChainStepCompleted) -> None:
        self._follow(message)

    def on_chain_delaying(self, message: ChainDelaying) -> None:
        self._follow(message)

    def on_chain_awaiting(self, message: ChainAwaiting) -> None:
        self._follow(message)

    def on_chain_run_ended(self, message: ChainRunEnded) -> None:
        self._follow(message)

    def on_scenarios_failed(self, message: ScenariosFailed) -> None:
        if message.generation != self.generation or not self.is_attached:
            return
        self.board.interrupt(f"stopped: {message.error}")
        self._progress(f"The scenarios stopped: {message.error}", "Press r to try again.", "error")
        self.failed = True

    def on_scenarios_done(self, message: ScenariosDone) -> None:
        if message.generation != self.generation or not self.is_attached:
            return
        self.running = False
        self.query_one(WorkProgress).finish()
        if self.board.current is not None:
            self.board.interrupt("cancelled before it ended")
        for name in self.board.views:
            self._refresh_badge(name)
        self._show_selected()
        if self.failed:
            return
        self._summarise()

    def _summarise(self) -> None:
        counts = self.board.counts()
        done = [v.result for v in self.board.views.values() if v.result is not None]
        parts = [f"{n} {BADGES[o][1]}" for o, n in counts.items() if n]
        bad = counts.get(Outcome.FAILED, 0) + counts.get(Outcome.BLOCKED, 0)
        bad += counts.get(Outcome.ERROR, 0)
        tone = "error" if bad else ("warn" if counts.get(Outcome.WARNED) else "ok")
        leaked = sum(len(r.leaked) for r in done)
        hint = "Select a scenario to see its steps, verdicts and notes."
        if leaked:
            hint = f"{leaked} resource(s) left behind: see the scenario's notes. " + hint
        prefix = "Cancelled. " if self.cancelling else ""
        self._progress(prefix + "Scenarios: " + ", ".join(parts or ["none ran"]), hint, tone)

    def action_cancel(self) -> None:
        if not self.running or self.runner is None:
            self.app.bell()
            return
        self.cancelling = True
        self.runner.cancel()
        self._progress(
            "Cancelling: the running chain is abandoned…",
            "What the scenario created is reported in its notes, not deleted.",
            "warn",
        )

    def action_close(self) -> None:
        if self.running and self.runner is not None:
            self.runner.cancel()
        self.dismiss(None)
