"""Plain Lambda handlers (HandlerRequest in, ProgressEvent-ish dict out) that misbehave on purpose.

The model's Mode picks the misbehaviour of ``handler``; the callbackContext counts invocations.
"""

import json
import logging
import os
import sys
import time

LOG = logging.getLogger(__name__)
LOG.setLevel(logging.INFO)


def _model(event):
    data = event.get("requestData") or {}
    model = data.get("resourceProperties") or {}
    return dict(model)


def _count(event):
    context = event.get("callbackContext") or {}
    return int(context.get("n", 0)) if isinstance(context, dict) else 0


def handler(event, context):
    model = _model(event)
    mode = model.get("Mode", "ok")
    n = _count(event)
    model["Id"] = model.get("Id") or "thing-1"
    print(f"hostile mode={mode} n={n}", flush=True)
    if mode == "ok":
        return {"status": "SUCCESS", "resourceModel": model, "message": ""}
    if mode == "big_body":
        model["Blob"] = "x" * (7 * 1024 * 1024)
        return {"status": "SUCCESS", "resourceModel": model}
    if mode == "wrong_types":
        return {
            "status": 7,
            "errorCode": ["NotFound"],
            "message": {"text": "not a string"},
            "callbackContext": "not an object",
            "callbackDelaySeconds": "ten",
            "resourceModel": ["not", "an", "object"],
            "resourceModels": {"not": "a list"},
            "nextToken": 12,
        }
    if mode == "unknown_status":
        return {"status": "DONE_ISH", "resourceModel": model}
    if mode in ("huge_delay", "negative_delay"):
        if n >= 1:
            return {"status": "SUCCESS", "resourceModel": model}
        delay = 10**9 if mode == "huge_delay" else -5
        return {
            "status": "IN_PROGRESS",
            "resourceModel": model,
            "callbackContext": {"n": n + 1},
            "callbackDelaySeconds": delay,
        }
    if mode == "forever":
        return {
            "status": "IN_PROGRESS",
            "resourceModel": model,
            "callbackContext": {"n": n + 1},
            "callbackDelaySeconds": 0,
        }
    if mode == "deep_model":
        deep = {}
        node = deep
        for _ in range(400):  # deep, but within what json.dumps in the runtime can write
            node["d"] = {}
            node = node["d"]
        model["Deep"] = deep
        return {"status": "SUCCESS", "resourceModel": model}
    if mode == "sleep":
        print("sleeping until killed", flush=True)
        time.sleep(float(model.get("SleepMs", 2500)) / 1000)
        return {"status": "SUCCESS", "resourceModel": model}
    if mode == "tagged":
        time.sleep(0.05)
        print(f"tag={model.get('Name')}", flush=True)
        return {"status": "SUCCESS", "resourceModel": model, "message": f"pid {os.getpid()}"}
    raise ValueError(f"unknown mode {mode!r}")


def flood(event, context):
    """Print FloodMB megabytes of numbered 1 KB lines, then answer."""
    model = _model(event)
    megabytes = int(model.get("FloodMB", 1))
    line = "y" * 1000
    out = sys.stdout
    for i in range(megabytes * 1024):
        out.write(f"{i:08d} {line}\n")
    print("flood done", flush=True)
    model["Id"] = model.get("Id") or "thing-1"
    return {"status": "SUCCESS", "resourceModel": model}


def long_chain(event, context):
    """IN_PROGRESS for Steps invocations, sleeping SleepMs in each, then SUCCESS."""
    model = _model(event)
    n = _count(event)
    model["Id"] = model.get("Id") or "thing-1"
    print(f"chain {model.get('Name')} n={n}", flush=True)
    time.sleep(int(model.get("SleepMs", 50)) / 1000)
    if n < int(model.get("Steps", 1000)):
        return {
            "status": "IN_PROGRESS",
            "resourceModel": model,
            "callbackContext": {"n": n + 1},
            "callbackDelaySeconds": 0,
        }
    return {"status": "SUCCESS", "resourceModel": model}


def log_event(event, context):
    """Log the whole event three ways (print, logging, json) then echo the model back."""
    print(event, flush=True)
    LOG.info("event: %s", json.dumps(event))
    sys.stderr.write(json.dumps(event, indent=2) + "\n")
    credentials = (event.get("requestData") or {}).get("callerCredentials") or {}
    for value in credentials.values():  # values alone, without their key beside them
        print(f"using {value}", flush=True)
    model = _model(event)
    model["Id"] = model.get("Id") or "thing-1"
    return {"status": "SUCCESS", "resourceModel": model, "message": ""}


def leak(event, context):
    """Keep allocating (and touching) memory until the process is stopped."""
    hoard = []
    print("leaking", flush=True)
    for _ in range(100):  # 800 MB at most: far past 128 MB, harmless to the test machine
        hoard.append(bytearray(b"z" * (8 * 1024 * 1024)))
        time.sleep(0.01)
    return {"status": "SUCCESS", "resourceModel": _model(event), "held_mb": len(hoard) * 8}
