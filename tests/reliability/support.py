"""Shared pieces of the reliability tests: the hostile project, events, chains, processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cfn_debug.chain import ChainControl, ChainOptions, run_chain
from cfn_debug.events import EventSpec, Shape, parse_event
from cfn_debug.records import ChainEvent, RunEnded, RunRecord
from support.ports import free_port as free_port  # the helpers of these tests, in one import

REPO = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).parent / "projects" / "hostile"

# Recognisable credentials: none of them may ever be written anywhere by cfn-debug.
ACCESS_KEY_ID = "AKIARELIABILITY0TEST"  # AKIA + 16
SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYRELIABLE01"  # 40 characters
SESSION_TOKEN = "IQoJb3JpZ2luX2VjEReliabilitySessionTokenQWERTY0123456789abcdef"
CREDENTIALS = {
    "accessKeyId": ACCESS_KEY_ID,
    "secretAccessKey": SECRET_ACCESS_KEY,
    "sessionToken": SESSION_TOKEN,
}
SECRETS = (ACCESS_KEY_ID, SECRET_ACCESS_KEY, SESSION_TOKEN)
#: The writeOnly Password of the fixture schema: only where --reveal-write-only is given.
WRITE_ONLY_VALUE = "hunter2-write-only-RELIABILITY-value"

assert len(ACCESS_KEY_ID) == 20 and len(SECRET_ACCESS_KEY) == 40


def sam_event(name: str = "event", action: str = "CREATE", **model: Any) -> dict[str, Any]:
    """A sam-style event carrying the recognisable credentials and ``model`` as desired state."""
    return {
        "credentials": dict(CREDENTIALS),
        "action": action,
        "request": {
            "clientRequestToken": f"token-{name}",
            "desiredResourceState": model,
            "logicalResourceIdentifier": "Thing",
        },
        "callbackContext": None,
    }


def event_spec(name: str, **model: Any) -> EventSpec:
    return parse_event(sam_event(name, **model), name=name)


async def run_events(
    invoker: Any,
    event: EventSpec,
    function_name: str,
    *,
    schema: Any = None,
    options: ChainOptions | None = None,
    control: ChainControl | None = None,
    on_event: Callable[[ChainEvent], None] | None = None,
) -> tuple[RunRecord, list[ChainEvent]]:
    """Run one chain to its end; the RunRecord and every event it streamed."""
    seen: list[ChainEvent] = []
    run: RunRecord | None = None
    async for chain_event in run_chain(
        invoker,
        event,
        function_name=function_name,
        shape=Shape.HANDLER_REQUEST,
        schema=schema,
        options=options or ChainOptions(max_reinvoke=5, max_delay_s=0),
        control=control,
    ):
        seen.append(chain_event)
        if on_event is not None:
            on_event(chain_event)
        if isinstance(chain_event, RunEnded):
            run = chain_event.run
    assert run is not None
    return run, seen


def child_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "NO_COLOR": "1", "COLUMNS": "120", **extra}


def wait_for(predicate: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.02)


def rss_kb(pid: int, field: str = "VmRSS") -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} for pid {pid}")


def children_of(pid: int) -> set[int]:
    """Every live process whose parent is ``pid`` (Linux /proc)."""
    found: set[int] = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def stop(proc: subprocess.Popen[Any], sig: int = signal.SIGINT, timeout: float = 10) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


#: ``python -c CLI_WITH_PEAK_RSS args...``: ``cfn-debug args...``, then the process's own peak
#: resident memory on stderr ("VmHWM: N kB"). Not ``ru_maxrss``: on Linux a child started by
#: fork or vfork and exec keeps its parent's high-water mark in ``ru_maxrss`` (exec records the
#: old address space's peak in the process's signal struct), so a child of a pytest process that
#: once reached 600 MB reports at least 600 MB however little it uses. VmHWM is the peak of the
#: address space exec made, this program's alone.
CLI_WITH_PEAK_RSS = """
import sys
from cfn_debug import cli
code = 2
try:
    code = cli.main(sys.argv[1:])
finally:
    with open("/proc/self/status", encoding="ascii") as status:
        print(next(line for line in status if line.startswith("VmHWM:")), file=sys.stderr)
sys.exit(code)
"""


def peak_rss_mb(stderr: str) -> float:
    """The peak a ``CLI_WITH_PEAK_RSS`` child printed, in MB."""
    return int(stderr.rsplit("VmHWM:", 1)[1].split()[0]) / 1024
