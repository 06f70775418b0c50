"""Watch mode: time from a file saved to the re-run started, and to its findings on screen.

1. The dashboard, end to end (issue 14): the real app driven by Textual's Pilot, watch mode on, a
   real write of a handler source file; timed from just before the write to the moment the
   Findings tab first paints a step of the re-run (its first step, unless the chain was quicker
   than the screen; the paint itself is observed: the findings body's render_lines is wrapped).
   For the demo's create (target: under 250 ms, median) and for a
   handler on cloudformation-cli-python-lib (bench/projects/inprogress, TestEntrypoint; target:
   under 300 ms). Workers come from the fork server, as in every endpoint.
2. The engine alone (`cfn-debug run --watch`): a private copy of the bundled demo; each save (a
   handler file, the schema, the event file, in turn) is timed to the watcher's RerunStarted and to
   the re-run's first request (InvocationStarted); target under 0.5 s.
Then, unless --no-export, it runs bench/export.py for the time to export a 10,000-step session
(target 3 s).

    python bench/watch.py [--pilot-saves N] [--saves N] [--debounce MS] [--step MS]
                          [--no-pilot] [--no-engine] [--no-export]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cfn_debug.chain import ChainOptions
from cfn_debug.events import load_event
from cfn_debug.records import InvocationStarted, RunEnded
from cfn_debug.watch import DEBOUNCE_MS, STEP_MS, RerunStarted, Watcher, WatchEvent, WatchReady
from cfn_debug.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "tui" / "cfn_debug" / "demo"
LIBRARY_PROJECT = REPO / "bench" / "projects" / "inprogress"
TARGET_S = 0.5
#: Save to the first step's findings on screen (issue 14), demo and library handler.
DEMO_TARGET_S = 0.250
LIBRARY_TARGET_S = 0.300
SCREEN = (140, 45)


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


# --- 1. the dashboard, driven by the Pilot ----------------------------------------------------


def copy_library_project(destination: Path) -> Path:
    """The bench's library handler project, with one short create event (3 steps)."""
    shutil.copytree(
        LIBRARY_PROJECT, destination, ignore=shutil.ignore_patterns("__pycache__", "build")
    )
    events = destination / "sample_events"
    shutil.rmtree(events)
    events.mkdir()
    event = json.loads(
        (LIBRARY_PROJECT / "sample_events" / "create-1000-steps.json").read_text(encoding="utf-8")
    )
    event["request"]["desiredResourceState"]["Steps"] = 2
    (events / "create.json").write_text(json.dumps(event, indent=2), encoding="utf-8")
    return destination


