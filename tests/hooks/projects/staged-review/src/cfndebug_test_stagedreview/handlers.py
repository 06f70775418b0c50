"""A hook on cloudformation-cli-python-lib that takes three invocations to decide: it answers
IN_PROGRESS with a callbackContext counting its review stages, then its verdict on the queue
(encrypted at rest: SqsManagedSseEnabled or KmsMasterKeyId)."""

from collections.abc import MutableMapping
from typing import Any

from cloudformation_cli_python_lib import (
    HandlerErrorCode,
    Hook,
    HookInvocationPoint,
    OperationStatus,
    ProgressEvent,
    SessionProxy,
)

from .models import HookHandlerRequest, TypeConfigurationModel

TYPE_NAME = "CfnDebug::Test::StagedReview"
STAGES = 3

hook = Hook(TYPE_NAME, TypeConfigurationModel)
test_entrypoint = hook.test_entrypoint


@hook.handler(HookInvocationPoint.CREATE_PRE_PROVISION)
def pre_create_handler(
    session: SessionProxy | None,
    request: HookHandlerRequest,
    callback_context: MutableMapping[str, Any],
    type_configuration: TypeConfigurationModel | None,
) -> ProgressEvent:
    stage = int(callback_context.get("stage", 0)) + 1
    if stage < STAGES:
        return ProgressEvent(
            status=OperationStatus.IN_PROGRESS,
            callbackContext={"stage": stage},
            callbackDelaySeconds=1,
        )
    context = request.hookContext
    if context.targetName != "AWS::SQS::Queue":
        return ProgressEvent.failed(
            HandlerErrorCode.UnsupportedTarget, f"{context.targetName} is not reviewed"
        )
    properties = (context.targetModel or {}).get("resourceProperties") or {}
    if properties.get("SqsManagedSseEnabled") is True or properties.get("KmsMasterKeyId"):
        return ProgressEvent(status=OperationStatus.SUCCESS, message="reviewed in 3 stages")
    return ProgressEvent.failed(HandlerErrorCode.NonCompliant, "the queue is not encrypted at rest")
