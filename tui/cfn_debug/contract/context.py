"""What a step check sees: the schema, the request's models and the invocation's outcome."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from cfn_debug.records import WARN_FRACTION, Action, InvokeResult, OutcomeKind, Step
from cfn_debug.schema import ResourceSchema

STATUSES = ("IN_PROGRESS", "SUCCESS", "FAILED")
TERMINAL = ("SUCCESS", "FAILED")
#: What cloudformation-cli-python-lib answers when a handler raises a non-library exception:
#: an empty message from the Lambda entry point, "Uninitialized" from the test entry point.
LIBRARY_EXCEPTION_MESSAGES = ("", "Uninitialized")
#: Where the input rules point: the desired state, whatever the payload's shape.
REQUEST_DESIRED = "/request/desiredResourceState"


@dataclass
class StepContext:
    schema: ResourceSchema | None
    action: Action
    index: int
    desired: dict[str, Any] | None  # this invocation's desiredResourceState
    previous: dict[str, Any] | None  # previousResourceState
    original_desired: dict[str, Any] | None  # the chain's first desiredResourceState
    result: InvokeResult
    previous_steps: Sequence[Step] = field(default_factory=tuple)
    warn_fraction: float = WARN_FRACTION
    # the step's shared model encodings for diffs (cfn_debug.diff.Encodings), or None
    encodings: Any = None

    @property
    def progress(self) -> dict[str, Any] | None:
        """The ProgressEvent, when the invocation returned one (a JSON object)."""
        if self.result.kind is not OutcomeKind.PROGRESS:
            return None
        return self.result.progress if isinstance(self.result.progress, dict) else None

    @property
    def status(self) -> str | None:
        progress = self.progress
        status = progress.get("status") if progress else None
        return status if isinstance(status, str) else None

    @property
    def resource_model(self) -> dict[str, Any] | None:
        progress = self.progress
        model = progress.get("resourceModel") if progress else None
        return model if isinstance(model, dict) else None

    def returned_models(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """(pointer, model) for resourceModel and every object in resourceModels."""
        progress = self.progress
        if not progress:
            return
        model = progress.get("resourceModel")
        if isinstance(model, dict):
            yield "/resourceModel", model
        models = progress.get("resourceModels")
        if isinstance(models, list):
            for index, item in enumerate(models):
                if isinstance(item, dict):
                    yield f"/resourceModels/{index}", item


Problems = list[tuple[str | None, str]]
Check = Callable[[StepContext], Problems]


def note_line(note: str | None) -> str:
    """A note on a line of its own after a message, or nothing."""
    return f"\n{note}" if note else ""


def is_handler_exception(ctx: StepContext) -> bool:
    """An exception the library caught in the handler: FAILED InternalFailure, its message none
    or one of the library's own."""
    progress = ctx.progress
    if not progress or ctx.status != "FAILED" or progress.get("errorCode") != "InternalFailure":
        return False
    message = progress.get("message")
    return message is None or message in LIBRARY_EXCEPTION_MESSAGES
