"""Tiny Lambda handlers, one per endpoint behaviour under test."""

import logging
import os
import sys
import time

LOG = logging.getLogger(__name__)
LOG.setLevel(logging.INFO)


def echo(event, context):
    print(f"echo {event.get('tag', '')}")
    return event


def crash(event, context):
    print("about to fail")
    raise ValueError(f"boom {event.get('tag', '')}")


def sleep_past_timeout(event, context):
    if not event.get("sleep"):
        return {"pid": os.getpid()}
    print("going to sleep", flush=True)
    time.sleep(30)
    return {"woke": True}


def environment(event, context):
    return {
        "env": dict(os.environ),
        "sys_path_0": sys.path[0],
        "cwd": os.getcwd(),
        "pid": os.getpid(),
        "bootstrap": "awslambdaric" if "awslambdaric" in sys.modules else "portable",
        "context": {
            "aws_request_id": context.aws_request_id,
            "function_name": context.function_name,
            "memory_limit_in_mb": str(context.memory_limit_in_mb),
            "invoked_function_arn": context.invoked_function_arn,
            "remaining_ms": context.get_remaining_time_in_millis(),
        },
    }


def chatty(event, context):
    """Write through every channel; the last line goes out right before returning."""
    tag = event.get("tag", "")
    lines = int(event.get("lines", 3))
    pause = float(event.get("pause", 0))
    for i in range(lines):
        print(f"{tag} stdout {i}")
        time.sleep(pause)
    sys.stderr.write(f"{tag} stderr\n")
    LOG.info("%s logging", tag)
    os.write(1, f"{tag} raw fd\n".encode())
    big = int(event.get("bytes", 0))
    if big:
        chunk = "x" * 1023 + "\n"
        for _ in range(big // 1024):
            sys.stdout.write(chunk)
    sys.stdout.write(f"{tag} last line, no newline")
    return {"tag": tag}


def exit_process(event, context):
    print("exiting hard")
    sys.stdout.flush()
    os._exit(3)
