"""The one registry of what the dashboard can do: keys, footer, help and palette read it."""

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
        "Edit event",
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
        "reset-demo",
        "R",
        "reset_demo",
        "Reset demo",
        "The bundled demo: forget every widget earlier runs created (its seed widgets return).",
        footer=False,
    ),
    UiAction(
        "theme",
        "t",
        "toggle_theme",
        "Theme",
        "Switch between the dark and light themes.",
        footer=False,
    ),
    UiAction("help", "question_mark,f1", "help", "Help", "Show the keys and what they do."),
    UiAction(
        "screenshot",
        "ctrl+s",
        "screenshot",
        "Screenshot",
        "Save an SVG screenshot of the dashboard in the current directory.",
        footer=False,
    ),
    UiAction("quit", "q", "quit", "Quit", "Quit cfn-debug (stops the embedded endpoint)."),
)

#: The detail tabs, in order; keys 1-6 switch to them.
TABS: tuple[tuple[str, str], ...] = (
    ("findings", "Findings"),
    ("diff", "Model diff"),
    ("request", "Request"),
    ("response", "Response"),
    ("logs", "Logs"),
    ("timing", "Timing"),
)


def bindings() -> list[Binding]:
    keys = [
        Binding(a.key, a.action, a.title, show=a.footer, id=a.id, tooltip=a.help) for a in ACTIONS
    ]
    keys += [
        Binding(str(n), f"show_tab('{tab_id}')", title, show=False, id=f"tab-{tab_id}")
        for n, (tab_id, title) in enumerate(TABS, start=1)
    ]
    return keys


def key_label(action: UiAction) -> str:
    names = {"question_mark": "?", "ctrl+s": "Ctrl+S", "ctrl+e": "Ctrl+E"}
    return " / ".join(names.get(k, k) for k in action.key.split(","))
