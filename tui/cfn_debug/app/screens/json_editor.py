"""Modal JSON editors: the event (validated against the schema as you type) and callbackContext."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static, TextArea

from cfn_debug.app.actions import app_keys
from cfn_debug.text.terminal import printable

#: Takes the parsed document, returns the problems as (where, message); empty when it is fine.
Validator = Callable[[Any], list[tuple[str, str]]]


def parse_json(text: str) -> tuple[Any, str | None]:
    try:
        return json.loads(text), None
    except json.JSONDecodeError as error:
        return None, f"line {error.lineno}, column {error.colno}: {error.msg}"


class JsonEditor(ModalScreen[Any]):
    """Edit a JSON document; dismisses with the parsed value on apply, or with ``...`` on cancel."""

    BINDINGS = [
        Binding("ctrl+s", "apply", "Apply", id="editor-apply"),
        Binding("escape", "cancel", "Cancel", id="editor-cancel"),
        *app_keys(leave_out=("screenshot",)),
    ]

    def __init__(
        self,
        title: str,
        value: Any,
        validator: Validator | None = None,
        *,
        apply_label: str = "Apply (Ctrl+S)",
        allow_with_problems: bool = False,
    ) -> None:
        super().__init__()
        self._title = title
        self._text = json.dumps(value, indent=2)
        self._validator = validator
        self._apply_label = apply_label
        self._allow_with_problems = allow_with_problems
        self.problems: list[str] = []
        self.value: Any = value

    def compose(self) -> ComposeResult:
        with Vertical(id="editor-box"):
            yield Static(Text(printable(self._title)), id="editor-title")
            yield TextArea(
                self._text, id="editor-text", show_line_numbers=True, tab_behavior="indent"
            )
            yield Static(id="editor-problems")
            with Horizontal(id="editor-buttons"):
                yield Button(self._apply_label, id="apply", variant="primary")
                yield Button("Cancel (Esc)", id="cancel")

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        if getattr(getattr(self.app, "config", None), "deterministic", False):
            area.cursor_blink = False  # snapshots must not catch the cursor mid-blink
        area.focus()
        self._validate(self._text)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._validate(event.text_area.text)

    def _validate(self, text: str) -> None:
        value, syntax = parse_json(text)
        problems: list[str] = []
        if syntax is not None:
            problems.append(f"JSON: {syntax}")
        elif self._validator is not None:
            try:
                problems = [
                    f"{where or '/'}: {message}" for where, message in self._validator(value)
                ]
            except Exception as error:  # a validator must never take the editor down
                problems = [f"could not validate: {error}"]
        self.problems = problems
        if syntax is None:
            self.value = value
        box = self.query_one("#editor-problems", Static)
        box.set_class(bool(problems), "-invalid")
        if problems:
            shown = problems[:8] + (
                [f"… and {len(problems) - 8} more"] if len(problems) > 8 else []
            )
            box.update(Text(printable("✗ " + "\n✗ ".join(shown))))
        else:
            box.update("✓ valid")

    def action_apply(self) -> None:
        syntax_error = any(p.startswith("JSON: ") for p in self.problems)
        if syntax_error or (self.problems and not self._allow_with_problems):
            self.query_one("#editor-problems", Static).add_class("-blocked")
            return
        self.dismiss(self.value)

    def action_cancel(self) -> None:
        self.dismiss(...)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "apply":
            self.action_apply()
        else:
            self.action_cancel()
