"""Driving the real dashboard in tests: the demo project on the embedded endpoint."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import TextArea

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.config import AppConfig
from cfn_debug.app.widgets.run_status import Prompt, RunStatus
from cfn_debug.demo import PROJECT_DIR as DEMO_DIR

#: Generous: the first invoke starts a warm worker process; CI has 2 cores.
WAIT_S = 45.0


def project_config(project: Path, tmp_path: Path, *options: str) -> AppConfig:
    """The dashboard on ``project`` as `cfn-debug ui PROJECT --max-delay 0 OPTIONS...` opens it,
    its journal in the test's directory, snapshot-safe."""
    from cfn_debug.cli import build_parser

    args = build_parser().parse_args(["ui", str(project), "--max-delay", "0", *options])
    made = AppConfig.from_args(args)
    made.journal = tmp_path / "session.jsonl"
    made.deterministic = True
    return made


def demo_config(state_dir: Path, **overrides: object) -> AppConfig:
    """The bundled demo with its own state directory, delays capped at 0, snapshots-safe."""
    settings: dict[str, object] = {
        "project_dir": DEMO_DIR,
        "env_vars": {"Parameters": {"CFN_DEBUG_DEMO_STATE": str(state_dir)}},
        "max_delay": 0.0,
        "deterministic": True,
        # The session journal stays in the test's directory (never the user's state dir).
        "journal": state_dir / "session.jsonl",
        # The chain as the event runs it; cfn-debug's own read-back READ is tested on its own.
        "read_back": False,
    }
    settings.update(overrides)
    return AppConfig(**settings)  # type: ignore[arg-type]


async def wait_until(
    pilot: Pilot, predicate: Callable[[], object], what: str, timeout: float = WAIT_S
) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            app = pilot.app
            raise AssertionError(f"timed out waiting for {what}\n{screen_text(app)}")
        await pilot.pause(0.02)


async def opened(pilot: Pilot) -> CfnDebugApp:
    app = pilot.app
    assert isinstance(app, CfnDebugApp)
    await wait_until(
        pilot,
        lambda: app.main.listed_events or app.workspace_error is not None,
        "the workspace to open",
    )
    return app


def event_index(app: CfnDebugApp, name: str) -> int:
    assert app.workspace_error is None, f"the workspace did not open: {app.workspace_error}"
    names = [event.name for event in app.main.listed_events]
    for index, full in enumerate(names):
        if full == name or full.endswith("/" + name):
            return index
    raise AssertionError(f"no event {name!r} in {names}")


async def select_event(pilot: Pilot, name: str) -> int:
    app = await opened(pilot)
    index = event_index(app, name)
    app.query_one("#events").select_index(index)  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: app.main.selected_event == index, f"{name} to be selected")
    return index


async def run_event(pilot: Pilot, name: str, *, keys: tuple[str, ...] = ("r",)) -> CfnDebugApp:
    """Select ``name`` in the events tree, press r, and wait for the chain to end."""
    app = await opened(pilot)
    await select_event(pilot, name)
    generation = app.main.view.generation
    await pilot.press(*keys)
    await wait_until(
        pilot,
        lambda: (
            app.main.view.generation > generation and app.main.view.ended and not app.main.running
        ),
        f"the {name} chain to end",
    )
    await pilot.pause()
    return app


def status_prompt(app: CfnDebugApp) -> Prompt:
    state = app.query_one(RunStatus).state
    assert isinstance(state, Prompt), f"expected a settled prompt, got {state!r}"
    return state


def screen_text(app: object) -> str:
    """The plain text of what the terminal shows right now."""
    assert isinstance(app, CfnDebugApp)
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


def set_text(area: TextArea, text: str) -> None:
    """Replace everything in a TextArea as an edit (it posts Changed, as typing does)."""
    area.replace(text, area.document.start, area.document.end)
