"""The records every part of cfn-debug exchanges: actions, invocation outcomes, findings, steps.

The engine produces these, the dashboard, the console printer, the journal and the exporters
consume them. They are plain dataclasses that round-trip through JSON (``to_dict``/``from_dict``)
so a journal line or a transcript loads back into an equal record.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any, Protocol

from cfn_debug.aws_calls import AwsCall


class Action(str, Enum):
    CREATE = "CREATE"
    READ = "READ"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    LIST = "LIST"
    # a hook's invocation points (cfn_debug.hooks): the action of a hook's request
    CREATE_PRE_PROVISION = "CREATE_PRE_PROVISION"
    UPDATE_PRE_PROVISION = "UPDATE_PRE_PROVISION"
    DELETE_PRE_PROVISION = "DELETE_PRE_PROVISION"

    @property
    def limit_s(self) -> float:
        """The handler contract's per-invocation limit: 60 s, or 30 s for read and list."""
        return 30.0 if self in (Action.READ, Action.LIST) else 60.0

    @property
    def is_hook(self) -> bool:
        return self.value.endswith("_PRE_PROVISION")


#: The actions of a resource type's handlers (a hook's invocation points are not among them).
RESOURCE_ACTIONS = (Action.CREATE, Action.READ, Action.UPDATE, Action.DELETE, Action.LIST)


#: Fraction of an invocation's limit past which the timing is a warning.
WARN_FRACTION = 0.75


class Level(str, Enum):
    MUST = "MUST"
    SHOULD = "SHOULD"


class OutcomeKind(str, Enum):
    """What an invocation came back as. Only PROGRESS carries a ProgressEvent."""

    PROGRESS = "progress"  # a JSON object with a "status": a ProgressEvent (maybe a malformed one)
    CRASH = "crash"  # the function raised: X-Amz-Function-Error Unhandled / FunctionError
    TIMEOUT = "timeout"  # SAM's empty body, the emulator's plain text, Lambda's "Task timed out"
    NOT_JSON = "not_json"  # a 200 whose body is not JSON
    NOT_PROGRESS_EVENT = "not_progress_event"  # JSON, but not an object with a status
    UNREACHABLE = "unreachable"  # nothing answered at the endpoint
    HTTP_ERROR = "http_error"  # the endpoint answered with an error (x-amzn-errortype)
    #: valid JSON cfn-debug cannot read: an integer longer than Python converts (4,300 digits)
    UNREADABLE = "unreadable"


@dataclass
class InvokeResult:
    """One invocation's typed outcome, as the invoker saw it."""

    kind: OutcomeKind
    duration_s: float
    progress: dict[str, Any] | None = None  # the ProgressEvent when kind is PROGRESS
    body_excerpt: str = ""  # the raw body (truncated) when it is not a usable ProgressEvent
    http_status: int | None = None
    error_type: str | None = None  # errorType of a crash, x-amzn-errortype of an HTTP error
    error_message: str | None = None  # human-readable explanation of a non-PROGRESS outcome
    stack_trace: list[str] = field(default_factory=list)
    request_id: str | None = None
    logs: list[str] = field(default_factory=list)  # the handler's own lines for this invocation
    #: Of duration_s, the time the runtime took to start before the handler ran (the Java
    #: runtime starts a JVM per invocation, as the plugin's executable mode does; Lambda keeps
    #: it warm): shown apart in Timing, not counted against the 60/30 s limits. None: none.
    runtime_start_s: float | None = None
    #: What stands for the AWS calls when the endpoint's runtime for the function records none
    #: ("AWS calls: not recorded for this runtime (...)"); None where they are recorded or the
    #: endpoint does not say.
    aws_calls_note: str | None = None
    # the AWS calls the handler made, as the endpoint reported them; build_step moves them to
    # Step.aws_calls (the durable place: they are not part of the result's JSON)
    aws_calls: list[AwsCall] = field(
        default_factory=list, compare=False, metadata={"transient": True}
    )
    #: Time the handler spent stopped in a debugger, taken out of duration_s (the endpoint's
    #: X-Cfn-Debug-Stopped-Ms).
    stopped_s: float = 0.0
    #: The user ended this invocation from the debugger (pdb's q): not the handler's crash.
    debugger_quit: bool = False

    @property
    def handler_s(self) -> float:
        """The handler's own time: duration_s without the runtime's start."""
        return max(self.duration_s - (self.runtime_start_s or 0.0), 0.0)

    @property
    def status(self) -> str | None:
        if self.progress is None:
            return None
        status = self.progress.get("status", self.progress.get("hookStatus"))
        return status if isinstance(status, str) else None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["kind"] = self.kind.value
        del data["aws_calls"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> InvokeResult:
        fields = {key: value for key, value in data.items() if key != "aws_calls"}
        return cls(**{**fields, "kind": OutcomeKind(data["kind"])})


@dataclass(frozen=True)
class Finding:
    """One contract violation (or suspicion, at SHOULD level) found in a step or a chain."""

    rule_id: str
    level: Level
    message: str
    pointer: str | None = None  # JSON pointer into the response (or the request, for inputs)
    step: int | None = None  # index of the step it belongs to; None for chain-level findings

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "level": self.level.value}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        return cls(**{**data, "level": Level(data["level"])})


