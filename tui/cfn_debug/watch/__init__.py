"""Watch mode: re-run events when the handler sources, the schema or an event file is saved.

The engine side only (no textual): ``Watcher`` watches the files with watchfiles, classifies each
debounced batch, cancels a chain in flight (and waits for its end), optionally runs a build command,
reloads the schema, replaces the embedded endpoint's warm workers and runs the affected events
again, comparing each run's findings with the previous run of the same event.

The package: ``reports`` (the event types and the comparison of runs), ``plan`` (what is
watched, how a path is classified), ``watcher`` (the ``Watcher`` and the build).

Everything it does reaches the consumer as one stream of typed events through ``on_event``: the
watch events below and the chains' own ``records.ChainEvent``s.

    watcher = Watcher(workspace, ChainOptions(), on_event=handle, build="sam build")
    await watcher.watch(initial=[event])  # until watcher.stop() or cancellation

Decisions:
- every run sends ``Workspace.request_for(event)``: for the demo (the bundled project or a copy)
  a fresh clientRequestToken and a create's Name with a fresh suffix, unless the event pins them,
  so the demo's create runs again on every save instead of answering AlreadyExists.
- a re-run is a new request: every re-run gets a fresh clientRequestToken (the first run of any
  other project keeps the event's own, as ``cfn-debug run`` does), so an idempotent create
  handler really runs again instead of replaying the resource the previous run created. A handler
  that enforces a unique natural key then answers AlreadyExists, the truth about that request.
- the handler sources are ``<project>/src`` when it exists (a `cfn init` project's layout; build
  output such as ``build/`` or ``.aws-sam/`` is never watched, so a ``--build`` cannot trigger
  itself), else each function's code directory; for a runtime that builds its code, also what it
  builds from (a Go module's root, its output bin/ excepted) and its build files (tsconfig.json,
  package.json, pom.xml: ``Runtime.build_files``). A change in a hidden directory below the
  sources (``.aws-sam/`` in a Go module's root) is none.
- a source or schema change re-runs the targets (the events of the last full run, or what
  ``set_targets`` named); an event file change re-runs that event only.
"""

from __future__ import annotations

from cfn_debug.watch.plan import (
    EVENT,
    SCHEMA,
    SOURCE,
    WatchPlan,
    event_key,
    plan_for,
    with_fresh_token,
)
from cfn_debug.watch.reports import (
    BuildFinished,
    BuildStarted,
    ChangeDetected,
    Comparison,
    OnEvent,
    RerunStarted,
    WatchEvent,
    WatchProblem,
    WatchReady,
    compare_runs,
    finding_key,
    same_request,
)
from cfn_debug.watch.watcher import (
    BUILD_OUTPUT_LIMIT,
    DEBOUNCE_MS,
    STEP_MS,
    Watcher,
    run_build,
)

__all__ = [
    "BUILD_OUTPUT_LIMIT",
    "DEBOUNCE_MS",
    "EVENT",
    "SCHEMA",
    "SOURCE",
    "STEP_MS",
    "BuildFinished",
    "BuildStarted",
    "ChangeDetected",
    "Comparison",
    "OnEvent",
    "RerunStarted",
    "WatchEvent",
    "WatchPlan",
    "WatchProblem",
    "WatchReady",
    "Watcher",
    "compare_runs",
    "event_key",
    "finding_key",
    "plan_for",
    "run_build",
    "same_request",
    "with_fresh_token",
]
