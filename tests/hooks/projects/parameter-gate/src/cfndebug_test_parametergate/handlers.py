"""A hook on cloudformation-cli-python-lib that reads a setup resource through AWS: the SSM
parameter its settings name holds the prefix every queue name must start with."""

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

TYPE_NAME = "CfnDebug::Test::ParameterGate"

hook = Hook(TYPE_NAME, TypeConfigurationModel)
test_entrypoint = hook.test_entrypoint


@hook.handler(HookInvocationPoint.CREATE_PRE_PROVISION)
def pre_create_handler(
    session: SessionProxy | None,
    request: HookHandlerRequest,
    callback_context: MutableMapping[str, Any],
    type_configuration: TypeConfigurationModel | None,
) -> ProgressEvent:
    context = request.hookContext
    if context.targetName != "AWS::SQS::Queue":
        return ProgressEvent.failed(
            HandlerErrorCode.UnsupportedTarget, f"{context.targetName} is not gated"
        )
    name = (type_configuration.PrefixParameter if type_configuration else None) or (
        "/cfn-debug/queue-prefix"
    )
    prefix = session.client("ssm").get_parameter(Name=name)["Parameter"]["Value"]
    properties = (context.targetModel or {}).get("resourceProperties") or {}
    queue = properties.get("QueueName") or ""
    if queue.startswith(prefix):
        return ProgressEvent(
            status=OperationStatus.SUCCESS, message=f"{queue} starts with {prefix}"
        )
    return ProgressEvent.failed(
        HandlerErrorCode.NonCompliant, f"queue name {queue!r} must start with {prefix!r}"
    )
