"""A long-lived process (the dashboard, a long `scenario` run) diffs one large model after another:
what the engine keeps across steps must not grow with the session. The diff keeps the last few
long arrays' fingerprints across steps (module-level, so they outlive every run); twenty distinct
models of 200,000 short strings in an insertionOrder-false array, each diffed against a shuffled
copy, must leave the process about where the first left it.

Measured in a fresh process (its own VmRSS, nothing of this pytest process's), after glibc's
malloc_trim: what the process holds, not what the allocator has yet to give back."""

from __future__ import annotations

import subprocess
import sys

import pytest

from reliability.support import REPO, child_env

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

_SESSION = """
import ctypes, gc, random, sys
from cfn_debug.diff import diff_models
from cfn_debug.schema import ResourceSchema

def rss_mb():
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(l.split()[1]) for l in status if l.startswith("VmRSS:")) / 1024

trim = ctypes.CDLL(None).malloc_trim
schema = ResourceSchema({
    "typeName": "Reliability::Long::Session",
    "description": "An insertionOrder false array of strings.",
    "additionalProperties": False,
    "primaryIdentifier": ["/properties/Name"],
    "properties": {
        "Name": {"type": "string"},
        "Items": {"type": "array", "insertionOrder": False, "items": {"type": "string"}},
    },
})
shuffle = random.Random(7).shuffle
for model in range(int(sys.argv[1])):
    items = [f"model-{model}-item-{i}" for i in range(200_000)]
    after = list(items)
    shuffle(after)
    after[0] = "changed"
    changes = diff_models({"Name": "n", "Items": items}, {"Name": "n", "Items": after}, schema)
    assert len(changes) == 2, changes
    del items, after, changes
    gc.collect()
    trim()  # what the process keeps, not what glibc has yet to give back
    print("rss", model, round(rss_mb()), flush=True)
"""


def test_twenty_large_models_through_one_process_leave_memory_bounded() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _SESSION, "20"],
        capture_output=True, text=True, env=child_env(), cwd=REPO, timeout=280,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    rss = [int(line.split()[2]) for line in proc.stdout.splitlines() if line.startswith("rss")]
    assert len(rss) == 20, proc.stdout
    # Kept across models: what the diff's byte bound allows (+30 MB measured after the first
    # model), not its last eight arrays whatever their size (+165 MB at this size, and it scales
    # with the model: ~500 MB for 250,000 strings of 20 characters).
    assert rss[-1] - rss[0] < 80, f"RSS after each model (MB): {rss}"
