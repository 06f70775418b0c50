"""The dashboard's messages. Two kinds:

* What workers tell the UI, posted to the screen that runs the worker (the App's own workers
  post to the App, which routes to the main screen): the workspace opened or failed, a saved
  session was read, one message per outcome of the engine's stream (``EngineMessage``), a
  chain or the watch ended, an export was written.
* What the main screen tells its widgets (posted to each widget, handled by its ``on_...``):
  a run is shown, a step was added, the run ended, the selected step, a line for the status,
  the theme's palette. Widgets own their state and update from these; nobody calls into them.

None of them bubbles: a message routed to a screen or a widget stops there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from cfn_debug import records, watch
    from cfn_debug.app.render import Palette
    from cfn_debug.app.runview import RunView
    from cfn_debug.app.widgets.run_status import Countdown, InFlight, Prompt
    from cfn_debug.events import EventSpec
    from cfn_debug.journal.session import Session
    from cfn_debug.records import RunRecord, Step
    from cfn_debug.workspace import Workspace


class Routed(Message, bubble=False):
    """A message that stops where it is posted (the App routes; screens fan out to widgets)."""

    def __init_subclass__(cls, bubble: bool | None = False, **kwargs: Any) -> None:
        super().__init_subclass__(bubble=bubble, **kwargs)


# --- from workers -------------------------------------------------------------------------------


class WorkspaceReady(Routed):
    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace


class WorkspaceFailed(Routed):
    def __init__(self, error: str, hint: str) -> None:
        super().__init__()
        self.error = error
        self.hint = hint


# --- the engine's stream: one message per outcome, posted to the screen that runs the worker --
# ``generation`` names the dashboard run the event belongs to (None for the watcher's own
# events): a screen drops a late event of a run it no longer shows.


@dataclass
class EngineMessage(Routed):
    """One event of the engine's stream, as it arrived."""

    generation: int | None


@dataclass
class ChainRunStarted(EngineMessage):
    """The chain started: its record, with no steps yet."""

    event: records.RunStarted


@dataclass
class ChainInvoking(EngineMessage):
    """A request went to the handler; it is in flight."""

    event: records.InvocationStarted


@dataclass
class ChainStepCompleted(EngineMessage):
    """The handler answered: one more step."""

    event: records.StepCompleted


@dataclass
class ChainDelaying(EngineMessage):
    """The chain waits out the handler's callbackDelaySeconds."""

    event: records.DelayStarted


@dataclass
class ChainAwaiting(EngineMessage):
    """Step mode: the chain waits for the user to send the next invocation."""

    event: records.AwaitingStep


@dataclass
class ChainRunEnded(EngineMessage):
    """The chain ended: its complete record."""

    event: records.RunEnded


@dataclass
class RunCompared(EngineMessage):
    """A run's findings against the previous run of its event."""

    event: watch.Comparison


@dataclass
class WatchReadied(EngineMessage):
    """Watch mode picks up saves from now."""

    event: watch.WatchReady


@dataclass
class SaveDetected(EngineMessage):
    """Saves that matter arrived (a re-run follows, after the build if any)."""

    event: watch.ChangeDetected


@dataclass
class BuildBegan(EngineMessage):
    event: watch.BuildStarted


@dataclass
class BuildEnded(EngineMessage):
    event: watch.BuildFinished


@dataclass
class WatchProblemFound(EngineMessage):
    """Something to fix before a re-run can happen (a broken event or schema)."""

    event: watch.WatchProblem


@dataclass
class RerunBegan(EngineMessage):
    """A save re-runs an event: the dashboard's run ``generation`` from now."""

    event: watch.RerunStarted


@dataclass
class JournalStopped(Routed):
    """The session journal stopped (a full disk): said once, the runs go on."""

    text: str