class ChangeKind(str, Enum):
    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"


@dataclass(frozen=True)
class Change:
    """One difference between two models, keyed by JSON pointer."""

    pointer: str
    kind: ChangeKind
    before: Any = None
    after: Any = None
    note: str = ""  # e.g. "readOnly", "writeOnly", "insertionOrder false: compared as a multiset"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "kind": self.kind.value}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Change:
        return cls(**{**data, "kind": ChangeKind(data["kind"])})


@dataclass
class Step:
    """One invocation of a chain, with everything the consumers show about it."""

    index: int  # 0-based position in the chain
    action: Action
    function_name: str
    request: dict[str, Any]  # the payload as sent, credentials redacted
    result: InvokeResult
    started_at: str  # wall-clock ISO 8601 time the request was sent
    limit_s: float  # the per-invocation limit for the action (60 or 30)
    callback_delay_s: float = 0.0  # the delay the chain waited (or will wait) after this step
    findings: list[Finding] = field(default_factory=list)
    diff_request: list[Change] = field(default_factory=list)  # request model vs returned model
    diff_previous: list[Change] = field(default_factory=list)  # previous step's model vs this
    aws_calls: list[AwsCall] = field(default_factory=list)  # the handler's AWS API calls, in order
    #: who asked for this invocation: None for the event's own chain; "read-back" for the READ
    #: cfn-debug sends after a CREATE/UPDATE SUCCESS (cfn_debug.readback)
    origin: str | None = None

    @property
    def duration_s(self) -> float:
        return self.result.duration_s

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "action": self.action.value,
            "function_name": self.function_name,
            "request": self.request,
            "result": self.result.to_dict(),
            "started_at": self.started_at,
            "limit_s": self.limit_s,
            "callback_delay_s": self.callback_delay_s,
            "findings": [f.to_dict() for f in self.findings],
            "diff_request": [c.to_dict() for c in self.diff_request],
            "diff_previous": [c.to_dict() for c in self.diff_previous],
            "aws_calls": [c.to_dict() for c in self.aws_calls],
            "origin": self.origin,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Step:
        return cls(
            index=data["index"],
            action=Action(data["action"]),
            function_name=data["function_name"],
            request=data["request"],
            result=InvokeResult.from_dict(data["result"]),
            started_at=data["started_at"],
            limit_s=data["limit_s"],
            callback_delay_s=data.get("callback_delay_s", 0.0),
            findings=[Finding.from_dict(f) for f in data.get("findings", [])],
            diff_request=[Change.from_dict(c) for c in data.get("diff_request", [])],
            diff_previous=[Change.from_dict(c) for c in data.get("diff_previous", [])],
            aws_calls=[AwsCall.from_dict(c) for c in data.get("aws_calls") or []],
            origin=data.get("origin"),
        )


class EndReason(str, Enum):
    """Why a chain stopped re-invoking."""

    TERMINAL = "terminal"  # SUCCESS or FAILED (or any outcome that is not IN_PROGRESS)
    MAX_REINVOKE = "max_reinvoke"  # the --max-reinvoke cap
    HANDLER_TIMEOUT = "handler_timeout"  # the schema's timeoutInMinutes for the action ran out
    CANCELLED = "cancelled"  # the consumer asked it to stop
    ERROR = "error"  # the endpoint could not be used (unreachable, HTTP error)


