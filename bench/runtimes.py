"""Runtimes of the embedded endpoint, side by side (DESIGN.md sections 7 and 10).

Run: /work/venv/bin/python bench/runtimes.py [--invokes N] [--colds N] [--no-build]

For each runtime whose toolchain is here, a trivial echo handler (its project written to a temp
directory) on the embedded endpoint: warm invoke latency (median and p95 of N invokes after a
warm-up, one keep-alive connection) and cold start (a fresh worker's first answer after the warm
workers are replaced), each beside Python's in the same run, with its ratio to Python's (target
for Node and provided: warm within 1.2x). The runtimes' endpoints are up together and invoked in
turns, so a change of load falls on all alike; the load average is printed before and after.
Then the Node first-invocation build costs, measured on the ts-note fixture copied to a temp
directory: `npm run build` alone (tsc, dist/ missing) and
`npm ci` + build (node_modules missing too; npm's own download cache as it is), and the Go
build of the go-note fixture (Go's own build cache as it is). The provided echo is a Go binary
speaking the Runtime API as aws-lambda-go does; the Java echo runs one JVM per invoke (the Java
plugin's executable mode), so its row also says how much of each invoke was the JVM's start.

To add a runtime: write a function that creates its echo project in a directory and returns the
function name (see ``python_echo``), and add it to ECHOES with the check that its toolchain is
here.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
TS_NOTE = REPO / "tests" / "runtimes" / "projects" / "ts-note"
WARM_TARGET = 1.2
#: The runtimes the 1.2x warm target is for (DESIGN.md section 7): Java starts a JVM per invoke.
TARGETED = ("node", "provided")

from cfn_debug.endpoint.server import EmbeddedEndpoint  # noqa: E402

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


GO_NOTE = REPO / "tests" / "runtimes" / "projects" / "go-note"
GO_ECHO = """\
package main

import (
	"context"

	"echo/internal/lambda"
)

