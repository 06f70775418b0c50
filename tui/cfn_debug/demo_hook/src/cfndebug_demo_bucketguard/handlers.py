"""The demo hook's handlers, on cloudformation-cli-python-lib's hook interface.

They check an S3 bucket's properties (no AWS call). ``Fault`` in the hook's settings plants a
realistic contract fault; ``SlowReview`` makes the hook take three invocations (IN_PROGRESS with a
callbackContext, then its verdict).
"""

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
TYPE_NAME = "CfnDebug::Demo::BucketGuard"

hook = Hook(TYPE_NAME, TypeConfigurationModel)
test_entrypoint = hook.test_entrypoint


def _fault(config: TypeConfigurationModel | None) -> str:
    return config.Fault if config is not None and config.Fault else "None"


def _verdict(problem: str | None, fault: str) -> ProgressEvent:
    """SUCCESS when ``problem`` is None, else FAILED NonCompliant; with the planted fault."""
    if problem is None or fault == "AllowEverything":
        if fault == "SuccessWithDelay":
            return ProgressEvent(status=OperationStatus.SUCCESS, callbackDelaySeconds=5)
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


def _review(
    request: HookHandlerRequest,
    callback_context: MutableMapping[str, Any],
    config: TypeConfigurationModel | None,
    problem_of: Any,
) -> ProgressEvent:
    fault = _fault(config)
    context = request.hookContext
    LOG.info("reviewing %s %s", context.targetName, context.targetLogicalId)
    if fault == "SlowReview":
        stage = int(callback_context.get("stage", 0)) + 1
        if stage < 3:
            LOG.info("review stage %d of 3", stage)
            return ProgressEvent(
                status=OperationStatus.IN_PROGRESS,
                callbackContext={"stage": stage},
                callbackDelaySeconds=2,
            )
    if context.targetName != "AWS::S3::Bucket" and fault != "AllowEverything":
        return ProgressEvent.failed(
            HandlerErrorCode.UnsupportedTarget, f"{context.targetName} is not guarded"
        )
    properties = (context.targetModel or {}).get("resourceProperties")
    return _verdict(problem_of(properties, config), fault)


def _protected(properties: Any, _config: TypeConfigurationModel | None) -> str | None:
    tags = (properties or {}).get("Tags") or []
    values = {t.get("Key"): t.get("Value") for t in tags if isinstance(t, dict)}
    return "the bucket is tagged Protected=true" if values.get("Protected") == "true" else None


@hook.handler(HookInvocationPoint.CREATE_PRE_PROVISION)
def pre_create_handler(
    session: SessionProxy | None,
    request: HookHandlerRequest,
    callback_context: MutableMapping[str, Any],
    type_configuration: TypeConfigurationModel | None,
) -> ProgressEvent:
    if _fault(type_configuration) == "Raise":
        encryption = (request.hookContext.targetModel or {})["resourceProperties"]
        LOG.info(
            "algorithm: %s", encryption["BucketEncryption"]["ServerSideEncryptionConfiguration"]
        )
    return _review(request, callback_context, type_configuration, _bucket_problem)


@hook.handler(HookInvocationPoint.UPDATE_PRE_PROVISION)
def pre_update_handler(
    session: SessionProxy | None,
    request: HookHandlerRequest,
    callback_context: MutableMapping[str, Any],
    type_configuration: TypeConfigurationModel | None,
) -> ProgressEvent:
    return _review(request, callback_context, type_configuration, _bucket_problem)


@hook.handler(HookInvocationPoint.DELETE_PRE_PROVISION)
def pre_delete_handler(
    session: SessionProxy | None,
    request: HookHandlerRequest,
    callback_context: MutableMapping[str, Any],
    type_configuration: TypeConfigurationModel | None,
) -> ProgressEvent:
    return _review(request, callback_context, type_configuration, _protected)
