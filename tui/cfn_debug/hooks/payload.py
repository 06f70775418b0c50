"""The wire shapes of a hook request, and the status of a hook's answer.

``Shape.HANDLER_REQUEST``: the request CloudFormation sends to the hook's function, as the CLI's
``HookClient.make_request`` builds it: ``clientRequestToken``, ``awsAccountId``, ``stackId``,
``hookTypeName``, ``hookTypeVersion``, ``hookModel`` (the hook's settings),
``actionInvocationPoint``,
``requestData`` (``targetName``, ``targetType``, ``targetLogicalId``, ``targetModel``, and
``callerCredentials`` as a JSON text) and ``requestContext`` (``invocation``, ``callbackContext``).
No ``providerLogGroupName``: with it the library ships logs to CloudWatch. No region: a hook request
carries none, so the handler's environment must have ``AWS_REGION``.

``Shape.SAM``: the library's hook test event (``Hook.test_entrypoint``): ``credentials``,
``actionInvocationPoint``, ``request`` (``clientRequestToken`` and the hook context's fields),
``callbackContext``, ``typeConfiguration`` and ``region``; the library rejects any other key.

Lambda Hooks (a plain Lambda function CloudFormation calls with the same request, no
credentials) answer as the library's Lambda entrypoint does: ``hookStatus``. The library's test
entrypoint answers a ProgressEvent: ``status``. :func:`hook_status` reads either.
"""

from __future__ import annotations

import json
from typing import Any

from cfn_debug.credentials import PLACEHOLDER_CREDENTIALS
from cfn_debug.events import DEFAULT_ACCOUNT, DEFAULT_REGION, Shape
from cfn_debug.hooks.events import HookEventSpec

HOOK_TYPE_VERSION = "00000001"
STATUSES = ("SUCCESS", "FAILED", "IN_PROGRESS")


def stack_arn(region: str, account: str, name: str = "cfn-debug-hook-stack") -> str:
    suffix = "00000000-0000-0000-0000-000000000000"
    return f"arn:aws:cloudformation:{region}:{account}:stack/{name}/{suffix}"


def build_hook_payload(
    event: HookEventSpec,
    shape: Shape,
    *,
    hook_type_name: str,
    hook_model: dict[str, Any] | None,
    token: str,
    callback_context: dict[str, Any] | None,
    invocation: int,
    credentials: dict[str, str] | None = None,
    account: str = DEFAULT_ACCOUNT,
    region: str | None = None,
    lambda_hook: bool = False,
) -> dict[str, Any]:
    """The request of one invocation of ``event``, in ``shape`` (see the module docstring)."""
    creds = credentials or event.normalized.credentials or dict(PLACEHOLDER_CREDENTIALS)
    region = region or DEFAULT_REGION
    stack_id = event.stack_id or stack_arn(region, account)
    if shape is Shape.SAM:
        request: dict[str, Any] = {
            "clientRequestToken": token,
            "awsAccountId": account,
            "stackId": stack_id,
            "hookTypeName": hook_type_name,
            "hookTypeVersion": HOOK_TYPE_VERSION,
            "targetName": event.target_name,
            "targetType": event.target_type,
            "targetLogicalId": event.target_logical_id,
            "targetModel": event.target_model,
        }
        if event.change_set_id:
            request["changeSetId"] = event.change_set_id
        return {
            "credentials": creds,
            "actionInvocationPoint": event.point,
            "request": request,
            "callbackContext": callback_context,
            "typeConfiguration": hook_model or {},
            "region": region,
        }
    request_data: dict[str, Any] = {
        "targetName": event.target_name,
        "targetType": event.target_type,
        "targetLogicalId": event.target_logical_id,
        "targetModel": event.target_model,
    }
    if not lambda_hook:
        request_data["callerCredentials"] = json.dumps(creds)
    payload: dict[str, Any] = {
        "clientRequestToken": token,
        "awsAccountId": account,
        "stackId": stack_id,
        "hookTypeName": hook_type_name,
        "hookTypeVersion": HOOK_TYPE_VERSION,
        "hookModel": hook_model,
        "actionInvocationPoint": event.point,
        "requestData": request_data,
        "requestContext": {"invocation": invocation, "callbackContext": callback_context},
    }
    if event.change_set_id:
        payload["changeSetId"] = event.change_set_id
    return payload


def hook_status(progress: dict[str, Any] | None) -> str | None:
    """The status of a hook's answer: ``hookStatus`` (Lambda entrypoint, Lambda Hooks), else
    ``status`` (the library's test entrypoint)."""
    if not isinstance(progress, dict):
        return None
    value = progress.get("hookStatus", progress.get("status"))
    return value if isinstance(value, str) else None


def status_key(progress: dict[str, Any]) -> str:
    return "hookStatus" if "hookStatus" in progress else "status"
