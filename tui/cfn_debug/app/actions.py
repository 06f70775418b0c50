"""The one registry of what the dashboard can do: keys, footer, help and palette read it.

The App's own keys (``APP_LEVEL``: export, theme, help, screenshot, quit) are bound on the App;
every other key belongs to the main screen's job (running, stepping, editing, watching, the
detail's tabs) and is bound there.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class UiAction:
    id: str  # stable binding id (users can remap keys by id)
    key: str  # Textual key names, comma-separated alternatives
    action: str  # the App action it runs
    title: str  # footer / palette label
    help: str  # one sentence for the help screen and the palette
    footer: bool = True
    #: It works on a saved session (`cfn-debug open`) too; else it is hidden there.
    saved: bool = False


ACTIONS: tuple[UiAction, ...] = (
    UiAction("run", "r", "run_event", "Run", "Run the selected event as a chain."),
    UiAction("mode", "m", "cycle_mode", "Mode", "Cycle the replay mode: auto, step, stop."),
    UiAction(
        "advance",
        "s",
        "advance",
        "Step",
        "Step mode: send the next invocation (with the callbackContext as edited).",
    ),
    UiAction(
        "context",
        "c",
        "edit_context",
        "Edit ctx",
        "Step mode: edit the callbackContext the next invocation sends.",
    ),
    UiAction("skip", "d", "skip_delay", "Skip delay", "Skip the callbackDelaySeconds countdown."),
    UiAction("cancel", "x", "cancel_run", "Stop", "Stop the running chain."),
    UiAction(
        "edit",
        "e",
        "edit_event",
        "Edit",
        "View and edit the selected event, validated against the schema as you type.",
    ),
    UiAction(
        "external",
        "E",
        "open_in_editor",
        "$EDITOR",
        "Open the selected event file in $EDITOR; it is reloaded when the editor exits.",
        footer=False,
    ),
    UiAction(
        "watch",
        "w",
        "toggle_watch",
        "Watch",
        "Watch mode on/off: a save of a handler source, the schema or an event file re-runs "
        "the selected event and compares its findings with the last run.",
    ),
    UiAction(
        "export",
        "ctrl+e",
        "export",
        "Export",
        "Export the session as JSON, Markdown, HTML or JUnit, beside the session journal.",
        footer=False,
        saved=True,
    ),
    UiAction(
        "scenarios",
        "S",
        "scenarios",
        "Scenarios",
        "Contract scenarios: run the multi-call sequences (create then read, delete then "
        "list, ...) and see each verdict with the contract sentence it enforces.",
    ),
    UiAction(
        "copy",
        "y",
        "copy",
        "Copy",
        "Copy the selected step's request, response, callbackContext or findings to the "
        "clipboard (OSC 52), masked as exports are.",
        footer=False,
        saved=True,
    ),
    UiAction(
        "search",
        "slash",
        "search",
        "Search",
        "Search the current tab; Enter or n finds the next match, N the previous, Esc ends.",
        footer=False,
        saved=True,
    ),
    UiAction(
        "sidebar",
        "backslash",
        "toggle_sidebar",
        "Sidebar",
        "Hide or show the events sidebar.",
        footer=False,
        saved=True,
    ),
    UiAction(
        "maximize",
        "z",
        "maximize_detail",
        "Maximize",
        "Maximize the step detail (z again, or Esc, restores the layout).",
        footer=False,
        saved=True,
    ),
    UiAction(
        "debug-step",
        "b",
        "replay_step",
        "Debug step",
        "Replay the selected step's request (same callbackContext, model and token) under the "
        "debugger: pdb stops at the handler's entry, or where a failed step raised.",
        footer=False,
    ),
    UiAction(
        "reset-demo",
        "R",
        "reset_demo",
        "Reset demo",
        "The bundled demo: forget every widget earlier runs created (its seed widgets return).",
        footer=False,
    ),
    UiAction(
        "notices",
        "exclamation_mark",
        "show_notices",
        "Notices",
        "Show every notice about the project in full: schema warnings, handler models that do "
        "not match the schema.",
        footer=False,
    ),
    UiAction(
        "theme",
        "t",
        "toggle_theme",
        "Theme",
        "Switch between the dark and light themes.",
        footer=False,
        saved=True,
    ),
    UiAction(
        "help", "question_mark,f1", "help", "Help", "Show the keys and what they do.", saved=True
    ),
    UiAction(
        "screenshot",
        "ctrl+s",
        "screenshot",
        "Screenshot",
        "Save an SVG screenshot (credentials masked) in the state directory or --screenshot-dir.",
        footer=False,
        saved=True,
    ),
    UiAction(
        "quit", "q", "quit", "Quit", "Quit cfn-debug (stops the embedded endpoint).", saved=True
    ),
)

#: The App actions that only work on a live project (hidden when a saved session is open).
LIVE_ONLY = frozenset(a.action for a in ACTIONS if not a.saved)

#: The detail tabs, in order; keys 1-7 switch to them.
TABS: tuple[tuple[str, str], ...] = (
    ("findings", "Findings"),
    ("diff", "Model diff"),
    ("request", "Request"),
    ("response", "Response"),
    ("logs", "Logs"),
    ("aws", "AWS calls"),
    ("timing", "Timing"),
)


#: The ids of the actions the App runs itself (they work over every screen).
APP_LEVEL = ("export", "theme", "help", "screenshot", "quit")


def is_app_level(action: UiAction) -> bool:
    return action.id in APP_LEVEL


def bindings(*, app: bool) -> list[Binding]:
    """The App's keys (``app=True``) or the main screen's (its actions and the tab keys)."""
    keys = [
        Binding(a.key, a.action, a.title, show=a.footer, id=a.id, tooltip=a.help)
        for a in ACTIONS
        if is_app_level(a) == app
    ]
    if not app:
        keys += [
            Binding(str(n), f"show_tab('{tab_id}')", title, show=False, id=f"tab-{tab_id}")
            for n, (tab_id, title) in enumerate(TABS, start=1)
        ]
    return keys


def key_label(action: UiAction) -> str:
    names = {
        "question_mark": "?",
        "ctrl+s": "Ctrl+S",
        "ctrl+e": "Ctrl+E",
        "backslash": "\\",
        "slash": "/",
        "exclamation_mark": "!",
    }
    return " / ".join(names.get(k, k) for k in action.key.split(","))


#: The App's keys that work over every screen (a modal screen stops the App's own bindings).
EVERYWHERE = ("screenshot", "theme", "help", "export")
#: Keys the footer shows only while they do something: (binding action) -> when.
CONTEXTUAL = ("advance", "edit_context", "skip_delay", "cancel_run")


def app_keys(*, leave_out: tuple[str, ...] = ()) -> list[Binding]:
    """The EVERYWHERE keys for a screen's BINDINGS, running the App's actions (minus the ids a
    screen uses its own way, such as Ctrl+S applying an edit)."""
    return [
        Binding(a.key, f"app.{a.action}", a.title, show=False, id=f"app-{a.id}")
        for a in ACTIONS
        if a.id in EVERYWHERE and a.id not in leave_out
    ]
