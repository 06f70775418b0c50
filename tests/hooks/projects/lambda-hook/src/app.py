"""A Lambda Hook: a plain Lambda function with the Lambda Hooks request and answer (no library).
Its hookModel says which fault to plant (cfn-debug's tests): Fault=ServerError answers an error
code Lambda Hooks do not know, Fault=Forever answers IN_PROGRESS every time."""

import json

FOUR_DAYS = 4 * 24 * 3600


def _answer(request, status, message="", code=None, context=None):
    answer = {
        "hookStatus": status,
        "message": message,
        "clientRequestToken": request.get("clientRequestToken"),
        "callbackDelaySeconds": 0,
    }
    if code:
        answer["errorCode"] = code
    if context is not None:
        answer["callbackContext"] = context
    return answer


def handler(event, context):
    fault = (event.get("hookModel") or {}).get("Fault")
    data = event["requestData"]
    if fault == "Forever":
        return _answer(event, "IN_PROGRESS", context={"n": 1})
    if data["targetName"] == "STACK":
        template = json.loads((data.get("targetModel") or {}).get("template") or "{}")
        if template.get("Description"):
            return _answer(event, "SUCCESS", "the stack is described")
        return _answer(event, "FAILED", "the template has no Description", "NonCompliant")
    properties = (data.get("targetModel") or {}).get("resourceProperties") or {}
    retention = int(properties.get("MessageRetentionPeriod", 345600))
    if retention <= FOUR_DAYS:
        return _answer(event, "SUCCESS", "retention is at most 4 days")
    code = "ServerError" if fault == "ServerError" else "NonCompliant"
    return _answer(event, "FAILED", f"MessageRetentionPeriod {retention} is over 4 days", code)
