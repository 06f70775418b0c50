"""`cfn-debug scenario all`: wall time of the whole suite, process start to exit, against the
targets of DESIGN.md section 7:

- ``scenario all --local-aws`` on the DynamoDB fixture type (tests/aws/projects/table-note),
  the local AWS's start and the setup stack included: under 5 s;
- ``scenario all --max-delay 0`` on the bundled demo: under 3 s.

Each command runs ``--runs`` times (default 3); the median and the range are printed with the
machine's load average, the exit code of each run (0 expected: the demo runs in a fresh state
directory each time, with its seed widgets only) and the median CPU time of the command's
process tree (user + system of the processes it waited for: a figure a busy shared machine
moves less than the wall time).
Run:
    python bench/scenarios.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TABLE_NOTE = REPO / "tests" / "aws" / "projects" / "table-note"
CASES = (
    ("table-note, --local-aws", ["--local-aws", "--project", str(TABLE_NOTE)], 5.0),
    ("demo, --max-delay 0", ["--max-delay", "0"], 3.0),
)


def one_run(extra: list[str]) -> tuple[float, float, int]:
    """(wall s, CPU s of the process tree, exit code) of one command."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(NO_COLOR="1", COLUMNS="200")
    command = [sys.executable, "-m", "cfn_debug.cli", "scenario", "all", *extra, "--json"]
    with tempfile.TemporaryDirectory(prefix="cfn-debug-bench-") as state:
        # the demo's store: a fresh one per run (the shared default keeps other runs' widgets)
        env["CFN_DEBUG_DEMO_STATE"] = state
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.run(
            command, capture_output=True, text=True, env=env, cwd=REPO, check=False
        )
        wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for label, extra, target in CASES:
        walls, cpus, codes = [], [], []
        for _ in range(args.runs):
            wall, cpu, code = one_run(extra)
            walls.append(wall)
            cpus.append(cpu)
            codes.append(code)
        load = os.getloadavg()[0]
        median = statistics.median(walls)
        verdict = "under" if median < target else "OVER"
        print(
            f"scenario all, {label}: median {median:.2f} s (range {min(walls):.2f}-"
            f"{max(walls):.2f} s, {args.runs} runs, exit {sorted(set(codes))}), target < "
            f"{target:.0f} s: {verdict}; CPU {statistics.median(cpus):.2f} s; load {load:.1f}, "
            f"{os.cpu_count()} cores"
        )


if __name__ == "__main__":
    main()
