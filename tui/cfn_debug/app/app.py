"""The cfn-debug dashboard's App: it holds the session (``LiveSession``), composes the screens,
routes what workers post to the screen that owns the work, and runs the keys that work over
every screen (export, theme, help, screenshot, quit). It never shows an exception's traceback:
an error in a handler is shown in place and the app goes on.

Where the rest lives: the dashboard's job in ``screens/main/`` (its layout and state in
``screen.py``, the engine's stream in ``stream.py``, its keys in ``actions.py``), chains and
watch mode in ``chain_runs.py``, opening the project in ``opening.py``, exports in
``exporting.py``, the journal in ``journaling.py``.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import App, SystemCommand
from textual.message import Message
from textual.screen import Screen

from cfn_debug.app.actions import ACTIONS, TABS, bindings, is_app_level
from cfn_debug.app.commands import EventCommands
from cfn_debug.app.config import AppConfig
from cfn_debug.app.live import LiveSession
from cfn_debug.app.messages import (
    DebuggerEvent,
    ExportFinished,
    JournalStopped,
    Progress,
    SessionLoaded,
    WorkspaceFailed,
    WorkspaceReady,
)
from cfn_debug.app.opening import WorkspaceOpener, load_and_post, open_and_post, open_workspace
from cfn_debug.app.screens.export import EXPORT_FORMATS, ExportScreen
from cfn_debug.app.screens.help import HelpScreen
from cfn_debug.app.screens.main import MainScreen
from cfn_debug.app.themes import DARK, LIGHT, THEMES, palette_for
from cfn_debug.app.widgets.run_status import Prompt
from cfn_debug.locations import screenshot_dir
from cfn_debug.records import Action
from cfn_debug.text.terminal import printable

if TYPE_CHECKING:
    from types import ModuleType

    from cfn_debug.journal.session import Journal

__all__ = ["CfnDebugApp", "contract_sentence", "open_workspace"]


def _masking() -> ModuleType:
    """``cfn_debug.app.masking``: credentials kept out of a screenshot or an error shown."""
    # lazy: the redaction patterns (re2) load with the first screenshot or error shown
    from cfn_debug.app import masking

    return masking


def contract_sentence(rule_id: str, action: Action | None = None) -> str | None:
    """The contract sentence a rule enforces; for a step, only the part about its action."""
    # lazy: the rule catalogue (contract, schema) loads with a saved session's first finding
    from cfn_debug.contract import rule

    try:
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
    BINDINGS = bindings(app=True)
    COMMANDS = App.COMMANDS | {EventCommands}

    def __init__(self, config: AppConfig | None = None, *, opener: WorkspaceOpener | None = None):
        super().__init__()
        self.config = config or AppConfig()
        self._opener = opener or open_workspace
        self.live = LiveSession(self.config, self._journal_problem)
        #: UI errors caught in place: (monotonic time, text) of the latest ones.
        self.ui_errors: list[tuple[float, str]] = []
        self.last_export: Path | None = None
        self.last_screenshot: Path | None = None
        if self.config.deterministic:
            self.animation_level = "none"

    # --- screens ----------------------------------------------------------------------------

    def get_default_screen(self) -> Screen[Any]:
        return MainScreen(self.live, contract_sentence, deterministic=self.config.deterministic)

    @property
    def main(self) -> MainScreen:
        """The main screen (the bottom of the stack), whichever screen is shown over it."""
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    def on_main_screen_ready(self, _message: MainScreen.Ready) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = self.config.theme
        self.theme_changed_signal.subscribe(self, lambda _theme: self._apply_palette())
        self._apply_palette()
        self.open_project()

    def open_project(self) -> None:
        """Open the project (or read the saved session) in a worker; it posts what happened."""
        if self.live.read_only:
            self._load_saved()
        else:
            self._open_workspace()

    @work(thread=True, exclusive=True, group="workspace", exit_on_error=False)
    def _open_workspace(self) -> None:
        open_and_post(self.live, self._opener, self.post_message)

    @work(thread=True, exclusive=True, group="workspace", exit_on_error=False)
    def _load_saved(self) -> None:
        load_and_post(self.live, self.post_message)

    @on(WorkspaceReady)
    @on(WorkspaceFailed)
    @on(SessionLoaded)
    @on(JournalStopped)
    @on(Progress)
    @on(DebuggerEvent)
    def _to_main(self, message: Message) -> None:
        """What the App's workers post (opening the project, reading a saved session, the
        journal, a worker's pdb from the debug channel's threads) belongs to the main screen's
        job: route it there. The chain and watch workers
        run on the main screen and post to it."""
        if self._ui_alive():
            self.main.post_message(message)

    def _apply_palette(self) -> None:
        if self._ui_alive():
            self.main.show_palette(palette_for(self.current_theme))

    def _ui_alive(self) -> bool:
        """False while the app shuts down and a late message arrives after the widgets went."""
        stack = self.screen_stack
        return bool(stack) and isinstance(stack[0], MainScreen) and stack[0].alive

    def on_unmount(self) -> None:
        workspace = self.live.close()
        stack = self.screen_stack
        if stack and isinstance(stack[0], MainScreen) and stack[0].chains is not None:
            stack[0].chains.close()
        if workspace is not None:
            workspace.close()
        self.live.log.close()

    @property
    def workspace(self) -> Any:
        return self.live.workspace

    @property
    def workspace_error(self) -> tuple[str, str] | None:
        return self.live.workspace_error

    @property
    def read_only(self) -> bool:
        return self.live.read_only

    @property
    def saved(self) -> Any:
        """The saved session shown (`cfn-debug open`), once read."""
        return self.live.saved

    @property
    def session_runs(self) -> list[Any]:
        return self.live.runs

    @property
    def journal(self) -> Journal | None:
        return self.live.journal

    @property
    def journal_path(self) -> Path | None:
        return self.live.journal_path

    def run_event(self, index: int) -> None:
        """Run the event at ``index`` (the palette's event commands, benches)."""
        self.main.run_event(index)

    def action_show_tab(self, tab: str) -> None:
        """Show a detail tab (the palette, scripts)."""
        self.main.action_show_tab(tab)

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
            if self.live.shutting_down or len(recent) >= ERROR_BURST or not self._ui_alive():
                return False
            self._show_ui_error(error, now)
        except Exception:
            return False
        return True

    def _show_ui_error(self, error: Exception, now: float) -> None:
        masking = _masking()
        text = masking.redact_text(f"{type(error).__name__}: {error}")
        self.ui_errors = [*self.ui_errors[-20:], (now, text)]
        where = ""
        log = self.live.log.errors_path
        if log is not None:
            try:
                log.parent.mkdir(parents=True, exist_ok=True)
                with log.open("a", encoding="utf-8") as out:
                    out.write(
                        masking.redact_text("".join(traceback.format_exception(error))) + "\n"
                    )
                where = f" The traceback is in {log}."
            except OSError:
                where = ""
        self.main.say(
            Prompt(
                f"Internal error (the dashboard keeps running): {text}",
                "Nothing was lost: the session journal is intact." + where + " Please report it.",
                "error",
            )
        )

    def _journal_problem(self, text: str) -> None:
        self.post_message(JournalStopped(text))

    # --- keys that work over every screen ---------------------------------------------------

    def action_export(self, fmt: str | None = None) -> None:
        """Export the session; without a format, ask which."""
        if fmt is None:
            self.push_screen(ExportScreen(), self._export_chosen)
            return
        self._export_chosen(fmt)

    def _export_chosen(self, fmt: str | None) -> None:
        if fmt is None:
            return
        if not self.live.runs:
            self.main.say(Prompt("Nothing to export yet.", "Run an event first (r).", "warn"))
            return
        # lazy: the exporter (cfn_debug.export, the journal) loads with the first export
        from cfn_debug.app.exporting import export_target, session_of, write_export

        target = export_target(self.live, fmt)
        self.main.say(Prompt(f"Exporting the session to {target}…"))
        self._write_export(partial(write_export, self.live, fmt, target, session_of(self.live)))

    @work(thread=True, group="export", exit_on_error=False)
    def _write_export(self, write: Callable[[Callable[[Message], object]], None]) -> None:
        """Run ``write`` (``exporting.write_export`` with its arguments) in this thread; it
        posts ``ExportFinished``."""
        write(self.post_message)

    def on_export_finished(self, message: ExportFinished) -> None:
        if not self._ui_alive():
            return
        self.last_export = message.path
        if message.error is not None:
            self.main.say(
                Prompt(f"The export failed: {message.error}", "Check the directory.", "error")
            )
            return
        title = dict(EXPORT_FORMATS).get(message.fmt, message.fmt)
        self.main.say(Prompt(f"Exported the session as {title}: {message.path}", tone="ok"))
        self.notify(f"Exported {printable(str(message.path))}", title="Export", markup=False)

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT.name if self.theme == DARK.name else DARK.name

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
        folder = self.config.screenshot_dir or screenshot_dir()
        target = folder / f"cfn-debug_{time.strftime('%Y%m%d_%H%M%S')}.svg"
        masking = _masking()
        secrets = masking.known_secrets(self._secret_sources())
        svg = masking.scrub_secrets(self.export_screenshot(title="cfn-debug"), secrets)
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

    def _secret_sources(self) -> list[Any]:
        """What carries the session's credential values (events, profile): none may be drawn."""
        sources: list[Any] = [event.data for event in self.main.events]
        if self.workspace is not None:
            sources.append(getattr(self.workspace.defaults, "credentials", None))
        return sources

    # --- the command palette ----------------------------------------------------------------

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for action in ACTIONS:
            yield SystemCommand(action.title, action.help, self._runner_of(action))
        for tab_id, title in TABS:
            yield SystemCommand(
                f"Show {title}",
                f"Switch the detail to the {title} tab.",
                partial(self.main.action_show_tab, tab_id),
            )
        for fmt, title in EXPORT_FORMATS:
            yield SystemCommand(
                f"Export session as {title}",
                "Write every run of this session beside the journal (credentials redacted).",
                partial(self.action_export, fmt),
            )

    def _runner_of(self, action: Any) -> Callable[[], Any]:
        if is_app_level(action):
            return partial(self.run_action, action.action)
        return partial(self.run_action, action.action, self.main)