class WatchStopped(Routed):
    """The watch worker ended on an error (watch mode is off again)."""

    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class RunFailed(Routed):
    """The chain could not start or stopped with an error the engine raised."""

    def __init__(self, generation: int, error: str, hint: str) -> None:
        super().__init__()
        self.generation = generation
        self.error = error
        self.hint = hint


class RunFinished(Routed):
    """The chain worker returned (after RunEnded or RunFailed, or when cancelled)."""

    def __init__(self, generation: int) -> None:
        super().__init__()
        self.generation = generation


class SessionLoaded(Routed):
    """`cfn-debug open`: the saved session was read."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session


class ExportFinished(Routed):
    """An export was written to ``path`` (or failed with ``error``)."""

    def __init__(self, fmt: str, path: Path, error: str | None = None) -> None:
        super().__init__()
        self.fmt = fmt
        self.path = path
        self.error = error


# --- from the main screen to its widgets ----------------------------------------------------------


class RunStarted(Routed):
    """A run takes the screen: the timeline empties, the detail shows nothing yet."""

    def __init__(self, view: RunView) -> None:
        super().__init__()
        self.view = view


class StepAdded(Routed):
    """The engine completed ``step`` of the run shown (``view.steps`` already holds it)."""

    def __init__(self, view: RunView, step: Step) -> None:
        super().__init__()
        self.view = view
        self.step = step


class RunEnded(Routed):
    """The run shown ended: ``view.run`` is its record, ``view.steps`` every step; the cursor
    goes to ``landing`` (the first MUST step, else the last) unless the user moved it."""

    def __init__(self, view: RunView, landing: int) -> None:
        super().__init__()
        self.view = view
        self.landing = landing


class RunUpdated(Routed):
    """Something about the run shown changed besides its steps: its record arrived, its
    comparison with the previous run, the Changes section (a save, a build)."""

    def __init__(self, view: RunView) -> None:
        super().__init__()
        self.view = view


class StepSelected(Routed):
    """The timeline's cursor is on row ``row`` of ``view`` (-1: no row)."""

    def __init__(self, view: RunView, row: int) -> None:
        super().__init__()
        self.view = view
        self.row = row


class StatusChanged(Routed):
    """What the status line shows now: a gauge, a countdown, a prompt, or nothing."""

    def __init__(self, state: InFlight | Countdown | Prompt | None) -> None:
        super().__init__()
        self.state = state


class PaletteChanged(Routed):
    """The theme changed: redraw with ``palette``."""

    def __init__(self, palette: Palette) -> None:
        super().__init__()
        self.palette = palette


class EventsLoaded(Routed):
    """The project's events as the files have them (this session's edits dropped)."""

    def __init__(
        self,
        events: list[EventSpec],
        root: Path | None,
        errors: list[str],
        *,
        keep_cursor: bool = False,
    ) -> None:
        super().__init__()
        self.events = events
        self.root = root
        self.errors = errors
        #: A reload (watch mode): the re-run puts the cursor on its event.
        self.keep_cursor = keep_cursor


class RunsLoaded(Routed):
    """A saved session's runs, shown in place of the events."""

    def __init__(self, runs: list[RunRecord], problems: list[str]) -> None:
        super().__init__()
        self.runs = runs
        self.problems = problems


class EventReplaced(Routed):
    """The event at ``index`` is now ``event``: an edit of this session, or the file again."""

    def __init__(self, index: int, event: EventSpec, *, edited: bool) -> None:
        super().__init__()
        self.index = index
        self.event = event
        self.edited = edited


class EventChosen(Routed):
    """Put the events tree's cursor on the event (or saved run) at ``index``."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index


class Progress(Routed):
    """Long work the engine reports (the setup stack, the environment build, generated
    inputs): ``label``, ``done`` of ``total`` (None: unknown), ``finished`` on the last."""

    def __init__(
        self, label: str, done: int, total: int | None = None, finished: bool = False
    ) -> None:
        super().__init__()
        self.label = label
        self.done = done
        self.total = total
        self.finished = finished
