"""sam-style test events as the CloudFormation HandlerRequest, for runtimes without a test entry
point.

The Go plugin (its one ``bootstrap`` serves both TypeFunction and TestEntrypoint) and the Java
plugin's executable entry point take only the HandlerRequest: the one a sam-style event stands
for is built here, as CloudFormation would send it (the event's ``clientRequestToken`` is its
``bearerToken``, which the Go plugin requires). A body that is not a sam-style event (a
HandlerRequest already, or anything else) is passed on untouched: the handler's own library
says what it makes of it.
"""

from __future__ import annotations

import json
from typing import Any


def is_sam_event(data: Any) -> bool:
    """A sam-style test event: an object with ``action`` and a ``request`` object, and no
    ``requestData`` (the HandlerRequest's)."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("request"), dict)
        and "action" in data
        and "requestData" not in data
    )


def _drop_none(mapping: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in mapping.items() if value is not None}


def handler_request(event: dict[str, Any], type_name: str | None = None) -> dict[str, Any]:
    """The HandlerRequest a sam-style ``event`` stands for. Provider credentials and log group
    are left out, as cfn-debug's own HandlerRequests leave them out (with them the libraries
    ship logs and metrics to CloudWatch)."""
    request = event["request"]
    desired = request.get("desiredResourceState")
    region = request.get("region") or event.get("region")
    request_data = _drop_none(
        {
            "callerCredentials": event.get("credentials"),
            "resourceProperties": desired if desired is not None else {},
            "previousResourceProperties": request.get("previousResourceState"),
            "logicalResourceId": request.get("logicalResourceIdentifier"),
            "typeConfiguration": request.get("typeConfiguration"),
            "stackTags": request.get("desiredResourceTags"),
            "previousStackTags": request.get("previousResourceTags"),
            "systemTags": request.get("systemTags"),
            "previousSystemTags": request.get("previousSystemTags"),
        }
    )
    return _drop_none(
        {
            "action": event.get("action"),
            "awsAccountId": request.get("awsAccountId"),
            "bearerToken": request.get("clientRequestToken"),
            "region": region,
            "resourceType": type_name,
            "stackId": request.get("stackId"),
            "callbackContext": event.get("callbackContext"),
            "nextToken": request.get("nextToken"),
            "requestData": request_data,
        }
    )


def as_handler_request(body: bytes, type_name: str | None = None) -> bytes:
    """``body`` as a HandlerRequest when it is a sam-style event, else ``body`` unchanged."""
    if b'"request"' not in body:  # cheap: a HandlerRequest never names a "request" member
        return body
    try:
        data = json.loads(body)
    except ValueError:
        return body
    if not is_sam_event(data):
        return body
    return json.dumps(handler_request(data, type_name), ensure_ascii=False).encode("utf-8")


class RequestRefused(Exception):
    """A request the runtime cannot pass to the handler: the endpoint answers it with an HTTP
    error (``status``, ``error_type`` as x-amzn-errortype), as Lambda refuses a payload."""

    def __init__(self, status: int, error_type: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type
        self.message = message
