"""Handlers that start processes, or close and redirect their own output.

``handler`` reads its properties from the HandlerRequest's resourceProperties, else from the
event itself. Mode "spawn" starts three processes that sleep for minutes: one in the worker's
process group, one in a session of its own (setsid), and one whose parent called setsid and exited
(an orphan); their pids go into the message and, with PidFile, into that file. Hang (seconds) then
keeps the invocation busy; Steps > 0 answers IN_PROGRESS until that many steps are done.
"""

import json
import os
import subprocess
import sys
import time

ORPHAN = (
    "import os, subprocess, sys\n"
    "os.setsid()\n"
    "p = subprocess.Popen(['sleep', '300'], start_new_session=True,\n"
    "                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "print(p.pid, flush=True)\n"
)


def _props(event):
    data = event.get("requestData") or {}
    return dict(data.get("resourceProperties") or event)


def _count(event):
    context = event.get("callbackContext") or {}
    return int(context.get("n", 0)) if isinstance(context, dict) else 0


def spawn():
    group = subprocess.Popen(["sleep", "300"])
    session = subprocess.Popen(["sleep", "300"], start_new_session=True)
    middle = subprocess.run(
        [sys.executable, "-c", ORPHAN], capture_output=True, text=True, check=True
    )
    return [os.getpid(), group.pid, session.pid, int(middle.stdout.split()[0])]


def handler(event, context):
    props = _props(event)
    mode = props.get("Mode", "ok")
    n = _count(event)
    answer = {"status": "SUCCESS", "resourceModel": {"Id": "thing-1"}, "message": ""}
    if mode == "spawn" and n == 0:
        pids = spawn()
        if props.get("PidFile"):
            with open(props["PidFile"], "w", encoding="ascii") as handle:
                json.dump(pids, handle)
        answer["message"] = json.dumps(pids)
    if mode == "close_stdio":
        if n == 0 and not props.get("Again"):
            print("closing", flush=True)
            os.close(1)
            os.close(2)
        answer["message"] = str(os.getpid())
    if mode == "redirect_stdio":
        print("redirecting", flush=True)  # the second time, to /dev/null
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        print("this goes nowhere", flush=True)
        answer["message"] = str(os.getpid())
    time.sleep(float(props.get("Hang", 0)))
    if n < int(props.get("Steps", 0)):
        answer.update(status="IN_PROGRESS", callbackContext={"n": n + 1}, callbackDelaySeconds=0)
    return answer


def child_memory(event, context):
    """A child process that touches 400 MB and waits; the handler itself stays small."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import time\nb = b'z' * (400 << 20)\ntime.sleep(60)"]
    )
    print(f"child {child.pid}", flush=True)
    time.sleep(15)
    return {"status": "SUCCESS", "message": str(child.pid)}
