"""`cfn-debug scenario all --local-aws`: process start to the first handler invocation (the local
AWS started and the project's setup stack deployed on the way), DESIGN.md section 7.

The CLI's own output is read line by line as it appears: the figure for each milestone is the
time from just before the process is spawned to the line that announces it (moto listening, the
setup stack ready, the first run header, printed just before the first invoke, and the first
step's answer). The project is the DynamoDB fixture type of the tests (tests/aws/projects).
Run:
    python bench/local_aws.py [--runs N] [--project DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROJECT = REPO / "tests" / "aws" / "projects" / "table-note"
MILESTONES = {
    "local AWS listening": lambda line: "local AWS listening at" in line,
    "setup stack ready": lambda line: "ready:" in line and "export(s)" in line,
    "first invocation": lambda line: line.startswith("▶"),
    "first answer": lambda line: line.lstrip().startswith("#0 "),
}


def one_run(project: Path) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(NO_COLOR="1", COLUMNS="200", PYTHONUNBUFFERED="1")
    command = [sys.executable, "-m", "cfn_debug.cli", "scenario", "all", "--local-aws"]
    command += ["--project", str(project), "--examples", "1"]
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=REPO
    )
    seen: dict[str, float] = {}
    assert process.stdout is not None
    for line in process.stdout:
        for name, matches in MILESTONES.items():
            if name not in seen and matches(line):
                seen[name] = time.perf_counter() - started
        if len(seen) == len(MILESTONES):
            break
    process.kill()  # the rest of the scenarios is not what is measured
    process.wait()
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--project", type=Path, default=PROJECT)
    args = parser.parse_args()
    runs = [one_run(args.project) for _ in range(args.runs)]
    complete = [run for run in runs if len(run) == len(MILESTONES)]
    if not complete:
        sys.exit(f"no run reached its first invocation: {runs}")
    print(
        f"cfn-debug scenario all --local-aws on {args.project.name}, from process start "
        f"(median / max over {len(complete)} runs):"
    )
    for name in MILESTONES:
        figures = [run[name] for run in complete]
        print(f"  {name:<22} {statistics.median(figures):6.2f} s / {max(figures):6.2f} s")
    print("(the per-call overhead of recording AWS calls is measured by the aws-calls bench)")


if __name__ == "__main__":
    main()
