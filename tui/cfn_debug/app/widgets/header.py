"""The top line: type name, replay mode, watch state, endpoint and function, which AWS."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from cfn_debug.app.render import scrub
from cfn_debug.text.terminal import printable


class SessionHeader(Static):
    type_name: reactive[str] = reactive("opening project…")
    endpoint: reactive[str] = reactive("-")
    function: reactive[str] = reactive("-")
    mode: reactive[str] = reactive("auto")
    watch: reactive[bool] = reactive(False)
    #: Which AWS the handlers talk to (``AwsTarget.short``: local moto, an endpoint, a real
    #: account, or none); empty until the workspace is open.
    aws: reactive[str] = reactive("")

    def __init__(self, *, deterministic: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self._deterministic = deterministic

    def render(self) -> Text:
        # What the keys change first (mode, watch), so a narrow terminal still shows them; the
        # long parts (endpoint, function, AWS) last, where the line is cut.
        endpoint = printable(scrub(self.endpoint) if self._deterministic else self.endpoint)
        text = Text(f" {printable(self.type_name)}", style="bold")
        text.append("  │  ", style="dim")
        text.append("mode ", style="dim")
        text.append(self.mode, style="bold")
        text.append("  │  ", style="dim")
        text.append("watch ", style="dim")
        text.append("on" if self.watch else "off", style="bold" if self.watch else "")
        text.append("  │  ", style="dim")
        text.append(endpoint)
        text.append(" → ", style="dim")
        text.append(printable(self.function), style="bold")
        if self.aws:
            text.append("  │  ", style="dim")
            text.append("AWS ", style="dim")
            text.append(printable(scrub(self.aws) if self._deterministic else self.aws))
        return text
