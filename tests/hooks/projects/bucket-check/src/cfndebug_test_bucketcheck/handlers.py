"""A hook on cloudformation-cli-python-lib's hook interface: it checks an S3 bucket's properties
(no AWS call). ``Fault`` in the hook's settings plants one contract fault (cfn-debug's tests)."""

import logging
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

LOG = logging.getLogger(__name__)
TYPE_NAME = "CfnDebug::Test::BucketCheck"

hook = Hook(TYPE_NAME, TypeConfigurationModel)
test_entrypoint = hook.test_entrypoint


def _fault(config: TypeConfigurationModel | None) -> str:
    return config.Fault if config is not None and config.Fault else "None"


def _verdict(problem: str | None, fault: str) -> ProgressEvent:
    """SUCCESS when ``problem`` is None, else FAILED NonCompliant, with the planted fault."""
    if problem is None or fault == "AllowEverything":
        if fault == "SuccessWithDelay":
            return ProgressEvent(status=OperationStatus.SUCCESS, callbackDelaySeconds=5)
        if fault == "SuccessWithErrorCode":
            return ProgressEvent(
                status=OperationStatus.SUCCESS, errorCode=HandlerErrorCode.NonCompliant
            )
        return ProgressEvent(status=OperationStatus.SUCCESS, message="the bucket is compliant")
    if fault == "NoMessage":
        return ProgressEvent.failed(HandlerErrorCode.NonCompliant, "")
    if fault == "NoErrorCode":
        return ProgressEvent(status=OperationStatus.FAILED, message=problem)
    return ProgressEvent.failed(HandlerErrorCode.NonCompliant, problem)


def _bucket_problem(properties: Any, config: TypeConfigurationModel | None) -> str | None:
    if not isinstance(properties, dict):
        return "the bucket has no properties"
    encryption = properties.get("BucketEncryption") or {}
    if not encryption.get("ServerSideEncryptionConfiguration"):
        return "the bucket has no default encryption (BucketEncryption)"
    if config is not None and config.RequireVersioning == "true":
        status = (properties.get("VersioningConfiguration") or {}).get("Status")
        if status != "Enabled":
            return "the bucket does not enable versioning (VersioningConfiguration/Status)"
    return None


def _check(
    request: HookHandlerRequest,
    callback_context: MutableMapping[str, Any],
    config: TypeConfigurationModel | None,
) -> ProgressEvent:
    fault = _fault(config)
    context = request.hookContext
    LOG.info("checking %s %s", context.targetName, context.targetLogicalId)
    if fault == "Raise":
        raise KeyError("BucketEncryption")
    if fault == "InProgressErrorCode" and not callback_context:
        return ProgressEvent(
            status=OperationStatus.IN_PROGRESS,
            errorCode=HandlerErrorCode.Throttling,
            callbackContext={"checked": 1},
        )
    if context.targetName != "AWS::S3::Bucket" and fault != "AllowEverything":
        return ProgressEvent.failed(
            HandlerErrorCode.UnsupportedTarget, f"{context.targetName} is not checked by this hook"
        )
    model = context.targetModel or {}
    return _verdict(_bucket_problem(model.get("resourceProperties"), config), fault)


@hook.handler(HookInvocationPoint.CREATE_PRE_PROVISION)
def pre_create_handler(
    session: SessionProxy | None,
    request: HookHandlerRequest,
    callback_context: MutableMapping[str, Any],
    type_configuration: TypeConfigurationModel | None,
) -> ProgressEvent:
    return _check(request, callback_context, type_configuration)


@hook.handler(HookInvocationPoint.UPDATE_PRE_PROVISION)
def pre_update_handler(
    session: SessionProxy | None,
    request: HookHandlerRequest,
    callback_context: MutableMapping[str, Any],
    type_configuration: TypeConfigurationModel | None,
) -> ProgressEvent:
    return _check(request, callback_context, type_configuration)


@hook.handler(HookInvocationPoint.DELETE_PRE_PROVISION)
def pre_delete_handler(
    session: SessionProxy | None,
    request: HookHandlerRequest,
    callback_context: MutableMapping[str, Any],
    type_configuration: TypeConfigurationModel | None,
) -> ProgressEvent:
    fault = _fault(type_configuration)
    context = request.hookContext
    if fault == "Raise":
        raise KeyError("Tags")
    if context.targetName != "AWS::S3::Bucket" and fault != "AllowEverything":
        return ProgressEvent.failed(
            HandlerErrorCode.UnsupportedTarget, f"{context.targetName} is not checked by this hook"
        )
    properties = (context.targetModel or {}).get("resourceProperties") or {}
    tags = {
        t.get("Key"): t.get("Value") for t in properties.get("Tags") or [] if isinstance(t, dict)
    }
    problem = "the bucket is tagged Protected=true" if tags.get("Protected") == "true" else None
    return _verdict(problem, fault)
