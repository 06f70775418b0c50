"""A handler that returns the same large callbackContext at every IN_PROGRESS step (its size in
MB from the model's ContextMB, 5 by default), counting its steps in the model, until Steps."""


def handler(event, context):
    data = event.get("requestData") or {}
    model = dict(data.get("resourceProperties") or {})
    model["Id"] = "thing-1"
    n = int(model.get("N", 0))
    if n >= int(model.get("Steps", 100)):
        return {"status": "SUCCESS", "resourceModel": model}
    model["N"] = n + 1
    size = int(float(model.get("ContextMB", 5)) * 1024 * 1024)
    return {
        "status": "IN_PROGRESS",
        "resourceModel": model,
        "callbackContext": {"state": "c" * size, "kind": "replayed as is"},
        "callbackDelaySeconds": 0,
    }
