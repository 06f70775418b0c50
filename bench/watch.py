"""Watch mode: time from a file saved to the re-run started (target: under 0.5 s, median).

A private copy of the bundled demo on the embedded endpoint, watched as `cfn-debug run --watch`
watches it; each save (a handler file, the schema, the event file, in turn) is timed from just
before the write to the watcher's RerunStarted and to the re-run's first request being sent
(InvocationStarted). Each re-run is awaited to its end before the next save. Then, unless
--no-export, it runs bench/export.py for the time to export a 10,000-step session (target 3 s).

    python bench/watch.py [--saves N] [--debounce MS] [--step MS] [--no-export]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cfn_debug.chain import ChainOptions
from cfn_debug.events import load_event
from cfn_debug.records import InvocationStarted, RunEnded
from cfn_debug.watch import DEBOUNCE_MS, STEP_MS, RerunStarted, Watcher, WatchEvent, WatchReady
from cfn_debug.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "tui" / "cfn_debug" / "demo"
TARGET_S = 0.5


def copy_demo(destination: Path) -> Path:
    shutil.copytree(DEMO, destination, ignore=shutil.ignore_patterns("__pycache__", "build"))
    shutil.copytree(REPO / "sample_events", destination / "sample_events")
    return destination


def save(path: Path, n: int) -> None:
    """Rewrite ``path`` with a harmless difference (a trailing newline count for JSON, a comment
    for Python), as an editor's save."""
    text = path.read_text(encoding="utf-8").rstrip("\n# ")
    suffix = f"\n# save {n}\n" if path.suffix == ".py" else "\n" * (1 + n % 2)
    path.write_text(text + suffix, encoding="utf-8")


async def measure(project: Path, state: Path, saves: int, debounce: int, step: int) -> None:
    workspace = Workspace.open(
        project, env_vars={"Parameters": {"CFN_DEBUG_DEMO_STATE": str(state)}}
    )
    event_path = project / "sample_events" / "read.json"
    files = {
        "source": project / "src" / "cfndebug_demo_widget" / "handlers.py",
        "schema": project / "cfndebug-demo-widget.json",
        "event": event_path,
    }
    inbox: asyncio.Queue[WatchEvent] = asyncio.Queue()
    watcher = Watcher(
        workspace,
        ChainOptions(max_delay_s=0),
        on_event=inbox.put_nowait,
        event_files=[event_path],
        debounce_ms=debounce,
        step_ms=step,
    )

    async def next_of(kind: type) -> object:
        while True:
            event = await asyncio.wait_for(inbox.get(), 30)
            if isinstance(event, kind):
                return event

    task = asyncio.ensure_future(watcher.watch(initial=[load_event(event_path)]))
    try:
        await next_of(WatchReady)
        rerun: dict[str, list[float]] = {kind: [] for kind in files}
        request: dict[str, list[float]] = {kind: [] for kind in files}
        kinds = list(files)
        for n in range(saves):
            kind = kinds[n % len(kinds)]
            saved = time.monotonic()
            save(files[kind], n)
            started = await next_of(RerunStarted)
            invoked = await next_of(InvocationStarted)
            await next_of(RunEnded)
            rerun[kind].append(started.started_monotonic - saved)  # type: ignore[attr-defined]
            request[kind].append(invoked.started_monotonic - saved)  # type: ignore[attr-defined]
    finally:
        watcher.stop()
        await asyncio.wait_for(task, 30)
        workspace.close()

    print(f"watch mode, save -> re-run started (debounce {debounce} ms, step {step} ms)")
    print(f"{'saved file':<12}{'saves':>6}{'rerun median':>15}{'request median':>16}{'max':>9}")
    every_rerun: list[float] = []
    for kind in files:
        if not rerun[kind]:
            continue
        every_rerun += rerun[kind]
        print(
            f"{kind:<12}{len(rerun[kind]):>6}{statistics.median(rerun[kind]):>13.3f} s"
            f"{statistics.median(request[kind]):>14.3f} s{max(request[kind]):>7.3f} s"
        )
    median = statistics.median(every_rerun)
    verdict = "meets" if median < TARGET_S else "MISSES"
    print(f"all saves: median {median:.3f} s save -> re-run started ({verdict} {TARGET_S} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=15, help="saves to time (default 15)")
    parser.add_argument("--debounce", type=int, default=DEBOUNCE_MS, help="watchfiles debounce")
    parser.add_argument("--step", type=int, default=STEP_MS, help="watchfiles step")
    parser.add_argument("--no-export", action="store_true", help="skip the export benchmark")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cfn-debug-bench-watch-") as tmp:
        project = copy_demo(Path(tmp) / "widget")
        asyncio.run(measure(project, Path(tmp) / "state", args.saves, args.debounce, args.step))
    if not args.no_export:
        print()
        sys.stdout.flush()
        subprocess.run(
            [sys.executable, str(REPO / "bench" / "export.py"), "--repeat", "1"], check=False
        )


if __name__ == "__main__":
    main()
