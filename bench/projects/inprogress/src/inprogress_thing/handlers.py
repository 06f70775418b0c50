"""Benchmark handler: CREATE answers IN_PROGRESS (callbackDelaySeconds 0) ``Steps`` times, then
SUCCESS. Written with cloudformation-cli-python-lib, as a real resource type would be."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cloudformation_cli_python_lib import Action, OperationStatus, ProgressEvent, Resource
from cloudformation_cli_python_lib.interface import BaseModel


@dataclass
class ResourceModel(BaseModel):
    ThingId: str | None = None
    Name: str | None = None
    Steps: int | None = None
    Blob: str | None = None
    Items: list[dict[str, Any]] | None = None

    @classmethod
    def _deserialize(cls, json_data: Any) -> ResourceModel | None:
        if not json_data:
            return None
        return cls(**{k: json_data.get(k) for k in cls.__dataclass_fields__})


resource = Resource("CfnDebug::Bench::InProgress", ResourceModel)
test_entrypoint = resource.test_entrypoint


@resource.handler(Action.CREATE)
def create(_session: Any, request: Any, callback_context: dict[str, Any]) -> ProgressEvent:
    model = request.desiredResourceState
    done = int(callback_context.get("done", 0))
    if model.ThingId is None:
        model.ThingId = "thing-1"
    if done < (model.Steps or 0):
        return ProgressEvent(
            status=OperationStatus.IN_PROGRESS,
            resourceModel=model,
            callbackContext={"done": done + 1},
            callbackDelaySeconds=0,
        )
    return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)


def plain(event: dict[str, Any], _context: Any) -> dict[str, Any]:
    """The same chain without the library, which builds a boto3 Session (about 12 ms) on every
    invocation: this one measures cfn-debug and the endpoint only. Takes either payload shape."""
    if "requestData" in event:
        model = dict(event["requestData"].get("resourceProperties") or {})
    else:
        model = dict(event["request"].get("desiredResourceState") or {})
    context = event.get("callbackContext") or {}
    done = int(context.get("done", 0))
    model.setdefault("ThingId", "thing-1")
    if done < int(model.get("Steps") or 0):
        return {
            "status": "IN_PROGRESS",
            "message": "",
            "resourceModel": model,
            "callbackContext": {"done": done + 1},
            "callbackDelaySeconds": 0,
        }
    return {"status": "SUCCESS", "message": "", "resourceModel": model}
