"""The main screen's keys: run, mode, step, edit the callbackContext, skip the delay, stop,
edit the event (here or in $EDITOR), watch, scenarios, copy, search, sidebar, maximize, reset
the demo, and the detail's tabs. A mixin of ``MainScreen`` (``screen.py``), which holds
the state these act on."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cfn_debug.app import demo_support
from cfn_debug.app.opening import engine_support
from cfn_debug.app.runview import RunView
from cfn_debug.app.screens.notices import NoticesScreen
from cfn_debug.app.widgets.events_panel import EventsPanel
from cfn_debug.app.widgets.notices import Notices
from cfn_debug.app.widgets.run_status import Countdown, Prompt
from cfn_debug.app.widgets.step_detail import StepDetail
from cfn_debug.app.widgets.timeline import Timeline
from cfn_debug.errors import CfnDebugError

if TYPE_CHECKING:
    from types import ModuleType

    from cfn_debug.app.screens.main.screen import MainScreen

    _Base = MainScreen
else:
    _Base = object


def _editing() -> ModuleType:
    """``cfn_debug.app.event_editing``: the JSON editor screen and what editing needs, part of
    the engine the worker opening the project loads (an event to edit comes with the project)."""
    return engine_support().event_editing


class MainActions(_Base):
    # --- running ----------------------------------------------------------------------------

    def action_run_event(self) -> None:
        if self.refuse_read_only():
            return
        if self.live.workspace is None:
            if self.live.workspace_error is not None:
                self.live.workspace_error = None
                self.say(Prompt("Opening the project again…"))
                self.app.open_project()  # type: ignore[attr-defined]
            return
        if self.selected_event is None:
            self.app.bell()
            return
        self.run_event(self.selected_event)

    def action_cycle_mode(self) -> None:
        if not self.refuse_read_only():
            self.cycle_mode()

    def action_advance(self) -> None:
        if self.refuse_read_only():
            return
        control, awaiting = self.control, self.view.awaiting
        if control is None or awaiting is None:
            if not self.running and self.mode == "step" and self.selected_event is not None:
                self.run_event(self.selected_event)
            else:
                self.app.bell()
            return
        self.view.awaiting = None
        if self.pending_context is ...:
            control.advance()
        else:
            control.advance(callback_context=self.pending_context)
        self.pending_context = ...

    def action_edit_context(self) -> None:
        if self.refuse_read_only():
            return
        awaiting = self.view.awaiting
        if awaiting is None:
            self.app.bell()
            return
        current = awaiting.callback_context if self.pending_context is ... else self.pending_context
        self._edit_json(
            self._context_edited,
            f"callbackContext for invocation #{awaiting.next_index} (a JSON object, or null)",
            current,
            _editing().context_problems,
            apply_label="Use it (Ctrl+S)",
        )

    def _context_edited(self, value: Any) -> None:
        awaiting = self.view.awaiting
        if value is ... or awaiting is None:
            return
        self.pending_context = value
        self.say(
            Prompt(
                f"Step mode: invocation #{awaiting.next_index} is ready (callbackContext edited).",
                "s sends it · c edits its callbackContext · x stops the chain",
            )
        )

    def action_skip_delay(self) -> None:
        if self.refuse_read_only():
            return
        control = self.control
        if control is None or not isinstance(self.status_state, Countdown):
            self.app.bell()
            return
        control.skip_delay()
        self.say(Prompt("Delay skipped."))

    def action_replay_step(self) -> None:
        """``b``: the selected step of the run shown, again, under the debugger."""
        if self.refuse_read_only():
            return
        run, chains = self.view.run, self.chains
        row = self.query_one(Timeline).cursor_row
        workspace = self.live.workspace
        if (
            run is None
            or not self.view.ended
            or chains is None
            or workspace is None
            or not 0 <= row < len(run.steps)
        ):
            self.app.bell()
            return
        step = run.steps[row]
        if workspace.embedded is None:
            self.say(
                Prompt(
                    "Debugging a step needs the embedded endpoint.",
                    "Open the project without --endpoint to run its handlers here.",
                    "error",
                )
            )
            return
        self.view = RunView(
            chains.next_generation(),
            self.view.event_index,
            mode="stop",
            event_name=f"{run.event_name} · replay of step #{step.index}",
        )
        self.running = True
        self._footer_follows()
        self._run_shown()
        self.say(Prompt(f"Replaying step #{step.index} under the debugger…"))
        chains.replay(self.view.generation, run, step)

    def action_cancel_run(self) -> None:
        if self.refuse_read_only():
            return
        control = self.control
        if control is None:
            self.app.bell()
            return
        control.cancel()

    def action_reset_demo(self) -> None:
        if self.refuse_read_only():
            return
        if not self._is_demo():
            self.say(
                Prompt(
                    "R resets the bundled demo's state; this project is not the demo.", tone="warn"
                )
            )
            return
        if self.running:
            self.say(
                Prompt("A chain is running: stop it (x) before resetting the demo.", tone="warn")
            )
            return
        try:
            root = demo_support.reset(self.config.env_vars)
        except OSError as error:
            self.say(Prompt(f"Could not reset the demo's state: {error}", tone="error"))
            return
        self.say(
            Prompt(
                f"Demo state reset ({root}): every widget your runs created is gone.",
                "The seed widgets come back with the next invocation.",
                "ok",
            )
        )

    # --- watch mode -------------------------------------------------------------------------

    def action_toggle_watch(self) -> None:
        if self.refuse_read_only():
            return
        watching = self.chains is not None and self.chains.watcher is not None
        if watching or (self.watching and self.live.workspace is None):
            self.stop_watching()
            self.say(
                Prompt("Watch mode off.", "w watches the handler sources, schema and events again.")
            )
            return
        self.watching = True
        if self.live.workspace is None:
            self.header.watch = True
            return  # it starts when the project opens
        self._start_watching()

    # --- the event --------------------------------------------------------------------------

    def action_edit_event(self) -> None:
        if self.refuse_read_only():
            return
        spec, index = self.selected(), self.selected_event
        if spec is None or index is None:
            self.app.bell()
            return
        schema = self.live.workspace.schema if self.live.workspace is not None else None
        self._edit_json(
            lambda value: self.event_edited(index, value),
            f"Event {spec.name}: edits apply to this session (credentials stay as they are); "
            "E opens the file in $EDITOR",
            _editing().redact(spec.data),
            lambda data: _editing().event_problems(spec, schema, data),
            allow_with_problems=True,
        )

    def _edit_json(self, done: Callable[[Any], object], *args: Any, **kwargs: Any) -> None:
        """Open the JSON editor (``JsonEditor(*args, **kwargs)``); ``done`` gets what it
        returns."""
        self.app.push_screen(_editing().JsonEditor(*args, **kwargs), done)

    def event_edited(self, index: int, value: Any) -> None:
        """The editor closed with ``value`` (``...``: cancelled) for the event at ``index``."""
        if value is ...:
            return
        original = self.events[index]
        try:
            edited = _editing().apply_edit(original, value)
        except CfnDebugError as error:
            self.say(
                Prompt(
                    f"The edited event was not applied: {error}",
                    "Press e to edit it again.",
                    "error",
                )
            )
            return
        self.replace_event(index, edited, edited=True)
        self.say(Prompt(f"Edited {original.name} (this session only).", "Press r to run it.", "ok"))

    def action_open_in_editor(self) -> None:
        if self.refuse_read_only():
            return
        spec, index = self.selected(), self.selected_event
        if spec is None or index is None or spec.path is None:
            self.app.bell()
            return
        problem = _editing().run_editor(self.app, spec)
        if problem is not None:
            self.say(Prompt(problem, "Set EDITOR, or press e to edit the event here.", "error"))
            return
        exports = self.live.workspace.project.exports if self.live.workspace is not None else None
        try:
            reloaded = _editing().reload(spec, exports)
        except CfnDebugError as error:
            self.say(
                Prompt(
                    f"The event did not reload: {error}", "Fix the file and press E again.", "error"
                )
            )
            return
        self.replace_event(index, reloaded, edited=False)
        self.say(Prompt(f"Reloaded {spec.name} from disk.", tone="ok"))

    # --- reading ----------------------------------------------------------------------------

    def action_show_tab(self, tab: str) -> None:
        self.query_one(StepDetail).active = tab

    def action_search(self) -> None:
        """/: search the current detail tab."""
        self.query_one(StepDetail).start_search()

    def action_copy(self) -> None:
        """y: copy a piece of the selected step, masked as exports are (OSC 52)."""
        detail = self.query_one(StepDetail)
        step = detail.step
        if step is None or self.view.run is None:
            self.app.bell()
            self.app.notify("Select a step first: y copies from the selected step.")
            return
        run = self.view.run
        workspace = self.live.workspace
        schema = workspace.schema if workspace is not None else None
        steps = self.view.steps if self.view.steps else run.steps
        # lazy: the copy screen's clips (cfn_debug.export's, re2) load with the first y
        from cfn_debug.app.screens.copy import CopyScreen

        chooser = CopyScreen(run, steps, step, detail.active, schema.write_only if schema else ())
        self.app.push_screen(chooser, self._copied)

    def _copied(self, clip: Any) -> None:
        """The copy screen's Clip (None: nothing chosen) goes to the clipboard."""
        if clip is None:
            return
        self.app.copy_to_clipboard(clip.text)
        self.last_copied = clip.text
        self.app.notify(
            f"Copied the {clip.title} of step #{clip.step_index} ({len(clip.text):,} characters).",
            markup=False,
        )

    def action_toggle_sidebar(self) -> None:
        panel = self.query_one(EventsPanel)
        panel.toggle_class("-hidden")
        if panel.has_class("-hidden") and panel.has_focus:
            self.query_one(Timeline).focus()

    def action_maximize_detail(self) -> None:
        if self.maximized is not None:
            self.minimize()
        else:
            self.maximize(self.query_one(StepDetail), container=False)

    def action_show_notices(self) -> None:
        self.app.push_screen(NoticesScreen(self.query_one(Notices).lines))

    def action_scenarios(self) -> None:
        # lazy: the scenarios engine (the catalogue, Hypothesis) loads with the screen
        from cfn_debug.app.screens.scenarios import ScenariosScreen

        self.app.push_screen(ScenariosScreen.for_app(self.app))