func main() {
	lambda.Start(func(ctx context.Context, payload []byte) ([]byte, error) { return payload, nil })
}
"""
JAVA_ECHO = """\
public class Echo {
    public static void main(String[] args) {
        System.out.println("__CFN_RESOURCE_START_RESPONSE__");
        System.out.println(args[0]);
        System.out.println("__CFN_RESOURCE_END_RESPONSE__");
    }
}
"""


def go_echo(root: Path) -> str:
    """A Go echo speaking the Runtime API as aws-lambda-go does (go-note's internal/lambda),
    built by the runtime on the first invocation (measured apart: "first")."""
    (root / "cmd").mkdir(parents=True)
    shutil.copytree(GO_NOTE / "internal" / "lambda", root / "internal" / "lambda")
    (root / "go.mod").write_text("module echo\n\ngo 1.19\n")
    (root / "cmd" / "main.go").write_text(GO_ECHO)
    template = TEMPLATE.format(handler="bootstrap", runtime="provided.al2")
    (root / "template.yml").write_text(template.replace("CodeUri: src/", "CodeUri: bin/"))
    return "Echo"


def java_echo(root: Path) -> str:
    """A Java executable entry point that prints its argument between the response markers."""
    (root / "src").mkdir(parents=True)
    (root / "target" / "classes").mkdir(parents=True)
    (root / "src" / "Echo.java").write_text(JAVA_ECHO)
    subprocess.run(
        ["javac", "-d", str(root / "target" / "classes"), str(root / "src" / "Echo.java")],
        check=True,
    )
    jar = root / "target" / "echo.jar"
    subprocess.run(["jar", "cf", str(jar), "-C", str(root / "target" / "classes"), "."], check=True)
    (root / ".rpdk-config").write_text(
        json.dumps({"language": "java", "executableEntrypoint": "Echo"})
    )
    template = TEMPLATE.format(handler="Echo::handleRequest", runtime="java17")
    (root / "template.yml").write_text(
        template.replace("CodeUri: src/", "CodeUri: target/echo.jar")
    )
    return "Echo"


#: runtime label -> (is its toolchain here, project writer)
ECHOES: dict[str, tuple[Callable[[], bool], Callable[[Path], str]]] = {
    "python": (lambda: True, python_echo),
    "node": (lambda: shutil.which("node") is not None, node_echo),
    "provided": (lambda: shutil.which("go") is not None, go_echo),
    "java": (lambda: None not in (shutil.which("javac"), shutil.which("jar")), java_echo),
}


def _path(function: str) -> str:
    return f"/2015-03-31/functions/{function}/invocations"


def _median_p95(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.95) - 1]


class Echo:
    """One runtime's echo on its own embedded endpoint, with the times of its invokes."""

    def __init__(self, label: str, root: Path, writer: Callable[[Path], str]) -> None:
        self.label = label
        self.function = writer(root)
        self.endpoint = EmbeddedEndpoint(root)
        self.client: httpx.Client | None = None
        self.warm: list[float] = []
        self.cold: list[float] = []
        self.starts: list[float] = []
        self.first = 0.0

    def open(self) -> None:
        self.endpoint.__enter__()
        self.client = httpx.Client(base_url=self.endpoint.url)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        self.endpoint.__exit__(None, None, None)

    def once(self) -> float:
        assert self.client is not None
        started = time.perf_counter()
        answer = self.client.post(_path(self.function), content=BODY)
        took = (time.perf_counter() - started) * 1000
        if answer.status_code != 200 or answer.headers.get("x-amz-function-error"):
            raise SystemExit(f"{self.label}: the echo failed: {answer.text[:300]}")
        start = answer.headers.get("x-cfn-debug-runtime-start-ms")
        if start is not None:  # the Java runtime's JVM, started for this invoke
            self.starts.append(float(start))
        return took

    def row(self) -> dict:
        return {
            "label": self.label,
            "first": self.first,
            "warm": _median_p95(self.warm),
            "cold": _median_p95(self.cold),
            "runtime_start": _median_p95(self.starts) if self.starts else None,
        }


BODY = json.dumps({"tag": "bench"}).encode()
#: Java starts a JVM per invoke: it takes one invoke in this many rounds.
JAVA_EVERY = 5


def measure(writers: dict[str, Callable[[Path], str]], invokes: int, colds: int) -> list[dict]:
    """Every runtime's echo served at once and invoked in turns (the order rotated each round),
    so a change of the machine's load falls on all of them alike and the ratios hold."""
    with tempfile.TemporaryDirectory(prefix="cfn-debug-bench-runtimes-") as temp:
        echoes = []
        for label, writer in writers.items():
            root = Path(temp) / label
            root.mkdir()
            echoes.append(Echo(label, root, writer))
        try:
            for echo in echoes:
                echo.open()
                echo.first = echo.once()
            for echo in echoes:
                for _ in range(20):
                    echo.once()
            for turn in range(invokes):
                shift = turn % len(echoes)
                for echo in echoes[shift:] + echoes[:shift]:
                    if echo.label == "java" and turn % JAVA_EVERY:
                        continue
                    echo.warm.append(echo.once())
            for _ in range(colds):
                for echo in echoes:
                    echo.endpoint.restart_workers()
                    echo.cold.append(echo.once())
        finally:
            for echo in echoes:
                echo.close()
    return [echo.row() for echo in echoes]


def load() -> str:
    return "load " + " ".join(f"{one:.2f}" for one in os.getloadavg())


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


def go_build_costs() -> dict[str, float] | None:
    """Seconds of the Go runtime's build of the go-note fixture (go build into cfn-debug's
    cache; Go's own build cache as it is) and of the check that finds it fresh."""
    if shutil.which("go") is None:
        return None
    from cfn_debug.endpoint.runtimes import RuntimeOptions, runtime_for
    from cfn_debug.endpoint.template import load_functions

    costs: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="cfn-debug-bench-go-") as temp:
        project = Path(temp) / "go-note"
        shutil.copytree(GO_NOTE, project)
        runtime = runtime_for(
            next(iter(load_functions(project).values())), project, RuntimeOptions()
        )
        runtime.check()
        started = time.perf_counter()
        runtime.prepare()
        costs["go build"] = time.perf_counter() - started
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
    writers = {}
    for label, (present, writer) in ECHOES.items():
        if not present():
            print(f"{label:<10} skipped: its toolchain is not installed")
            continue
        writers[label] = writer
    before = load()
    rows = measure(writers, args.invokes, args.colds)
    python = next(row for row in rows if row["label"] == "python")
    print(
        f"\nwarm invoke, trivial echo, {args.invokes} invokes in turns (java every "
        f"{JAVA_EVERY}th); cold: {args.colds} fresh workers; {before} before, {load()} after"
    )
    print(
        f"{'runtime':<10} {'warm median':>12} {'warm p95':>10} {'vs python':>10} "
        f"{'cold median':>12} {'cold p95':>10} {'first (ms)':>11}"
    )
    for row in rows:
        ratio = row["warm"][0] / python["warm"][0]
        targeted = row["label"] in TARGETED
        mark = "" if not targeted else (" ok" if ratio <= WARM_TARGET else " OVER")
        print(
            f"{row['label']:<10} {row['warm'][0]:>9.3f} ms {row['warm'][1]:>7.3f} ms "
            f"{ratio:>9.2f}x{mark:<4} {row['cold'][0]:>9.1f} ms {row['cold'][1]:>7.1f} ms "
            f"{row['first']:>11.1f}"
        )
    for row in rows:
        if row["runtime_start"] is not None:
            median, p95 = row["runtime_start"]
            print(
                f"\n{row['label']}: the JVM's start per invoke (not counted against the 60 s): "
                f"median {median:.1f} ms, p95 {p95:.1f} ms, of the {row['warm'][0]:.1f} ms invoke"
            )
    if not args.no_build:
        costs = node_build_costs()
        if costs is None:
            print("\nnode build: skipped (node and npm are not both installed)")
        else:
            print("\nnode first invocation of the TypeScript fixture (ts-note), build costs:")
            for name, seconds in costs.items():
                print(f"  {name:<14} {seconds:>7.2f} s")
        costs = go_build_costs()
        if costs is not None:
            print("\nprovided first invocation of the Go fixture (go-note), build costs:")
            for name, seconds in costs.items():
                print(f"  {name:<14} {seconds:>7.2f} s")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
