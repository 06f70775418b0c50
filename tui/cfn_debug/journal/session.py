"""Sessions and the crash-safe journal.

A journal is JSON Lines, one line per event as it happens, flushed per line so a crash (or a
killed terminal) loses at most the line being written:

    {"type": "session", "version": ..., "created": ..., "project": ..., "endpoint": ...}
    {"type": "run_started", "run": {... no steps ...}, "project": ...}
    {"type": "step", "run_id": ..., "step": {...}}
    {"type": "run_ended", "run": {... no steps: they are on the step lines ...}}
    {"type": "scenario_ended", "scenario": {... cfn_debug.scenarios.summary ...}}

A run's ``project`` is that of the process that wrote it: a journal given twice with
``--journal`` for two projects exports each run under its own.

``load_journal`` rebuilds the RunRecords with every completed step; a run without its
``run_ended`` line comes back with ``end_reason`` None (interrupted). A torn last line is reported
in ``Session.problems``, not raised.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from cfn_debug import __version__
from cfn_debug.errors import JournalError
from cfn_debug.filesafe import read_bytes
from cfn_debug.journal.models import PLACES, ModelRefs, model_at, restore_models
from cfn_debug.journal.validation import check_run, check_step
from cfn_debug.locations import default_journal_path
from cfn_debug.records import (
    ChainEvent,
    RunEnded,
    RunRecord,
    RunStarted,
    Step,
    StepCompleted,
    StepEncodings,
)
from cfn_debug.text.jsonfast import exact
from cfn_debug.text.redact import redact, redacted_json_parts
from cfn_debug.text.samejson import same_json

#: 2: a step line may carry ``context_refs`` (a repeated callbackContext written once); format 1
#: journals load unchanged, and a reader of format 1 would drop those contexts, hence the bump.
#: 3: a step line may carry ``model_refs`` (a repeated resource model written once, see
#: cfn_debug.journal.models); older formats load unchanged, and a format 2 reader would drop them.
JOURNAL_FORMAT = 3


@dataclass
class Session:
    """The runs of a session and what it ran against."""

    runs: list[RunRecord] = field(default_factory=list)
    project: str | None = None
    endpoint: str | None = None
    version: str = __version__
    created: str | None = None
    path: Path | None = None
    problems: list[str] = field(default_factory=list)  # e.g. a torn last line, reported on load
    #: scenario results as plain data (``cfn_debug.scenarios.summary``), in the order they ended
    scenarios: list[dict[str, Any]] = field(default_factory=list)
    #: run id -> the project of the journal header it was written under (a reused journal)
    run_projects: dict[str, str | None] = field(default_factory=dict)

    def project_of(self, run_id: str) -> str | None:
        """The project ``run_id`` ran against (the session's, when the journal has one header)."""
        return self.run_projects.get(run_id, self.project)

    @property
    def projects(self) -> list[str]:
        """Every project the runs ran against, in order (more than one: a reused journal)."""
        found: list[str] = []
        for run in self.runs:
            project = self.project_of(run.run_id)
            if project is not None and project not in found:
                found.append(project)
        return found

    @property
    def meta(self) -> dict[str, Any]:
        projects = self.projects
        return {
            k: v
            for k, v in (
                ("project", "; ".join(projects) if len(projects) > 1 else self.project),
                ("endpoint", self.endpoint),
                ("version", self.version),
                ("created", self.created),
            )
            if v is not None
        }


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, default=str)


