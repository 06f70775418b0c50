"""What a step check sees: the schema, the request's models and the invocation's outcome."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from cfn_debug.records import WARN_FRACTION, Action, InvokeResult, OutcomeKind, Step
from cfn_debug.schema import ResourceSchema

STATUSES = ("IN_PROGRESS", "SUCCESS", "FAILED")
TERMINAL = ("SUCCESS", "FAILED")


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
