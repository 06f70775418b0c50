"""What the watcher reports (one stream of typed events), and how a re-run's findings compare
with the previous run of the same event."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from cfn_debug.records import ChainEvent, Finding, RunRecord

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