class Journal:
    """Append-only journal of a session; ``record`` every ChainEvent, ``close`` at the end.

    The file is created (with its parent directories) on the first line written. Lines are
    redacted and flushed as they are written; ``fsync=True`` also forces them to disk.
    """

    def __init__(
        self,
        path: Path | None = None,
        *,
        project: str | None = None,
        endpoint: str | None = None,
        fsync: bool = False,
    ) -> None:
        self.path = path if path is not None else default_journal_path()
        self.project = project
        self.endpoint = endpoint
        self._fsync = fsync
        self._fd: int | None = None
        self._closed = False
        # run id -> (step index, callbackContext) of the last context a step returned in full
        self._contexts: dict[str, tuple[int, Any]] = {}
        # the models recent steps wrote in full, for model_refs
        self._models = ModelRefs()

    def _open(self) -> int:
        if self._fd is None:
            if self._closed:
                raise JournalError("the journal is closed", path=self.path)
            try:
                self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                # Owner-only: the journal keeps writeOnly values (exports are made from it).
                # O_NONBLOCK: a FIFO put here is refused below, not waited on.
                descriptor = os.open(
                    self.path,
                    os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC | os.O_NONBLOCK,
                    0o600,
                )
            except OSError as exc:
                raise JournalError(f"cannot write: {exc.strerror}", path=self.path) from None
            try:
                info = os.fstat(descriptor)
                if not stat.S_ISREG(info.st_mode):
                    raise JournalError(
                        "expected a regular file for the journal (give --no-journal to keep none)",
                        path=self.path,
                    )
                if info.st_mode & 0o077 and info.st_uid == os.geteuid():
                    os.fchmod(descriptor, 0o600)  # an existing journal others could read
            except OSError as exc:
                os.close(descriptor)
                raise JournalError(f"cannot write: {exc.strerror}", path=self.path) from None
            except JournalError:
                os.close(descriptor)
                raise
            os.set_blocking(descriptor, True)
            self._fd = descriptor
            header = {
                "type": "session",
                "format": JOURNAL_FORMAT,
                "version": __version__,
                "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "project": self.project,
                "endpoint": self.endpoint,
            }
            self._write_line(_dumps(header), header=True)
        return self._fd

    def _write_line(self, line: str | bytes | list[bytes], *, header: bool = False) -> None:
        """Append one line under an exclusive lock, whole or not at all.

        The lock lets two processes append to one journal: neither cuts the other's line in
        progress as torn, and no two lines interleave. A write that fails (disk full, file too
        large) is cut back off, so the journal keeps every complete line and stays loadable.
        """
        descriptor = self._fd
        assert descriptor is not None
        # backslashreplace: a lone surrogate (only ever inside a JSON string) is written as its
        # JSON escape \udcff, so the line stays UTF-8 and loads back to the same string
        if isinstance(line, str):
            pieces = [line.encode("utf-8", "backslashreplace"), b"\n"]
        elif isinstance(line, bytes):
            pieces = [line, b"\n"]
        else:  # a large line in pieces: written by writev, never joined (a 10 MB copy less)
            pieces = [*line, b"\n"]
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        try:
            size = os.fstat(descriptor).st_size
            if header and size > 0:
                return  # appending to an existing journal: it has its header
            size = _cut_torn_tail(descriptor, size)
            try:
                _write_all(descriptor, pieces)
                if self._fsync:
                    os.fsync(descriptor)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.ftruncate(descriptor, size)
                raise JournalError(
                    f"cannot write: {exc.strerror}; the steps before this one are kept",
                    path=self.path,
                ) from None
        finally:
            fcntl.flock(descriptor, fcntl.LOCK_UN)

    def write(self, entry: dict[str, Any]) -> None:
        """Append one (already built) journal entry."""
        self._open()
        self._write_line(_dumps(entry))

    def record(self, event: ChainEvent) -> None:
        """Append the line for ``event``; events that change nothing durable are skipped."""
        if isinstance(event, StepCompleted):
            self._record_step(event.run_id, event.step, event.encodings)
        elif isinstance(event, RunStarted):
            if self.endpoint is None and self._fd is None:
                self.endpoint = event.run.endpoint
            entry = {"type": "run_started", "run": redact(_run_head(event.run))}
            if self.project is not None:  # a journal may be reused for another project
                entry["project"] = self.project
            self.write(entry)
        elif isinstance(event, RunEnded):
            self._contexts.pop(event.run.run_id, None)
            self._models.forget(event.run.run_id)
            self.write({"type": "run_ended", "run": redact(_run_head(event.run))})

    def _record_step(self, run_id: str, step: Step, known: StepEncodings | None) -> None:
        """Append ``step``'s line. ``known``: the encodings build_step made of its models (the
        StepCompleted's), written as they are instead of encoding the models again; None for a
        step made otherwise (a hook's, a replayed one)."""
        # what a later line may refer to is remembered only once this line is written
        saved = self._contexts.get(run_id), self._models.saved(run_id)
        try:
            entry = {"type": "step", "run_id": run_id, "step": _step_dict(step)}
            self._refer_to_repeated_context(run_id, step.index, entry)
            if known is not None:
                self._models.refer(run_id, step.index, entry, known.of)
            line = _entry_line(entry, step, known)
            self._open()
            self._write_line(line)
        except BaseException:
            if saved[0] is None:
                self._contexts.pop(run_id, None)
            else:
                self._contexts[run_id] = saved[0]
            self._models.restore(run_id, saved[1])
            raise

    def _refer_to_repeated_context(self, run_id: str, index: int, entry: dict[str, Any]) -> None:
        """Write a callbackContext that repeats the one a previous step returned as a reference
        to that step (``context_refs``), not again in full: a 5 MB context replayed 100 times
        costs the journal 5 MB, not 1 GB. ``load_journal`` puts the context back."""
        step = entry["step"]
        known = self._contexts.get(run_id)
        refs: dict[str, int] = {}
        request = step.get("request")
        if (
            known is not None
            and isinstance(request, dict)
            and _same_context(request.get("callbackContext"), known[1])
        ):
            step["request"] = {**request, "callbackContext": None}
            refs["request"] = known[0]
        progress = step["result"].get("progress")
        if isinstance(progress, dict) and isinstance(progress.get("callbackContext"), dict):
            returned = progress["callbackContext"]
            if known is not None and _same_context(returned, known[1]):
                step["result"] = {
                    **step["result"],
                    "progress": {**progress, "callbackContext": None},
                }
                refs["result"] = known[0]
            elif returned:
                self._contexts[run_id] = (index, returned)
        if refs:
            entry["context_refs"] = refs

    def close(self) -> None:
        self._closed = True
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


