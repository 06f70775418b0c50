"""Dashboard benchmarks: time to the first frame, and input latency while a long chain runs.

    python bench/tui.py [--steps 1000] [--presses 40] [--runs 5] [--rounds 1]
    python bench/tui.py --baseline /tmp/old-checkout [...]

1. Start to first frame: a fresh interpreter runs `cfn-debug ui` on the bundled demo (its
   parser, its command module, its options; a headless terminal) and reports when the first
   screen update is produced, measured from just before the process was spawned (interpreter
   start and imports included). Target (DESIGN.md 7): < 0.5 s.
2. Input latency: the dashboard runs a chain of N IN_PROGRESS steps (no delay) against the
   embedded endpoint, on a generated project whose handler counts to N. While it runs, keys are
   pressed (m: cycle the replay mode, shown in the header) and the time from the key press to the
   first screen update showing its effect is measured. Prints median, p95 and max, and the chain's
   wall time inside the dashboard (the same chain headless: bench/engine.py).

Every measurement runs in a child interpreter whose ``PYTHONPATH`` is the ``tui/`` of the tree
measured: this checkout, and with ``--baseline PATH`` (a checkout of an older commit, e.g. a
``git worktree add --detach /tmp/old COMMIT``) that one too, the two alternating run by run (the
one that goes first swaps every round) so that both see the same load; each tree starts once
before the runs that count (its bytecode caches written). Prints, for each tree,
the median and the range, the ratio of the medians, and the load average seen during the runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

FIRST_FRAME_CHILD = textwrap.dedent(
    """
    import dataclasses, os, sys, time
    from cfn_debug.cli import build_parser

    # what `cfn-debug ui` loads before the App starts: the CLI, the ui command's module, its
    # options (AppConfig.from_args); only the terminal check is left out (headless here)
    try:
        parser = build_parser(only="ui")
    except TypeError:  # an older cfn-debug (a --baseline tree) builds the whole parser
        parser = build_parser()
    args = parser.parse_args(["ui"])
    from cfn_debug.app.app import CfnDebugApp
    from cfn_debug.app.config import AppConfig

    spawned = float(os.environ["BENCH_SPAWNED"])
    original = CfnDebugApp._display
    seen = []

    def display(self, screen, renderable):
        if renderable is not None and not seen:
            seen.append(time.time())
            print(f"FIRST_FRAME {seen[0] - spawned:.4f}", flush=True)
            self.call_later(self.exit)
        return original(self, screen, renderable)

    CfnDebugApp._display = display
    config = AppConfig.from_args(args)
    state = {"Parameters": {"CFN_DEBUG_DEMO_STATE": sys.argv[1]}}
    app = CfnDebugApp(dataclasses.replace(config, env_vars=state))
    app.run(headless=True, size=(120, 40))
    """
)

BENCH_TOKEN = "4b90a7e4-b790-456b-a937-0cfdfa211dfe"
PLACEHOLDER = {
    "accessKeyId": "placeholder",
    "secretAccessKey": "placeholder",
    "sessionToken": "placeholder",
}


def make_project(root: Path, steps: int) -> Path:
    """The long-chain project the dashboard tests use too (cfn_debug.demo.long_chain)."""
    from cfn_debug.demo.long_chain import long_chain_project

    return long_chain_project(
        root,
        steps,
        type_name="Bench::Chain::Thing",
        package="bench_chain",
        name="bench",
        token=BENCH_TOKEN,
        credentials=PLACEHOLDER,
    )


def child_env(tree: Path, **extra: str) -> dict[str, str]:
    """The environment of a child that measures ``tree``: its ``tui/`` first on the path."""
    return {**os.environ, "PYTHONPATH": str(tree / "tui"), **extra}


def first_frame(tree: Path) -> float:
    """One start of the dashboard of ``tree``: seconds from spawn to the first frame."""
    with tempfile.TemporaryDirectory() as state:
        env = child_env(tree, BENCH_SPAWNED=repr(time.time()))
        proc = subprocess.run(
            [sys.executable, "-c", FIRST_FRAME_CHILD, state],
            capture_output=True,
            text=True,
            env=env,
            cwd=state,
            timeout=60,
        )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("FIRST_FRAME")]
    if not lines:
        raise SystemExit(f"no first frame ({tree}): {proc.stderr[-2000:]}")
    return float(lines[0].split()[1])


def latency_run(tree: Path, project: Path, steps: int, presses: int) -> dict[str, object]:
    """One latency run of the dashboard of ``tree``, in a child (this script, ``--child``)."""
    proc = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            str(project),
            "--steps",
            str(steps),
            "--presses",
            str(presses),
        ],
        capture_output=True,
        text=True,
        env=child_env(tree),
        timeout=900,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("LATENCY ")]
    if not lines:
        raise SystemExit(f"no latency run ({tree}): {proc.stderr[-2000:]}")
    return json.loads(lines[-1].removeprefix("LATENCY "))


async def input_latency(project: Path, steps: int, presses: int) -> tuple[list[float], float, int]:
    from cfn_debug.app.app import CfnDebugApp
    from cfn_debug.app.config import AppConfig
    from cfn_debug.app.widgets.header import SessionHeader

    app = CfnDebugApp(AppConfig(project_dir=project, max_reinvoke=steps + 10))
    pressed: dict[str, float] = {}
    latencies: list[float] = []
    original = app._display

    def display(screen, renderable) -> None:  # type: ignore[no-untyped-def]
        if renderable is not None and pressed:
            mode = app.query_one(SessionHeader).mode.split()[0]
            if mode in pressed:
                latencies.append(time.perf_counter() - pressed.pop(mode))
        original(screen, renderable)

    app._display = display  # type: ignore[method-assign]
    modes = ("auto", "step", "stop")
    async with app.run_test(size=(120, 40)) as pilot:
        # the run's state: the main screen's (an older App mirrored it: mode, view, events)
        shown: Any = app.main if hasattr(app.main, "listed_events") else app
        while not getattr(shown, "listed_events", None) and not getattr(shown, "events", None):
            await pilot.pause(0.05)  # the screen has the events: run_event(0) runs
        started = time.perf_counter()
        app.run_event(0)
        chain_s = None
        while chain_s is None:
            # One key in flight at a time, pressed every ~50 ms while the chain streams.
            if not pressed and len(latencies) < presses:
                next_mode = modes[(modes.index(shown.mode) + 1) % len(modes)]
                pressed[next_mode] = time.perf_counter()
                app.simulate_key("m")
            await asyncio.sleep(0.05)
            if shown.view.ended:
                chain_s = time.perf_counter() - started
        return latencies, chain_s, len(shown.view.steps or [])


def spread(values: list[float], unit: str, scale: float = 1.0, digits: int = 3) -> str:
    """Median and range of ``values``."""
    xs = [v * scale for v in values]
    return (
        f"median {statistics.median(xs):.{digits}f} {unit} "
        f"(range {min(xs):.{digits}f}-{max(xs):.{digits}f}, n={len(xs)})"
    )


def p95(values: list[float]) -> float:
    ms = sorted(values)
    return ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]


def report_ratios(
    frames: dict[str, list[float]], runs: dict[str, list[dict[str, Any]]] | None
) -> None:
    """New over old, the medians (with a baseline)."""
    if "old" not in frames:
        return
    frame = statistics.median(frames["new"]) / statistics.median(frames["old"])
    ratios = [f"first frame {frame:.2f}x"]
    if runs is not None:
        lat = {n: statistics.median([x for r in runs[n] for x in r["latencies"]]) for n in runs}
        chain = {n: statistics.median([float(r["chain_s"]) for r in runs[n]]) for n in runs}
        ratios.append(f"input latency {lat['new'] / lat['old']:.2f}x")
        ratios.append(f"chain wall {chain['new'] / chain['old']:.2f}x")
    print("new/old medians: " + ", ".join(ratios))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5, help="first-frame measurements per tree")
    parser.add_argument(
        "--rounds", type=int, default=1, help="latency runs per tree (0: first frame only)"
    )
    parser.add_argument(
        "--baseline", type=Path, help="a checkout of older code, timed beside this one"
    )
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)  # one latency run
    args = parser.parse_args()

    if args.child is not None:
        latencies, chain_s, done = asyncio.run(input_latency(args.child, args.steps, args.presses))
        record = {"latencies": latencies, "chain_s": chain_s, "steps": done}
        print("LATENCY " + json.dumps(record), flush=True)
        return

    here = Path(__file__).resolve().parents[1]
    trees = {"new": here}
    if args.baseline is not None:
        baseline = args.baseline.resolve()
        if not (baseline / "tui" / "cfn_debug").is_dir():
            raise SystemExit(f"--baseline {baseline}: expected a checkout (no tui/cfn_debug in it)")
        trees = {"old": baseline, "new": here}
    for name, tree in trees.items():
        commit = subprocess.run(
            ["git", "-C", str(tree), "log", "-1", "--format=%h %s"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        state = " + uncommitted changes" if dirty else ""
        print(f"{name}: {tree} ({commit[:70] or 'not a git checkout'}{state})")
        first_frame(tree)  # a warm-up start, not counted: writes the tree's bytecode caches
    loads: list[float] = []

    def order(round_: int) -> list[str]:
        names = list(trees)
        return names if round_ % 2 == 0 else names[::-1]

    frames: dict[str, list[float]] = {name: [] for name in trees}
    for round_ in range(args.runs):
        for name in order(round_):
            loads.append(os.getloadavg()[0])
            frames[name].append(first_frame(trees[name]))
    for name in trees:
        print(f"{name}: start to first frame: {spread(frames[name], 's')} (target < 0.5 s)")

    if args.rounds <= 0:
        report_ratios(frames, None)
        print(f"load average (1 min) during the runs: {min(loads):.2f}-{max(loads):.2f}")
        return
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, str(here / "tui"))
        project = make_project(Path(tmp) / "project", args.steps)
        for round_ in range(args.rounds):
            for name in order(round_):
                loads.append(os.getloadavg()[0])
                runs[name].append(latency_run(trees[name], project, args.steps, args.presses))
    for name in trees:
        ms = [x * 1000 for run in runs[name] for x in run["latencies"]]
        if not ms:
            raise SystemExit(f"{name}: no key press was measured")
        chains = [float(run["chain_s"]) for run in runs[name]]
        done = runs[name][-1]["steps"]
        print(
            f"{name}: input latency while a {done}-step chain runs: "
            f"{spread(ms, 'ms', digits=1)}, p95 {p95(ms):.1f} ms"
        )
        print(
            f"{name}: the {done}-step chain inside the dashboard: {spread(chains, 's', digits=2)}"
        )
    report_ratios(frames, runs)
    print(f"load average (1 min) during the runs: {min(loads):.2f}-{max(loads):.2f}")


if __name__ == "__main__":
    main()
