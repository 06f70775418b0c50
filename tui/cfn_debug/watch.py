"""Watch mode: re-run events when the handler sources, the schema or an event file is saved.

The engine side only (no textual): ``Watcher`` watches the files with watchfiles, classifies each
debounced batch, cancels a chain in flight (and waits for its end), optionally runs a build command,
reloads the schema, replaces the embedded endpoint's warm workers and runs the affected events
again, comparing each run's findings with the previous run of the same event.

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
  itself), else each function's code directory.
- a source or schema change re-runs the targets (the events of the last full run, or what
  ``set_targets`` named); an event file change re-runs that event only.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import os
import re
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfn_debug.chain import ChainControl, ChainOptions
from cfn_debug.errors import CfnDebugError
from cfn_debug.events import EventSpec, load_event
from cfn_debug.records import ChainEvent, EndReason, Finding, RunEnded, RunRecord
from cfn_debug.text.redact import redact_text

if TYPE_CHECKING:
    from cfn_debug.workspace import Workspace

#: watchfiles' grouping: a batch is yielded once no change arrived for STEP_MS (and at the latest
#: DEBOUNCE_MS after its first change). bench/watch.py measures the save-to-rerun latency.
DEBOUNCE_MS = 400
STEP_MS = 30
#: Build output kept for display (the tail, when longer).
BUILD_OUTPUT_LIMIT = 20_000

SOURCE, SCHEMA, EVENT = "source", "schema", "event"


# --- what the watcher reports ----------------------------------------------------------------


@dataclass(frozen=True)
class WatchReady:
    """The watchers are registered and the first runs are done: saves are picked up from now."""

    paths: tuple[str, ...]  # what is watched (directories and files)


@dataclass(frozen=True)
class ChangeDetected:
    """A debounced batch of saves that matter, by kind."""

    paths: tuple[str, ...]  # every changed path, sorted
    kinds: frozenset[str]  # SOURCE, SCHEMA, EVENT
    detected_monotonic: float  # time.monotonic() when the batch arrived


@dataclass(frozen=True)
class BuildStarted:
    command: str


@dataclass(frozen=True)
class BuildFinished:
    command: str
    ok: bool
    returncode: int | None  # None when it could not be started
    output: str  # stdout and stderr interleaved, credentials redacted, the tail when very long
    duration_s: float


@dataclass(frozen=True)
class WatchProblem:
    """Something the user has to fix before a re-run can happen (a broken event or schema)."""

    message: str


@dataclass(frozen=True)
class RerunStarted:
    event_name: str
    event_path: str | None
    reason: str  # SOURCE, SCHEMA or EVENT: why this event runs again
    started_monotonic: float


@dataclass(frozen=True)
class Comparison:
    """A run's findings against the previous complete run of the same event, keyed by
    (rule_id, pointer). ``fixed`` and ``gone`` hold the previous run's findings, the others this
    run's. A finding is ``fixed`` only when the handler's answer changed for the same request
    and its rule no longer fires at all; one that went away otherwise (the request changed, the
    answer did not, or the rule still fires elsewhere) is ``gone``: no fix is claimed."""

    event_name: str
    run_id: str
    previous_run_id: str
    fixed: tuple[Finding, ...]
    new: tuple[Finding, ...]
    still: tuple[Finding, ...]
    gone: tuple[Finding, ...] = ()
    #: why the findings in ``gone`` are not called fixed
    gone_because: str = ""


WatchEvent = (
    WatchReady
    | ChangeDetected
    | BuildStarted
    | BuildFinished
    | WatchProblem
    | RerunStarted
    | Comparison
    | ChainEvent
)
OnEvent = Callable[[WatchEvent], "Awaitable[None] | None"]


# --- pure helpers ------------------------------------------------------------------------------


def finding_key(finding: Finding) -> tuple[str, str | None]:
    return finding.rule_id, finding.pointer


def _by_key(findings: Iterable[Finding]) -> dict[tuple[str, str | None], Finding]:
    keyed: dict[tuple[str, str | None], Finding] = {}
    for finding in findings:
        keyed.setdefault(finding_key(finding), finding)
    return keyed


#: what changes between two runs of one event file and is no change of the request: the token
#: (and the bearer token of a HandlerRequest), and the suffix a demo create's Name gets per run
_VOLATILE_KEYS = frozenset({"clientRequestToken", "bearerToken", "credentials"})
_RUN_SUFFIX = re.compile(r"-[0-9a-f]{6}$")


def _steady(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _steady(v) for k, v in value.items() if k not in _VOLATILE_KEYS}
    if isinstance(value, list):
        return [_steady(v) for v in value]
    if isinstance(value, str):
        return _RUN_SUFFIX.sub("-", value)
    return value


def _own_steps(run: RunRecord) -> list[Any]:
    return [step for step in run.steps if step.origin is None]


def same_request(previous: RunRecord, current: RunRecord) -> bool:
    """Whether both runs sent the same first request (token and per-run suffixes aside)."""
    first, second = _own_steps(previous), _own_steps(current)
    if not first or not second:
        return not first and not second
    try:
        return bool(_steady(first[0].request) == _steady(second[0].request))
    except RecursionError:
        return False


def _answers(run: RunRecord) -> list[Any]:
    return [(s.result.kind.value, s.result.progress, s.result.error_type) for s in _own_steps(run)]


def compare_runs(previous: RunRecord, current: RunRecord) -> Comparison:
    """Fixed, new, still-failing and gone findings of ``current`` against ``previous``."""
    before, after = _by_key(previous.findings), _by_key(current.findings)
    away = [f for k, f in before.items() if k not in after]
    firing = {rule_id for rule_id, _ in after}
    because = ""
    if away:
        if not same_request(previous, current):
            because = "the request changed"
        else:
            try:
                unchanged = _answers(previous) == _answers(current)
            except RecursionError:
                unchanged = False
            if unchanged:
                because = "the handler's answer did not change"
    fixed = tuple(f for f in away if not because and f.rule_id not in firing)
    return Comparison(
        event_name=current.event_name,
        run_id=current.run_id,
        previous_run_id=previous.run_id,
        fixed=fixed,
        new=tuple(f for k, f in after.items() if k not in before),
        still=tuple(f for k, f in after.items() if k in before),
        gone=tuple(f for f in away if f not in fixed),
        gone_because=because or "its rule still fires elsewhere",
    )


def event_key(event: EventSpec) -> str:
    return _real(event.path) if event.path is not None else event.name


def with_fresh_token(event: EventSpec) -> EventSpec:
    """The same event as a new request: a new clientRequestToken."""
    norm = dataclasses.replace(event.normalized, client_request_token=str(uuid.uuid4()))
    return dataclasses.replace(event, normalized=norm)


def _real(path: Path | str) -> str:
    return os.path.realpath(path)


def _under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


@dataclass
class WatchPlan:
    """What to watch, and how a changed path is classified."""

    source_dirs: list[str] = field(default_factory=list)
    schema_file: str | None = None
    event_dirs: list[str] = field(default_factory=list)  # any *.json in them is an event
    event_files: list[str] = field(default_factory=list)  # exactly these (headless)

    def classify(self, path: str) -> str | None:
        if self.schema_file is not None and path == self.schema_file:
            return SCHEMA
        if path in self.event_files:
            return EVENT
        if path.endswith(".json") and any(os.path.dirname(path) == d for d in self.event_dirs):
            return EVENT
        if any(_under(path, d) for d in self.source_dirs):
            return SOURCE
        return None

    def recursive_roots(self) -> list[str]:
        return _outermost(self.source_dirs)

    def flat_roots(self) -> list[str]:
        """Directories watched without recursion: the schema's and the events'."""
        dirs = [*self.event_dirs, *(os.path.dirname(f) for f in self.event_files)]
        if self.schema_file is not None:
            dirs.append(os.path.dirname(self.schema_file))
        return sorted({d for d in dirs if os.path.isdir(d)})


def _outermost(dirs: Iterable[str]) -> list[str]:
    result: list[str] = []
    for directory in sorted(set(dirs), key=len):
        if os.path.isdir(directory) and not any(_under(directory, kept) for kept in result):
            result.append(directory)
    return sorted(result)


def plan_for(workspace: Workspace, event_files: Sequence[Path] | None = None) -> WatchPlan:
    """The plan for a workspace: its handler sources, its schema, and either the given event
    files or (``None``) every event directory of the project."""
    project = workspace.project
    root = Path(project.root)
    src = root / "src"
    if src.is_dir():
        sources = [_real(src)]
    else:
        sources = [_real(spec.code_dir) for spec in project.functions.values()]
    sources += _built_sources(project.functions, root)
    schema = workspace.schema.path if workspace.schema is not None else project.schema_path
    plan = WatchPlan(source_dirs=sources, schema_file=_real(schema) if schema else None)
    if event_files is not None:
        plan.event_files = sorted({_real(p) for p in event_files})
    else:
        dirs = {_real(e.path.parent) for e in project.events if e.path is not None}
        plan.event_dirs = sorted(dirs)
    return plan


def _built_sources(functions: dict[str, Any], root: Path) -> list[str]:
    """The sources of the functions whose runtime builds their code (a Go module's root: its
    CodeUri is the build output bin/), as each runtime names them; none for Python."""
    from cfn_debug.endpoint.runtimes import RuntimeOptions, project_language, runtime_for

    language = project_language(root)
    found: list[str] = []
    for spec in functions.values():
        try:
            runtime = runtime_for(spec, root, RuntimeOptions(), language=language)
        except CfnDebugError:
            continue  # the endpoint says why when it starts
        if runtime.family != "python":
            found.append(_real(runtime.source_dir()))
    return found


async def run_build(command: str, cwd: Path) -> BuildFinished:
    """Run ``command`` in a shell in ``cwd``; its output captured, never raised."""
    started = time.monotonic()
    try:
        process = await asyncio.create_subprocess_shell(
            command,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
    except OSError as error:
        return BuildFinished(command, False, None, str(error), time.monotonic() - started)
    try:
        raw, _ = await process.communicate()
    except asyncio.CancelledError:
        if process.returncode is None:
            process.kill()
            await process.wait()
        raise
    output = raw.decode("utf-8", errors="replace")
    if len(output) > BUILD_OUTPUT_LIMIT:
        output = "…" + output[-BUILD_OUTPUT_LIMIT:]
    code = process.returncode
    return BuildFinished(command, code == 0, code, redact_text(output), time.monotonic() - started)


# --- the watcher -------------------------------------------------------------------------------


@dataclass
class _Batch:
    paths: set[str] = field(default_factory=set)
    kinds: set[str] = field(default_factory=set)
    events: set[str] = field(default_factory=set)  # event files (real paths) that changed
    detected: float = 0.0

    def merge(self, other: _Batch) -> None:
        self.paths |= other.paths
        self.kinds |= other.kinds
        self.events |= other.events
        self.detected = self.detected or other.detected


class Watcher:
    """Watch a workspace's files and re-run its events; see the module docstring.

    ``event_files`` None watches every event of the project (the dashboard); a list watches just
    those files (``cfn-debug run --watch EVENT...``).
    """

    def __init__(
        self,
        workspace: Workspace,
        options: ChainOptions,
        *,
        on_event: OnEvent,
        build: str | None = None,
        event_files: Sequence[Path] | None = None,
        debounce_ms: int = DEBOUNCE_MS,
        step_ms: int = STEP_MS,
    ) -> None:
        self.workspace = workspace
        self.options = options
        self.on_event = on_event
        self.build = build
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self._event_files = list(event_files) if event_files is not None else None
        self.plan = plan_for(workspace, self._event_files)
        self.targets: list[EventSpec] = []
        self.previous: dict[str, RunRecord] = {}  # event_key -> last complete run
        self._known: dict[str, EventSpec] = {}  # real path -> event, for event-file changes
        self._pending: _Batch | None = None
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()
        self._control: ChainControl | None = None
        self._running = False

    # --- steering (call from the loop the watcher runs in) ---

    @property
    def control(self) -> ChainControl | None:
        """The ChainControl of the chain in flight (skip a delay, advance in step mode)."""
        return self._control

    def set_targets(self, events: Sequence[EventSpec]) -> None:
        """What a source or schema change re-runs (the dashboard: the selected event)."""
        self.targets = list(events)
        for event in events:
            if event.path is not None:
                self._known[_real(event.path)] = event

    def note_run(self, run: RunRecord) -> Comparison | None:
        """Remember a complete run (one the consumer ran itself, too) as the previous run of its
        event; returns its comparison with the one before, if any."""
        if run.end_reason in (EndReason.CANCELLED, None) or not run.steps:
            return None
        key = _real(run.event_path) if run.event_path else run.event_name
        before = self.previous.get(key)
        self.previous[key] = run
        return compare_runs(before, run) if before is not None else None

    def stop(self) -> None:
        """End ``watch``: the chain in flight is cancelled, the watchers stop."""
        self._stop.set()
        self._wake.set()
        if self._control is not None:
            self._control.cancel()

    # --- running ---

    async def _emit(self, event: WatchEvent) -> None:
        result = self.on_event(event)
        if inspect.isawaitable(result):
            await result

    async def run_events(self, events: Sequence[EventSpec], reason: str | None = None) -> None:
        """Run ``events`` one after the other (a re-run when ``reason`` is given), each compared
        with its previous run. A change arriving meanwhile cancels the rest."""
        for event in events:
            if self._stop.is_set() or (reason is not None and self._pending is not None):
                return
            spec = self.workspace.request_for(event)
            if reason is not None and spec is event:
                spec = with_fresh_token(event)
            if reason is not None:
                await self._emit(
                    RerunStarted(
                        event.name,
                        str(event.path) if event.path else None,
                        reason,
                        time.monotonic(),
                    )
                )
            control = ChainControl()
            self._control = control
            try:
                stream = self.workspace.run(spec, self.options, control, as_written=True)
                async for chain_event in stream:
                    await self._emit(chain_event)
                    if isinstance(chain_event, RunEnded):
                        comparison = self.note_run(chain_event.run)
                        if comparison is not None:
                            await self._emit(comparison)
            finally:
                self._control = None

    async def watch(self, initial: Sequence[EventSpec] = ()) -> None:
        """Run ``initial`` (they become the targets), then re-run on every save until ``stop()``
        or cancellation."""
        from watchfiles import awatch

        if initial:
            self.set_targets(initial)
        for event in self.workspace.events:
            if event.path is not None:
                self._known.setdefault(_real(event.path), event)
        stop = self._stop
        watchers: list[asyncio.Task[None]] = []
        for roots, recursive in (
            (self.plan.recursive_roots(), True),
            (self.plan.flat_roots(), False),
        ):
            if roots:
                stream = awatch(
                    *roots,
                    debounce=self.debounce_ms,
                    step=self.step_ms,
                    stop_event=stop,
                    recursive=recursive,
                )
                watchers.append(asyncio.ensure_future(self._consume(stream)))
        # One turn of the loop: each stream's first step registers its inotify watches.
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        try:
            if initial:
                await self.run_events(initial)
            await self._emit(
                WatchReady(tuple([*self.plan.recursive_roots(), *self.plan.flat_roots()]))
            )
            await self._loop(watchers)
        finally:
            stop.set()
            for task in watchers:
                task.cancel()
            await asyncio.gather(*watchers, return_exceptions=True)

    async def _consume(self, stream: Any) -> None:
        async for changes in stream:
            batch = _Batch(detected=time.monotonic())
            for _change, raw in changes:
                path = _real(raw)
                kind = self.plan.classify(path)
                if kind is None:
                    continue
                batch.paths.add(path)
                batch.kinds.add(kind)
                if kind == EVENT:
                    batch.events.add(path)
            if not batch.kinds:
                continue
            if self._pending is None:
                self._pending = batch
            else:
                self._pending.merge(batch)
            if self._control is not None:
                self._control.cancel()  # the run loop awaits the chain's end, then re-runs
            self._wake.set()

    async def _loop(self, watchers: list[asyncio.Task[None]]) -> None:
        while not self._stop.is_set():
            await self._wake.wait()
            self._wake.clear()
            for task in watchers:
                if task.done() and not task.cancelled() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
            batch, self._pending = self._pending, None
            if batch is None or self._stop.is_set():
                continue
            await self._handle(batch)

    async def _handle(self, batch: _Batch) -> None:
        await self._emit(
            ChangeDetected(tuple(sorted(batch.paths)), frozenset(batch.kinds), batch.detected)
        )
        if self.build:
            await self._emit(BuildStarted(self.build))
            finished = await run_build(self.build, Path(self.workspace.project.root))
            await self._emit(finished)
            if not finished.ok:
                return
        try:
            if SCHEMA in batch.kinds or (EVENT in batch.kinds and self._event_files is None):
                self.workspace.reload()
                for problem in self._refresh_known(batch.events):
                    await self._emit(WatchProblem(problem))
        except CfnDebugError as error:
            await self._emit(WatchProblem(str(error)))
            return
        if SOURCE in batch.kinds and self.workspace.embedded is not None:
            # The next worker starts importing the saved code while the re-run is prepared.
            self.workspace.embedded.restart_workers(prewarm=True)
        reruns: list[tuple[EventSpec, str]] = []
        if batch.kinds & {SOURCE, SCHEMA}:
            reason = SCHEMA if SCHEMA in batch.kinds else SOURCE
            fresh_targets = []
            for event in self.targets:
                loaded = await self._reload_event(event)
                if loaded is not None:
                    fresh_targets.append(loaded)
            self.targets = fresh_targets
            reruns.extend((event, reason) for event in fresh_targets)
        for path in sorted(batch.events):
            known = self._known.get(path)
            if known is None or any(event_key(e) == path for e, _ in reruns):
                continue
            loaded = await self._reload_event(known)
            if loaded is not None:
                reruns.append((loaded, EVENT))
        for event, reason in reruns:
            if self._pending is not None or self._stop.is_set():
                return
            await self.run_events([event], reason)

    def _refresh_known(self, changed: set[str]) -> list[str]:
        """Take the reloaded project's events; the changed ones that no longer load are
        forgotten (not re-run stale) and returned as problems."""
        for event in self.workspace.events:
            if event.path is not None:
                self._known[_real(event.path)] = event
        problems = []
        for error in self.workspace.project.event_errors:
            path = _real(error.path) if error.path else None
            if path in changed:
                self._known.pop(path, None)
                problems.append(str(error))
        return problems

    async def _reload_event(self, event: EventSpec) -> EventSpec | None:
        """The event as its file now reads (the file is the truth after a save)."""
        if event.path is None:
            return event
        path = _real(event.path)
        hook = getattr(self.workspace, "hook", None)
        if hook is not None:  # a hook's event: one input file holds several (cfn_debug.hooks)
            from cfn_debug.hooks.project import reload_hook_event

            try:
                return reload_hook_event(event, hook.schema, self.workspace.project.exports)  # type: ignore[arg-type]
            except CfnDebugError as error:
                await self._emit(WatchProblem(str(error)))
                return None
        if self._event_files is None:
            known = self._known.get(path)
            if known is None:  # it no longer loads: reported when the project was reloaded
                return None
            fresh = known
        else:
            try:
                fresh = load_event(
                    Path(event.path), name=event.name, exports=self.workspace.project.exports
                )
            except CfnDebugError as error:
                await self._emit(WatchProblem(str(error)))
                return None
        self._known[path] = fresh
        for i, target in enumerate(self.targets):
            if event_key(target) == path:
                self.targets[i] = fresh
        return fresh