#: Below this size (bytes of orjson's encoding) a step line is written by ``json.dumps`` whole:
#: taking it apart (``redacted_json``) costs more than it saves.
_WHOLE_LINE_MAX = 16 * 1024


def _entry_line(
    entry: dict[str, Any], step: Step, known: StepEncodings | None
) -> str | bytes | list[bytes]:
    """``_dumps(redact(entry))`` in meaning. A small entry is redacted by a walk and encoded by
    orjson when that cannot differ (nothing orjson refuses, every float finite: orjson writes
    NaN and infinities as null), else by ``_dumps``; a large one by ``redacted_json_parts``,
    ``step``'s models' parts from ``known`` (build_step's encodings) where it has them."""
    if not _has_large_member(step, known):  # else encoding it whole to measure it is wasted
        raw = exact(entry)
        if raw is not None and len(raw) < _WHOLE_LINE_MAX:
            redacted = redact(entry)
            if redacted is not entry:  # a credential replaced: encode what is written
                raw = exact(redacted)
            if raw is not None and _finite(redacted):
                return raw
            return _dumps(redacted)
    # its models' members are encoded by orjson unless they may hold a credential (a 5 MB
    # model: ~10 ms instead of a redaction walk and json's ~100 ms); split_depth 5: entry,
    # step, request, request, model are taken apart, so the parts are the ones build_step
    # scanned (redact_large), found clean by bytes comparison (may_hold_secret remembers them)
    # the models' encodings build_step made (for the diffs and its secret scan) are reused
    return redacted_json_parts(
        entry, _dumps, split_depth=5, encode=known.of if known is not None else None
    )


def _finite(value: Any) -> bool:
    """Whether every float in ``value`` (dicts, lists, tuples; orjson encodes it, so it nests
    less than 256 deep) is finite: there orjson and ``json.dumps`` write the same numbers."""
    kind = type(value)
    if kind is dict:
        items: Any = value.values()
    elif kind is list or kind is tuple:
        items = value
    else:
        return kind is not float or value - value == 0.0  # NaN and infinities give NaN
    for item in items:
        kind = type(item)
        if kind is float:
            if item - item != 0.0:
                return False
        elif (kind is dict or kind is list or kind is tuple) and not _finite(item):
            return False
    return True


def _has_large_member(step: Step, known: StepEncodings | None) -> bool:
    """Whether a model of ``step`` has a member whose encoding, made by build_step for its
    diffs and secret scan (``known``, its Encodings), is too long for a whole line."""
    if known is None:
        return False
    for place in PLACES:
        model = model_at(step, place)  # the parts of a step line that can be megabytes
        for value in model.values() if model is not None else ():
            if type(value) is dict or type(value) is list:
                raw = known.of(value)  # the splice below encodes these members all the same
                if raw is not None and len(raw) >= _WHOLE_LINE_MAX:
                    return True
    return False


#: At most this many buffers go to one writev call (Linux's IOV_MAX is 1024).
_IOV_MAX = 1024


