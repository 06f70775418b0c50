"""Runtimes of the embedded endpoint, side by side (DESIGN.md sections 7 and 10).

Run: /work/venv/bin/python bench/runtimes.py [--invokes N] [--colds N] [--no-build]

For each runtime whose toolchain is here, a trivial echo handler (its project written to a temp
directory) on the embedded endpoint: warm invoke latency (median and p95 of N invokes after a
warm-up, one keep-alive connection) and cold start (a fresh worker's first answer after the warm
workers are replaced), each beside Python's in the same run, with its ratio to Python's (target
for Node and provided: warm within 1.2x). Then the Node first-invocation build costs, measured on
the ts-note fixture copied to a temp directory: `npm run build` alone (tsc, dist/ missing) and
`npm ci` + build (node_modules missing too; npm's own download cache as it is).

To add a runtime: write a function that creates its echo project in a directory and returns the
function name (see ``python_echo``), and add it to ECHOES with the check that its toolchain is
here.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
TS_NOTE = REPO / "tests" / "runtimes" / "projects" / "ts-note"
WARM_TARGET = 1.2

from cfn_debug.endpoint import EmbeddedEndpoint  # noqa: E402

TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Resources:
  Echo:
    Type: AWS::Serverless::Function
    Properties:
      Handler: {handler}
      Runtime: {runtime}
      CodeUri: src/
      Timeout: 30
"""


def python_echo(root: Path) -> str:
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def handler(event, context):\n    return event\n")
    (root / "template.yml").write_text(TEMPLATE.format(handler="app.handler", runtime="python3.11"))
    return "Echo"


def node_echo(root: Path) -> str:
    (root / "src").mkdir(parents=True)
    (root / "src" / "index.js").write_text("exports.handler = async (event) => event;\n")
    (root / "template.yml").write_text(
        TEMPLATE.format(handler="index.handler", runtime="nodejs20.x")
    )
    return "Echo"


#: runtime label -> (is its toolchain here, project writer)
ECHOES: dict[str, tuple[Callable[[], bool], Callable[[Path], str]]] = {
    "python": (lambda: True, python_echo),
    "node": (lambda: shutil.which("node") is not None, node_echo),
}


def _path(function: str) -> str:
    return f"/2015-03-31/functions/{function}/invocations"


def _median_p95(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.95) - 1]


def measure(label: str, writer: Callable[[Path], str], invokes: int, colds: int) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"cfn-debug-bench-{label}-") as temp:
        root = Path(temp)
        function = writer(root)
        body = json.dumps({"tag": "bench"}).encode()
        with EmbeddedEndpoint(root) as endpoint, httpx.Client(base_url=endpoint.url) as client:

            def once() -> float:
                started = time.perf_counter()
                answer = client.post(_path(function), content=body)
                took = (time.perf_counter() - started) * 1000
                if answer.status_code != 200 or answer.headers.get("x-amz-function-error"):
                    raise SystemExit(f"{label}: the echo failed: {answer.text[:300]}")
                return took

            first = once()
            for _ in range(20):
                once()
            warm = [once() for _ in range(invokes)]
            cold = []
            for _ in range(colds):
                endpoint.restart_workers()
                cold.append(once())
    return {"label": label, "first": first, "warm": _median_p95(warm), "cold": _median_p95(cold)}


def node_build_costs() -> dict[str, float] | None:
    """Seconds of `npm run build` alone and of `npm ci` + build on the ts-note fixture."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return None
    from cfn_debug.endpoint.runtimes import RuntimeOptions, runtime_for
    from cfn_debug.endpoint.template import load_functions

    costs: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="cfn-debug-bench-ts-") as temp:
        project = Path(temp) / "ts-note"
        shutil.copytree(TS_NOTE, project, ignore=shutil.ignore_patterns("node_modules", "dist"))
        spec = next(iter(load_functions(project).values()))
        runtime = runtime_for(spec, project, RuntimeOptions())
        runtime.check()
        started = time.perf_counter()
        runtime.prepare()
        costs["install+build"] = time.perf_counter() - started
        shutil.rmtree(project / "dist")
        started = time.perf_counter()
        runtime.prepare()
        costs["build"] = time.perf_counter() - started
        started = time.perf_counter()
        runtime.prepare()
        costs["fresh check"] = time.perf_counter() - started
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--invokes", type=int, default=300)
    parser.add_argument("--colds", type=int, default=10)
    parser.add_argument("--no-build", action="store_true", help="skip the Node build costs")
    args = parser.parse_args()
    rows = []
    for label, (present, writer) in ECHOES.items():
        if not present():
            print(f"{label:<10} skipped: its toolchain is not installed")
            continue
        rows.append(measure(label, writer, args.invokes, args.colds))
    python = next(row for row in rows if row["label"] == "python")
    print(f"\nwarm invoke, trivial echo, {args.invokes} invokes; cold: {args.colds} fresh workers")
    print(
        f"{'runtime':<10} {'warm median':>12} {'warm p95':>10} {'vs python':>10} "
        f"{'cold median':>12} {'cold p95':>10} {'first (ms)':>11}"
    )
    for row in rows:
        ratio = row["warm"][0] / python["warm"][0]
        mark = "" if row is python else (" ok" if ratio <= WARM_TARGET else " OVER")
        print(
            f"{row['label']:<10} {row['warm'][0]:>9.3f} ms {row['warm'][1]:>7.3f} ms "
            f"{ratio:>9.2f}x{mark:<4} {row['cold'][0]:>9.1f} ms {row['cold'][1]:>7.1f} ms "
            f"{row['first']:>11.1f}"
        )
    if not args.no_build:
        costs = node_build_costs()
        if costs is None:
            print("\nnode build: skipped (node and npm are not both installed)")
        else:
            print("\nnode first invocation of the TypeScript fixture (ts-note), build costs:")
            for name, seconds in costs.items():
                print(f"  {name:<14} {seconds:>7.2f} s")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
