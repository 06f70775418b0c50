"""The selected step in tabs: Findings, Model diff, Request, Response, Logs, Timing.

The main screen tells it what to show by its methods: ``show_run`` (nothing selected yet),
``add_step`` (the run's first step is shown at once: the row the timeline's cursor lands on once
its batch of rows is drawn), ``select_step`` (the timeline's cursor moved), ``update_run`` (the
run ended, or its record, its comparison, the Changes section changed), ``set_palette``. What it
shows of a run is the run's record once it ended: the same record the status line summarises.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Static, TabbedContent, TabPane

from cfn_debug.app.actions import TABS
from cfn_debug.app.render import (
    Palette,
    aws_calls_renderable,
    changes_renderable,
    findings_renderable,
    json_renderable,
    logs_renderable,
    response_renderable,
    run_tally,
    scrub,
    timing_renderable,
)
from cfn_debug.app.runview import RunView
from cfn_debug.app.searching import as_text, find
from cfn_debug.records import Action, RunRecord, Step

#: (rule id, the action of the step or chain) -> the contract sentence for that action.
ContractOf = Callable[[str, Action | None], str | None]


class StepDetail(Vertical):
    """Renders only the active tab; switching tabs renders the newly shown one."""

    ALLOW_MAXIMIZE = True  # z: the detail alone on screen
    BINDINGS = [
        Binding("n", "search_step(1)", "Next match", show=False, id="search-next"),
        Binding("N", "search_step(-1)", "Previous match", show=False, id="search-previous"),
        Binding("escape", "end_search", "End search", show=False, id="search-end"),
    ]

    def __init__(
        self,
        contract_of: ContractOf,
        *,
        deterministic: bool = False,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._contract_of = contract_of
        self._deterministic = deterministic
        self.palette = Palette()
        self.step: Step | None = None
        #: The timeline's row the step shown is on (-1: none).
        self.row = -1
        self.steps: list[Step] = []
        self.run: RunRecord | None = None
        self.chain_limit_s: float | None = None
        self._rendered: set[str] = set()
        #: Watch mode's Changes section, shown first on the Findings tab when there is one.
        self.changes: RenderableType | None = None
        #: `/` search: the query, the current match, and how many the active tab has.
        self.query_text = ""
        self.match_index = 0
        self.matches = 0

    def compose(self) -> ComposeResult:
        with TabbedContent(initial="findings", id="tabs"):
            for tab_id, title in TABS:
                with TabPane(title, id=tab_id), VerticalScroll(id=f"{tab_id}-scroll"):
                    yield Static(id=f"{tab_id}-body", classes="detail-body")
        with Horizontal(id="search-bar"):
            yield Input(placeholder="search this tab", id="search-input")
            yield Static(id="search-info")

    # --- what the main screen tells it ---------------------------------------------------------

    def show_run(self, view: RunView) -> None:
        """A run takes the screen: nothing selected yet."""
        self._show_view(view, -1)

    def add_step(self, view: RunView, step: Step) -> None:
        # The first step of a run: nothing is selected yet, and the timeline (reset by
        # show_run, so following) puts its cursor on row 0 once it draws its next batch of
        # rows (FLUSH_S later, then its Selected through the screen): a re-run's findings on
        # screen without those hops. Later steps are the timeline's to select (a user may have
        # moved its cursor away).
        if self.row < 0 and view.steps and view.steps[0] is step:
            self._show_view(view, 0)

    def select_step(self, view: RunView, row: int) -> None:
        """The timeline's cursor is on row ``row`` of ``view`` (-1: no row)."""
        self._show_view(view, row)

    def update_run(self, view: RunView) -> None:
        """The run shown ended, or something about it besides its steps changed (its record,
        its comparison, the Changes section)."""
        self._show_view(view, self.row)

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self._rendered.clear()
        self.render_active()

    def _show_view(self, view: RunView, row: int) -> None:
        """Show row ``row`` of ``view`` (the run's steps; -1: none)."""
        self.row = row
        step = view.steps[row] if 0 <= row < len(view.steps) else None
        self.changes = view.changes
        self.show(step, view.steps, view.shown_run, view.limit_s)

    @property
    def active(self) -> str:
        return self.query_one(TabbedContent).active

    @active.setter
    def active(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def show(
        self,
        step: Step | None,
        steps: list[Step],
        run: RunRecord | None,
        chain_limit_s: float | None,
    ) -> None:
        self.step, self.steps, self.run, self.chain_limit_s = step, steps, run, chain_limit_s
        self._rendered.clear()
        self.render_active()

    def _for_action(self, action: Action) -> Callable[[str], str | None]:
        return lambda rule_id: self._contract_of(rule_id, action)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.render_active()

    def render_active(self) -> None:
        tab = self.active or "findings"
        if tab in self._rendered:
            return
        self._rendered.add(tab)
        if self.query_text:
            self._search(jump=False)
            return
        self.query_one(f"#{tab}-body", Static).update(self.renderable_for(tab))

    # --- `/` search --------------------------------------------------------------------------

    def start_search(self) -> None:
        bar = self.query_one("#search-bar")
        bar.display = True
        self.query_one("#search-input", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.query_text = event.value
        self.match_index = 0
        self._search(jump=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(f"#{self.active or 'findings'}-scroll").focus()

    def action_search_step(self, delta: int) -> None:
        if not self.query_text or not self.matches:
            self.app.bell()
            return
        self.match_index = (self.match_index + delta) % self.matches
        self._search(jump=True)

    def action_end_search(self) -> None:
        if not self.query_text and not self.query_one("#search-bar").display:
            self.screen.minimize()  # Esc's usual meaning here: leave the maximized detail
            return
        self.query_text = ""
        self.matches = 0
        self.query_one("#search-input", Input).value = ""
        self.query_one("#search-bar").display = False
        self._rendered.clear()
        self.render_active()
        self.query_one(f"#{self.active or 'findings'}-scroll").focus()

    def _search(self, *, jump: bool) -> None:
        tab = self.active or "findings"
        scroll = self.query_one(f"#{tab}-scroll", VerticalScroll)
        width = (scroll.size.width or self.size.width or 80) - 2
        found = find(as_text(self.renderable_for(tab), width), self.query_text, self.match_index)
        self.matches = len(found.starts)
        self.match_index = max(found.current, 0)
        self.query_one(f"#{tab}-body", Static).update(found.text)
        info = self.query_one("#search-info", Static)
        if not self.query_text:
            info.update("")
        elif not found.starts:
            info.update(Text(" no match", style=self.palette.warn))
        else:
            info.update(
                Text(f" {found.current + 1}/{self.matches}  n next · N previous · Esc ends")
            )
        if jump and found.starts:
            scroll.scroll_to(y=max(0, found.line - 2), animate=False)

    def renderable_for(self, tab: str) -> RenderableType:
        step, p, det = self.step, self.palette, self._deterministic
        if tab == "timing":
            return timing_renderable(self.run, self.steps, self.chain_limit_s, p, deterministic=det)
        if tab == "findings":
            parts: list[RenderableType] = []
            if self.changes is not None:
                parts.append(self.changes)
            if self.steps:
                parts += [run_tally(self.steps, self.run, p), Text("")]
            if step is not None:
                parts.append(
                    findings_renderable(
                        step.findings,
                        self._for_action(step.action),
                        p,
                        title=f"Step #{step.index} ({step.action.value})",
                        deterministic=det,
                    )
                )
            if self.run is not None and self.run.end_reason is not None:
                parts.append(
                    findings_renderable(
                        self.run.chain_findings,
                        self._for_action(self.run.action),
                        p,
                        title="Whole chain",
                        deterministic=det,
                    )
                )
            return Group(*parts) if parts else _nothing(p)
        if step is None:
            return _nothing(p)
        if tab == "diff":
            return Group(
                changes_renderable(
                    step.diff_request,
                    p,
                    title="Returned model vs the model requested",
                    deterministic=det,
                ),
                Text(""),
                changes_renderable(
                    step.diff_previous,
                    p,
                    title="Returned model vs the previous step's",
                    deterministic=det,
                ),
            )
        if tab == "request":
            head = Text(f"Sent to {step.function_name}", style="bold")
            if not det:
                head.append(f" at {step.started_at}", style=p.muted)
            return Group(head, json_renderable(step.request, deterministic=det))
        if tab == "response":
            return response_renderable(step, p, deterministic=det)
        if tab == "logs":
            head = Text(f"Handler log lines of step #{step.index}", style="bold")
            if step.result.request_id and not det:
                head.append(f"  RequestId {step.result.request_id}", style=p.muted)
            logs = logs_renderable(
                step.result.logs, p, request_id=step.result.request_id, deterministic=det
            )
            return Group(head, logs)
        if tab == "aws":
            head = Text(f"AWS calls of step #{step.index}", style="bold")
            calls = getattr(step, "aws_calls", None) or []
            note = step.result.aws_calls_note
            return Group(head, aws_calls_renderable(calls, p, deterministic=det, note=note))
        return Text(scrub(tab) if det else tab)


def _nothing(palette: Palette) -> Text:
    return Text("Run an event (select it and press r) to see its steps here.", style=palette.muted)