def _write_all(descriptor: int, pieces: list[bytes]) -> None:
    """Write every byte of ``pieces``, in order, through as few ``writev`` calls as it takes
    (a call may write less than it was given: the rest goes in the next)."""
    views = [memoryview(piece) for piece in pieces if piece]
    while views:
        written = os.writev(descriptor, views[:_IOV_MAX])
        while views and written >= len(views[0]):
            written -= len(views[0])
            del views[0]
        if written:
            views[0] = views[0][written:]


def _same_context(value: Any, known: Any) -> bool:
    """Whether ``value`` may be written as a reference to ``known``: the same JSON (equal
    encodings, see samejson), never merely ``==`` (1.0 is not 1, false is not 0)."""
    if value is known:
        return isinstance(value, dict) and bool(value)
    if not isinstance(value, dict) or not isinstance(known, dict) or len(value) != len(known):
        return False
    return same_json(value, known)


def _cut_torn_tail(descriptor: int, end: int) -> int:
    """Cut a torn last line (a writer killed mid-line) off the journal open at ``descriptor``
    before appending to it; the new size.

    Appending after it would glue the next entry onto the fragment and turn a torn last line,
    which loads with a warning, into corruption in the middle, which does not load at all. The
    fragment is an entry that was never completely written (writers hold the lock for a whole
    line), so nothing complete is lost.
    """
    if end == 0 or os.pread(descriptor, 1, end - 1) == b"\n":
        return end
    position = end
    while position > 0:
        size = min(65_536, position)
        position -= size
        found = os.pread(descriptor, size, position).rfind(b"\n")
        if found >= 0:
            os.ftruncate(descriptor, position + found + 1)
            return position + found + 1
    os.ftruncate(descriptor, 0)
    return 0


def _step_dict(step: Step) -> dict[str, Any]:
    """``step.to_dict()`` without its deep copy of the models (a 5 MB model costs a second)."""
    result = step.result
    data = {**step.__dict__, "action": step.action.value}
    data["result"] = {**result.__dict__, "kind": result.kind.value}
    del data["result"]["aws_calls"]  # durable on the step (Step.aws_calls), not the result
    data["aws_calls"] = [c.to_dict() for c in step.aws_calls]
    # Finding.to_dict and Change.to_dict without dataclasses.asdict's deep copy of each value
    data["findings"] = [{**f.__dict__, "level": f.level.value} for f in step.findings]
    data["diff_request"] = [{**c.__dict__, "kind": c.kind.value} for c in step.diff_request]
    data["diff_previous"] = [{**c.__dict__, "kind": c.kind.value} for c in step.diff_previous]
    return data


def _run_head(run: RunRecord) -> dict[str, Any]:
    """The run without its steps (they are on the step lines); its steps are not converted."""
    return replace(run, steps=[]).to_dict()


def load_journal(path: Path) -> Session:
    """Rebuild a Session from a journal: every completed step of every run."""
    try:
        lines = read_bytes(path).split(b"\n")
    except FileNotFoundError:
        raise JournalError("no such journal", path=path) from None
    except OSError as exc:
        raise JournalError(f"cannot read: {exc.strerror}", path=path) from None
    session = Session(path=path)
    runs: dict[str, RunRecord] = {}
    indexes: dict[str, dict[int, Step]] = {}  # each run's steps by index, for references
    numbers = [i for i, line in enumerate(lines, 1) if line.strip()]
    if not numbers:
        raise JournalError("the file is empty; expected a journal or a transcript", path=path)
    first_number, last_number = numbers[0], numbers[-1]
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
            if not isinstance(entry, dict):
                raise ValueError("not an object")
        except RecursionError:
            raise JournalError(
                "expected a journal entry nested at most a few hundred levels deep",
                path=path,
                field=f"line {number}",
            ) from None
        except ValueError as exc:
            if number == last_number and (number > first_number or raw.startswith(b'{"type":')):
                session.problems.append(
                    f"{path}: line {number}: torn last line ignored (the session was interrupted "
                    "while writing it)"
                )
                break
            raise JournalError(
                f"expected a JSON object: {exc}", path=path, field=f"line {number}"
            ) from None
        if number == first_number and not isinstance(entry.get("type"), str):
            raise JournalError(
                "expected a cfn-debug session journal (JSON lines, the first one "
                '{"type": "session", ...}) or a JSON transcript',
                path=path,
                field=f"line {number}",
            )
        try:
            _check_entry(entry, path)
        except JournalError as error:  # name the line as the field; the entry's field in text
            raise JournalError(
                f"{error.field}: {error.detail}", path=path, field=f"line {number}"
            ) from None
        try:
            _apply(entry, session, runs, indexes)
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
            raise JournalError(
                f"unexpected {entry.get('type', 'entry')!r} entry ({type(exc).__name__}: {exc})",
                path=path,
                field=f"line {number}",
            ) from None
    session.runs = list(runs.values())
    return session