async def _until(pilot: Any, predicate: Any, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await pilot.pause(0.002)


async def pilot_saves(
    config: Any, event_name: str, source: Path, saves: int
) -> tuple[list[float], list[tuple[float, float, float]]]:
    """Run ``event_name`` once in the real dashboard, turn watch mode on, then save ``source``
    ``saves`` times; per save, (save -> findings of the re-run's first step painted) and
    (save -> seen by the watcher, -> the re-run's first request sent, -> its first answer
    received)."""
    from textual.widgets import Static

    from cfn_debug.app.app import CfnDebugApp
    from cfn_debug.app.widgets.step_detail import StepDetail

    app = CfnDebugApp(config)
    painted: list[float] = []
    rerun: list[tuple[float, float, float]] = []
    async with app.run_test(size=SCREEN) as pilot:
        await _until(pilot, lambda: app.main.listed_events or app.workspace_error, "the workspace")
        if app.workspace_error is not None:
            raise RuntimeError(str(app.workspace_error))
        names = [event.name for event in app.main.listed_events]
        index = next(i for i, name in enumerate(names) if name.endswith(event_name))
        app.query_one("#events").select_index(index)  # type: ignore[attr-defined]
        await pilot.pause()
        generation = app.main.view.generation
        await pilot.press("r")
        await _until(
            pilot,
            lambda: (
                app.main.view.generation > generation
                and app.main.view.ended
                and not app.main.running
            ),
            "the first run",
        )
        await pilot.press("w")
        await _until(pilot, lambda: app.main.watcher is not None, "watch mode")
        await pilot.pause(0.5)  # the watches are registered on the watcher's first turn

        detail = app.query_one(StepDetail)
        body = detail.query_one("#findings-body", Static)
        paint = body.render_lines
        mark: dict[str, float] = {}

        def render_lines(crop: Any) -> Any:
            strips = paint(crop)
            view = app.main.view
            step = detail.step
            if (
                "painted" not in mark
                and view.generation > mark.get("generation", 1e9)
                and view.rerun is not None
                and step is not None
                and any(step is mine for mine in view.steps)
            ):
                mark["painted"] = time.perf_counter()
            return strips

        body.render_lines = render_lines  # type: ignore[method-assign]
        for n in range(saves):
            mark.clear()
            mark["generation"] = app.main.view.generation
            text = source.read_text(encoding="utf-8").rstrip("\n# ")
            saved, saved_mono = time.perf_counter(), time.monotonic()
            source.write_text(text + f"\n# save {n}\n", encoding="utf-8")
            await _until(pilot, lambda: "painted" in mark, "the re-run's findings on screen")
            painted.append(mark["painted"] - saved)
            view = app.main.view
            invoked = view.invocations[0].started_monotonic if view.invocations else saved_mono
            answered = invoked + view.steps[0].result.duration_s
            # view.rerun is the save's ChangeDetected: when the watcher's batch arrived.
            seen = view.rerun.detected_monotonic if view.rerun is not None else saved_mono
            rerun.append((seen - saved_mono, invoked - saved_mono, answered - saved_mono))
            await _until(
                pilot, lambda: app.main.view.ended and not app.main.running, "the re-run's end"
            )
            await pilot.pause(0.2)
    return painted, rerun


def measure_pilot(saves: int) -> bool:
    """Both projects; prints the medians; False when a target is missed."""
    from cfn_debug.app.config import AppConfig

    ok = True
    print("dashboard (Pilot), save -> the re-run's first step's findings painted")
    with tempfile.TemporaryDirectory(prefix="cfn-debug-bench-pilot-") as tmp:
        root = Path(tmp)
        demo = copy_demo(root / "widget")
        library = copy_library_project(root / "library")
        cases = [
            (
                "demo create",
                AppConfig(
                    project_dir=demo,
                    env_vars={"Parameters": {"CFN_DEBUG_DEMO_STATE": str(root / "state")}},
                    max_delay=0.0,
                    journal=root / "demo.jsonl",
                ),
                "create",
                demo / "src" / "cfndebug_demo_widget" / "handlers.py",
                DEMO_TARGET_S,
            ),
            (
                "library handler create",
                AppConfig(
                    project_dir=library,
                    function_name="TestEntrypoint",
                    max_delay=0.0,
                    journal=root / "library.jsonl",
                ),
                "create",
                library / "src" / "inprogress_thing" / "handlers.py",
                LIBRARY_TARGET_S,
            ),
        ]
        for label, config, event, source, target in cases:
            painted, rerun = asyncio.run(pilot_saves(config, event, source, saves))
            median = statistics.median(painted)
            verdict = "meets" if median < target else "MISSES"
            seen, invoked, answered = (
                statistics.median(part[i] for part in rerun) * 1000 for i in range(3)
            )
            print(
                f"  {label:<24} {len(painted)} saves: median {median * 1000:.0f} ms "
                f"(min {min(painted) * 1000:.0f}, max {max(painted) * 1000:.0f}) "
                f"{verdict} the {target * 1000:.0f} ms target"
            )
            print(
                f"  {'':<24} medians: save seen {seen:.0f} ms, first request {invoked:.0f} ms, "
                f"first answer {answered:.0f} ms (handler {answered - invoked:.0f} ms), "
                f"painted {median * 1000:.0f} ms"
            )
            ok = ok and median < target
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pilot-saves", type=int, default=10, help="dashboard saves per project (default 10)"
    )
    parser.add_argument("--no-pilot", action="store_true", help="skip the dashboard figures")
    parser.add_argument("--no-engine", action="store_true", help="skip the engine-only figures")
    parser.add_argument("--saves", type=int, default=15, help="saves to time (default 15)")
    parser.add_argument("--debounce", type=int, default=DEBOUNCE_MS, help="watchfiles debounce")
    parser.add_argument("--step", type=int, default=STEP_MS, help="watchfiles step")
    parser.add_argument("--no-export", action="store_true", help="skip the export benchmark")
    args = parser.parse_args()
    if not args.no_pilot:
        measure_pilot(args.pilot_saves)
        print()
    if not args.no_engine:
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
