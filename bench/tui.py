"""Dashboard benchmarks: time to the first frame, and input latency while a long chain runs.

    python bench/tui.py [--steps 1000] [--presses 40]

1. Start to first frame: a fresh interpreter runs `cfn-debug` on the bundled demo (headless
   terminal) and reports when the first screen update is produced, measured from just before the
   process was spawned (interpreter start and imports included). Target (DESIGN.md 7): < 1.5 s.
2. Input latency: the dashboard runs a chain of N IN_PROGRESS steps (no delay) against the
   embedded endpoint, on a generated project whose handler counts to N. While it runs, keys are
   pressed (m: cycle the replay mode, shown in the header) and the time from the key press to the
   first screen update showing its effect is measured. Prints median, p95 and max, and the chain's
   wall time inside the dashboard (the same chain headless: bench/engine.py).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

FIRST_FRAME_CHILD = textwrap.dedent(
    """
    import os, sys, time
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
    app = CfnDebugApp(AppConfig(env_vars={"Parameters": {"CFN_DEBUG_DEMO_STATE": sys.argv[1]}}))
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


def first_frame(runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as state:
            env = {**os.environ, "BENCH_SPAWNED": repr(time.time())}
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
            raise SystemExit(f"no first frame: {proc.stderr[-2000:]}")
        out.append(float(lines[0].split()[1]))
    return out


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
        while app.workspace is None:
            await pilot.pause(0.05)
        started = time.perf_counter()
        app.run_event(0)
        chain_s = None
        while chain_s is None:
            # One key in flight at a time, pressed every ~50 ms while the chain streams.
            if not pressed and len(latencies) < presses:
                next_mode = modes[(modes.index(app.main.mode) + 1) % len(modes)]
                pressed[next_mode] = time.perf_counter()
                app.simulate_key("m")
            await asyncio.sleep(0.05)
            if app.main.view.ended:
                chain_s = time.perf_counter() - started
        return latencies, chain_s, len(app.main.view.steps or [])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5, help="first-frame measurements")
    args = parser.parse_args()

    frames = first_frame(args.runs)
    print(
        f"start to first frame: median {statistics.median(frames):.3f} s, "
        f"max {max(frames):.3f} s over {len(frames)} runs (target < 0.5 s)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        project = make_project(Path(tmp) / "project", args.steps)
        latencies, chain_s, done = asyncio.run(input_latency(project, args.steps, args.presses))
    if not latencies:
        raise SystemExit("no key press was measured")
    ms = sorted(x * 1000 for x in latencies)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    print(
        f"input latency while a {done}-step chain runs: median {statistics.median(ms):.1f} ms, "
        f"p95 {p95:.1f} ms, max {ms[-1]:.1f} ms over {len(ms)} key presses"
    )
    print(f"the {done}-step chain inside the dashboard: {chain_s:.2f} s wall")


if __name__ == "__main__":
    main()