@dataclass
class RunRecord:
    """One event run as a chain: its steps, why it ended and the chain-level findings."""

    run_id: str
    event_name: str
    event_path: str | None
    action: Action
    function_name: str
    endpoint: str
    started_at: str
    steps: list[Step] = field(default_factory=list)
    end_reason: EndReason | None = None
    final_status: str | None = None
    chain_findings: list[Finding] = field(default_factory=list)
    #: The chain's own time: invocations and callback delays, not the user's (step mode).
    total_s: float = 0.0
    #: Step mode: the time the chain waited for the user to advance (not in total_s).
    user_wait_s: float = 0.0
    #: The time its handlers spent stopped in a debugger (not in total_s nor any duration).
    debugger_s: float = 0.0
    #: "RUN_ID#INDEX": this run replays that step under the debugger (the dashboard's b).
    replay_of: str | None = None
    #: A hook's verdict on its target (allowed, refused, ...: cfn_debug.hooks.rules.verdict_of);
    #: None for a resource handler's run
    verdict: str | None = None

    @property
    def findings(self) -> list[Finding]:
        return [f for s in self.steps for f in s.findings] + list(self.chain_findings)

    @property
    def must_failures(self) -> list[Finding]:
        return [f for f in self.findings if f.level is Level.MUST]

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "event_name": self.event_name,
            "event_path": self.event_path,
            "action": self.action.value,
            "function_name": self.function_name,
            "endpoint": self.endpoint,
            "started_at": self.started_at,
            "steps": [s.to_dict() for s in self.steps],
            "end_reason": self.end_reason.value if self.end_reason else None,
            "final_status": self.final_status,
            "chain_findings": [f.to_dict() for f in self.chain_findings],
            "total_s": self.total_s,
            "user_wait_s": self.user_wait_s,
            "debugger_s": self.debugger_s,
            "replay_of": self.replay_of,
            **({"verdict": self.verdict} if self.verdict is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunRecord:
        return cls(
            run_id=data["run_id"],
            event_name=data["event_name"],
            event_path=data.get("event_path"),
            action=Action(data["action"]),
            function_name=data["function_name"],
            endpoint=data["endpoint"],
            started_at=data["started_at"],
            steps=[Step.from_dict(s) for s in data.get("steps", [])],
            end_reason=EndReason(data["end_reason"]) if data.get("end_reason") else None,
            final_status=data.get("final_status"),
            chain_findings=[Finding.from_dict(f) for f in data.get("chain_findings", [])],
            total_s=data.get("total_s", 0.0),
            user_wait_s=data.get("user_wait_s", 0.0),
            debugger_s=data.get("debugger_s", 0.0),
            replay_of=data.get("replay_of"),
            verdict=data.get("verdict"),
        )


# --- What a running chain streams to its consumer (dashboard, console, journal) ---


@dataclass(frozen=True)
class RunStarted:
    run: RunRecord  # with no steps yet


@dataclass(frozen=True)
class InvocationStarted:
    run_id: str
    index: int
    action: Action
    limit_s: float
    started_monotonic: float  # time.monotonic() when the request was sent: drive a live gauge


class StepEncodings(Protocol):
    """Exact JSON encodings of a step's models' parts, each made once (``diff.Encodings``)."""

    def of(self, value: Any) -> bytes | None:
        """``jsonfast.exact(value)``, made at most once for ``value`` (held, not copied)."""
        ...


@dataclass(frozen=True)
class StepCompleted:
    run_id: str
    step: Step
    #: The encodings build_step made of the step's models for its secret scan and diffs, handed
    #: to the journal, which writes the step's line from those bytes. Transient: the event holds
    #: them, not the step, so they are let go once the event's consumers are done with it (a run
    #: keeps every step; a 5 MB model's bytes kept per step would grow with its length).
    encodings: StepEncodings | None = field(
        default=None, compare=False, repr=False, metadata={"transient": True}
    )


@dataclass(frozen=True)
class DelayStarted:
    run_id: str
    index: int  # the step whose callbackDelaySeconds is being honoured
    seconds: float  # what will be waited (after --max-delay)
    requested_s: float  # what the handler asked for
    started_monotonic: float


@dataclass(frozen=True)
class AwaitingStep:
    """Step mode: the chain waits for the consumer to advance (and maybe edit callbackContext)."""

    run_id: str
    next_index: int
    callback_context: dict[str, Any] | None


@dataclass(frozen=True)
class RunEnded:
    run: RunRecord  # complete: steps, end_reason, final_status, chain_findings


ChainEvent = RunStarted | InvocationStarted | StepCompleted | DelayStarted | AwaitingStep | RunEnded
