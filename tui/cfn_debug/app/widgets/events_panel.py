"""The discovered events, grouped by action and by the folder they came from.

The tree owns the events as this session edited them; the main screen calls ``load_events``,
``load_runs``, ``replace`` and ``select_index``, and the tree says when it has shown a new list
(``EventsPanel.Shown``).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from cfn_debug.text.terminal import printable

if TYPE_CHECKING:
    from cfn_debug.events import EventSpec
    from cfn_debug.records import RunRecord

ACTION_ORDER = ("CREATE", "READ", "UPDATE", "DELETE", "LIST")
SOURCE_ORDER = ("sample_events", "sam-tests", "inputs", "example_inputs")


def _action_name(event: EventSpec) -> str:
    action: Any = event.action
    return str(getattr(action, "value", action))


def event_source(event: EventSpec, root: Path | None) -> str:
    """The folder an event came from, relative to the project when it can be."""
    path = getattr(event, "path", None)
    if path is None:  # made in code: a hook's generated target models, or edited in the session
        return "generated" if event.name.startswith("generated/") else "edited"
    parent = Path(path).parent
    if root is not None:
        try:
            return str(parent.resolve().relative_to(root.resolve())) or "."
        except ValueError:
            pass
    return parent.name or str(parent)


def short_name(event: EventSpec) -> str:
    """The event's name without its folder (the tree groups by folder already)."""
    return event.name.rsplit("/", 1)[-1]


class EventsPanel(Tree[int]):
    """A tree: one branch per (action, source), one leaf per event; leaf data = event index.

    A click or the arrow keys only select (the app shows the event's function); Enter asks to
    run the event under the cursor (RunRequested). A click never sends an invocation.
    """

    BINDINGS = [Binding("enter", "run_cursor", "Run", show=False, id="events-run")]

    class RunRequested(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class Shown(Message):
        """A new list is shown: ``events`` (empty for saved runs); ``first`` is the index of
        the leaf shown first (None: none)."""

        def __init__(self, first: int | None, events: list[EventSpec]) -> None:
            super().__init__()
            self.first = first
            self.events = events

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("Events", id=id)
        self.show_root = False
        self.guide_depth = 2
        self._leaves: dict[int, TreeNode[int]] = {}
        #: The error of each event file that did not load, by its leaf's node id.
        self._errors: dict[int, str] = {}
        #: The events shown (leaf data is an index into it), as this session edited them.
        self.events: list[EventSpec] = []
        #: Indexes of the events edited in this session (sent as edited, marked with a *).
        self.edited: set[int] = set()

    def load_events(
        self,
        events: list[EventSpec],
        root: Path | None,
        errors: list[str],
        *,
        keep_cursor: bool = False,
    ) -> None:
        """The project's events as the files have them (this session's edits dropped): a new
        list, the cursor on the first event (not a group header) unless ``keep_cursor`` (a
        reload in watch mode: the re-run puts the cursor on its event)."""
        self.show_events(events, root, errors)
        first = self.first_index()
        if first is not None and not keep_cursor:
            self.select_index(first)
        self.post_message(self.Shown(first, list(self.events)))

    def load_runs(self, runs: list[RunRecord], problems: list[str]) -> None:
        """A saved session's runs, shown in place of the events."""
        self.show_runs(runs, problems)
        if runs:
            self.select_index(0)
        self.post_message(self.Shown(0 if runs else None, []))

    def show_events(
        self,
        events: list[EventSpec],
        root: Path | None,
        errors: list[str] | None = None,
    ) -> None:
        """Show ``events`` as the files have them (this session's edits are dropped)."""
        self.events = list(events)
        self.edited = set()
        edited = self.edited
        self.clear()
        self._leaves.clear()
        self._errors.clear()
        groups: dict[tuple[str, str], list[int]] = defaultdict(list)
        for index, event in enumerate(events):
            groups[(_action_name(event), event_source(event, root))].append(index)

        def order(key: tuple[str, str]) -> tuple[int, int, str]:
            action, source = key
            rank = ACTION_ORDER.index(action) if action in ACTION_ORDER else len(ACTION_ORDER)
            folder = SOURCE_ORDER.index(source) if source in SOURCE_ORDER else len(SOURCE_ORDER)
            return rank, folder, source

        if errors:
            branch = self.root.add(f"⚠ {len(errors)} event file(s) not loaded", expand=True)
            for message in errors:
                self._errors[branch.add_leaf(Text(printable(message))).id] = message
        for key in sorted(groups, key=order):
            action, source = key
            branch = self.root.add(Text(printable(f"{action} · {source}")), expand=True)
            for index in groups[key]:
                label = short_name(events[index]) + (" *" if index in edited else "")
                self._leaves[index] = branch.add_leaf(Text(printable(label)), data=index)
        if not events:
            self.root.add_leaf("No events found (sample_events/, sam-tests/, inputs/)")

    def show_runs(self, runs: list[RunRecord], problems: list[str] | None = None) -> None:
        """A saved session: one leaf per run, in the order they ran; leaf data = run index."""
        self.clear()
        self._leaves.clear()
        if problems:
            branch = self.root.add(f"⚠ {len(problems)} problem(s) reading it", expand=True)
            for message in problems:
                branch.add_leaf(Text(printable(message)))
        branch = self.root.add(f"Runs ({len(runs)})", expand=True)
        for index, run in enumerate(runs):
            status = run.final_status or (run.end_reason.value if run.end_reason else "cut short")
            steps = len(run.steps)
            label = (
                f"{index + 1}. {run.event_name.rsplit('/', 1)[-1]} {run.action.value} "
                f"{status} ({steps} step{'s' if steps != 1 else ''})"
            )
            self._leaves[index] = branch.add_leaf(Text(printable(label)), data=index)
        if not runs:
            branch.add_leaf("No runs in this session")

    def replace(self, index: int, event: EventSpec, *, edited: bool) -> None:
        """The event at ``index`` is now ``event``: an edit of this session, or the file again."""
        self.events[index] = event
        if edited:
            self.edited.add(index)
        else:
            self.edited.discard(index)
        self.mark_edited(index, event, edited=edited)

    def mark_edited(self, index: int, event: EventSpec, *, edited: bool = True) -> None:
        """The leaf's ``*`` says the session runs an edit, not the file."""
        node = self._leaves.get(index)
        if node is not None:
            node.set_label(Text(printable(short_name(event) + (" *" if edited else ""))))

    def error_of(self, node: TreeNode[int]) -> str | None:
        """The load error a leaf of the "not loaded" branch stands for."""
        return self._errors.get(node.id)

    def action_run_cursor(self) -> None:
        node = self.cursor_node
        if node is not None and node.data is not None:
            self.post_message(self.RunRequested(node.data))
        elif node is not None:
            node.toggle()

    def first_index(self) -> int | None:
        """The event shown first in the tree (groups are ordered by action, then folder)."""
        for branch in self.root.children:
            for leaf in branch.children:
                if leaf.data is not None:
                    return leaf.data
        return None

    def select_index(self, index: int) -> None:
        """Put the cursor on the event's leaf."""
        node = self._leaves.get(index)
        if node is None:
            return
        # A tree just filled numbers its lines lazily: reading last_line numbers them, so the
        # node's line is known (else the cursor would land on line 0, a group header).
        if self.last_line >= 0 and node.line >= 0:
            self.move_cursor(node)
