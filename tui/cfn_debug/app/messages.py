"""The dashboard's messages. Two kinds:

* What workers tell the UI, posted to the screen that runs the worker (the App's own workers
  post to the App, which routes to the main screen): the workspace opened or failed, a saved
  session was read, one message per outcome of the engine's stream (``EngineMessage``), a
  chain or the watch ended, an export was written; on the scenarios screen, one message per
  outcome of the scenario stream (``ScenarioMessage``; a scenario's chain events are the
  engine's ``Chain*`` messages) and the end of its run.
* What a widget tells its screen (``Timeline.Selected``, ``EventsPanel.Shown``, …): defined
  beside the widget. The screen tells its widgets what to show by their methods and
  attributes (attributes down, messages up).

None of them bubbles: a message routed to a screen stops there. The dataclass messages keep
Textual's identity equality and repr (``eq=False, repr=False``): a message is an event, not a
value, and the generated methods would double what the classes cost at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from cfn_debug import records, scenarios, watch
    from cfn_debug.endpoint.debugchannel import DebugEvent, DebugSession
    from cfn_debug.journal.session import Session
    from cfn_debug.workspace import Workspace


class Routed(Message, bubble=False):
    """A message that stops where it is posted (the App routes to the screen that owns the work)."""

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


@dataclass(repr=False, eq=False)
class EngineMessage(Routed):
    """One event of the engine's stream, as it arrived."""

    generation: int | None


@dataclass(repr=False, eq=False)
class ChainRunStarted(EngineMessage):
    """The chain started: its record, with no steps yet."""

    event: records.RunStarted


@dataclass(repr=False, eq=False)
class ChainInvoking(EngineMessage):
    """A request went to the handler; it is in flight."""

    event: records.InvocationStarted


@dataclass(repr=False, eq=False)
class ChainStepCompleted(EngineMessage):
    """The handler answered: one more step."""

    event: records.StepCompleted


@dataclass(repr=False, eq=False)
class ChainDelaying(EngineMessage):
    """The chain waits out the handler's callbackDelaySeconds."""

    event: records.DelayStarted


@dataclass(repr=False, eq=False)
class ChainAwaiting(EngineMessage):
    """Step mode: the chain waits for the user to send the next invocation."""

    event: records.AwaitingStep


@dataclass(repr=False, eq=False)
class ChainRunEnded(EngineMessage):
    """The chain ended: its complete record."""

    event: records.RunEnded


@dataclass(repr=False, eq=False)
class RunCompared(EngineMessage):
    """A run's findings against the previous run of its event."""

    event: watch.Comparison


@dataclass(repr=False, eq=False)
class WatchReadied(EngineMessage):
    """Watch mode picks up saves from now."""

    event: watch.WatchReady


@dataclass(repr=False, eq=False)
class SaveDetected(EngineMessage):
    """Saves that matter arrived (a re-run follows, after the build if any)."""

    event: watch.ChangeDetected


@dataclass(repr=False, eq=False)
class BuildBegan(EngineMessage):
    event: watch.BuildStarted


@dataclass(repr=False, eq=False)
class BuildEnded(EngineMessage):
    event: watch.BuildFinished


@dataclass(repr=False, eq=False)
class WatchProblemFound(EngineMessage):
    """Something to fix before a re-run can happen (a broken event or schema)."""

    event: watch.WatchProblem


@dataclass(repr=False, eq=False)
class RerunBegan(EngineMessage):
    """A save re-runs an event: the dashboard's run ``generation`` from now."""

    event: watch.RerunStarted


# --- the scenario stream: one message per outcome, posted to the scenarios screen ---------------
# ``generation`` names the screen's run of the scenarios the event belongs to: the screen drops a
# late event of a run it replaced. A scenario's chain events travel as the ``Chain*`` messages.


@dataclass(repr=False, eq=False)
class ScenarioMessage(Routed):
    """One event of the scenario stream, as it arrived."""

    generation: int


@dataclass(repr=False, eq=False)
class ScenarioBegan(ScenarioMessage):
    """A scenario starts to play (it is ``index`` of the ``total`` of this run)."""

    event: scenarios.ScenarioStarted


@dataclass(repr=False, eq=False)
class ScenarioActionBegan(ScenarioMessage):
    """A chain of the scenario is about to run; its ``Chain*`` messages follow."""

    event: scenarios.ActionStarted


@dataclass(repr=False, eq=False)
class ScenarioJudged(ScenarioMessage):
    """The scenario reached a verdict."""

    event: scenarios.VerdictReached


@dataclass(repr=False, eq=False)
class ScenarioNoted(ScenarioMessage):
    """Something the scenario says that is no verdict (cleanup, a skip, a block)."""

    event: scenarios.ScenarioNote


@dataclass(repr=False, eq=False)
class ScenarioFinished(ScenarioMessage):
    """The scenario ended: its result."""

    event: scenarios.ScenarioEnded


@dataclass(repr=False, eq=False)
class ScenariosFailed(Routed):
    """The scenario run stopped on an error (the engine's, or a bug: its type and text)."""

    generation: int
    error: str


@dataclass(repr=False, eq=False)
class ScenariosDone(Routed):
    """The scenario worker returned (after the last scenario, an error or a cancel)."""

    generation: int


@dataclass(repr=False, eq=False)
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


class DebuggerEvent(Routed):
    """One event of a worker's pdb, posted from the debug channel's threads (``engine.PanelFeed``)
    for the main screen's Debugger panel."""

    def __init__(self, session: DebugSession, event: DebugEvent) -> None:
        super().__init__()
        self.session = session
        self.event = event