def _check_entry(entry: dict[str, Any], path: Path) -> None:
    """Check a run or step entry field by field (a journal may be hand-made or damaged): a
    JournalError naming the line and field, never a record a consumer later trips on."""
    kind = entry.get("type")
    if kind in ("run_started", "run_ended"):
        check_run(entry.get("run"), path, "run")
    elif kind == "step":
        if not isinstance(entry.get("run_id"), str):
            raise JournalError("expected a run id (a string)", path=path, field="run_id")
        check_step(entry.get("step"), path, "step")


def _apply(
    entry: dict[str, Any],
    session: Session,
    runs: dict[str, RunRecord],
    indexes: dict[str, dict[int, Step]] | None = None,
) -> None:
    """Apply one journal line. ``indexes``: each run's steps by index so far, for the references
    a step line makes (one lookup each: loading stays linear in the number of steps)."""
    indexes = {} if indexes is None else indexes
    kind = entry.get("type")
    if kind == "session":
        written = entry.get("format")
        if isinstance(written, int) and not isinstance(written, bool) and written > JOURNAL_FORMAT:
            raise ValueError(
                f"journal format {written} is newer than this cfn-debug reads ({JOURNAL_FORMAT}); "
                "upgrade cfn-debug to open it"
            )
        session.project = entry.get("project")
        session.endpoint = entry.get("endpoint")
        session.version = entry.get("version") or session.version
        session.created = entry.get("created")
    elif kind == "run_started":
        run = RunRecord.from_dict(entry["run"])
        project = entry.get("project")  # the project of the process that wrote the run
        session.run_projects[run.run_id] = project if isinstance(project, str) else session.project
        # until its run_ended line, a run is unfinished (interrupted, if none ever comes)
        run.steps, run.end_reason, run.final_status, run.chain_findings = [], None, None, []
        runs[run.run_id] = run
        indexes[run.run_id] = {}
    elif kind == "step":
        run = runs[entry["run_id"]]
        step = Step.from_dict(entry["step"])
        by_index = indexes.get(run.run_id)
        if by_index is None:
            by_index = indexes[run.run_id] = {s.index: s for s in run.steps}
        refs = entry.get("context_refs")
        if refs:
            _restore_contexts(step, refs, by_index)
        model_refs = entry.get("model_refs")
        if model_refs:
            restore_models(step, model_refs, by_index)
        run.steps.append(step)
        by_index[step.index] = step
    elif kind == "run_ended":
        ended = RunRecord.from_dict(entry["run"])
        known = runs.get(ended.run_id)
        ended.steps = known.steps if known is not None else []
        runs[ended.run_id] = ended
    elif kind == "scenario_ended":
        summary = entry.get("scenario")
        if not isinstance(summary, dict) or not isinstance(summary.get("name"), str):
            raise ValueError("expected a scenario summary with a name")
        session.scenarios.append(summary)
    else:
        raise ValueError(f"unknown entry type {kind!r}")


def _restore_contexts(step: Step, refs: Any, by_index: Mapping[int, Step]) -> None:
    """Put back the callbackContexts a journal line wrote as references (``context_refs``: where
    -> index of the step that returned it), sharing the one object."""
    if not isinstance(refs, dict):
        raise ValueError("context_refs: expected an object")
    for where, index in refs.items():
        source = by_index.get(index) if isinstance(index, int) else None
        progress = source.result.progress if source is not None else None
        if not isinstance(progress, dict) or not isinstance(progress.get("callbackContext"), dict):
            raise ValueError(f"context_refs: no callbackContext returned by step {index!r}")
        context = progress["callbackContext"]
        if where == "request" and isinstance(step.request, dict):
            step.request = {**step.request, "callbackContext": context}
        elif where == "result" and isinstance(step.result.progress, dict):
            step.result.progress = {**step.result.progress, "callbackContext": context}
        else:
            raise ValueError(f"context_refs: unknown place {where!r}")
