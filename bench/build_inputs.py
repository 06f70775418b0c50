"""The cost of a Node worker's staleness checks on a project with many files.

Run: /work/venv/bin/python bench/build_inputs.py [--files N] [--rounds R]

A TypeScript-shaped project is written to a temp directory: N files under src/ and N under dist/
(100 a directory), a package.json with a build script, a tsconfig.json, dist/ newer than src/.
Printed, as a median of R rounds:

- ``_needs_build`` + ``_needs_install``: what every worker start runs (runtime.prepare) to tell
  whether the project needs building (it signs src/, dist/ and the build files);
- the build files' signature the pool takes before every invocation (FunctionPool._look: the
  sources themselves are watched by inotify, see endpoint/sourcewatch).
Nothing is built: the build script is never run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tui"))

from cfn_debug.endpoint.runtimes import RuntimeOptions  # noqa: E402
from cfn_debug.endpoint.runtimes.base import signature  # noqa: E402
from cfn_debug.endpoint.runtimes.node import NodeRuntime  # noqa: E402
from cfn_debug.endpoint.template import FunctionSpec  # noqa: E402


def write_project(root: Path, files: int) -> None:
    for top in ("src", "dist"):
        for index in range(files):
            folder = root / top / f"d{index // 100}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"f{index}.ts").write_text("export {};\n")
    (root / "dist" / "handlers.js").write_text("exports.entrypoint = () => null;\n")
    (root / "package.json").write_text(json.dumps({"scripts": {"build": "tsc"}}))
    (root / "tsconfig.json").write_text("{}\n")
    old = time.time_ns() - 3600 * 10**9
    for path in [*root.joinpath("src").rglob("*"), root / "package.json", root / "tsconfig.json"]:
        os.utime(path, ns=(old, old))


def median_ms(call: Callable[[], object], rounds: int) -> float:
    call()
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000, help="files under src/ and dist/ each")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cfn-debug-bench-") as folder:
        root = Path(folder)
        write_project(root, args.files)
        spec = FunctionSpec("F", "dist/handlers.entrypoint", root, runtime="nodejs20.x")
        runtime = NodeRuntime(spec, root, RuntimeOptions())
        assert not runtime._needs_build(), "dist/ should be fresh"
        start = median_ms(lambda: (runtime._needs_install(), runtime._needs_build()), args.rounds)
        files = runtime.build_files()
        invoke = median_ms(lambda: signature(files), args.rounds * 50)
        print(f"files: {args.files} under src/ and {args.files} under dist/")
        print(f"worker start, staleness checks: {start:.1f} ms (median of {args.rounds})")
        print(f"per invocation, build files' signature: {invoke * 1000:.0f} us")


if __name__ == "__main__":
    main()
