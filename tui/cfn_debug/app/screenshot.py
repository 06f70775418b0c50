"""Write the README's screenshot: the dashboard itself, on the demo, exported as SVG.

    python -m cfn_debug.app.screenshot docs/screenshot.svg [--event NAME] [--size 120x36]

Runs headless against the bundled demo on the embedded endpoint (a throw-away state directory),
runs one event to its end and saves what the terminal shows. Durations stay visible; the request
shown is the redacted one the engine records, so no credential reaches the picture.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.config import AppConfig
from cfn_debug.demo import PROJECT_DIR


async def capture(target: Path, event: str, size: tuple[int, int], tab: str) -> None:
    with tempfile.TemporaryDirectory() as state:
        config = AppConfig(
            env_vars={"Parameters": {"CFN_DEBUG_DEMO_STATE": state}},
            max_delay=0.0,
        )

        config.project_dir = PROJECT_DIR
        app = CfnDebugApp(config)
        app.animation_level = "none"  # no tab underline caught mid-slide
        async with app.run_test(size=size) as pilot:
            while not app.main.listed_events:
                if app.workspace_error is not None:
                    raise SystemExit(f"cannot open the demo: {app.workspace_error[0]}")
                await pilot.pause(0.05)
            names = [e.name for e in app.main.listed_events]
            matches = [i for i, n in enumerate(names) if n == event or n.endswith("/" + event)]
            if not matches:
                raise SystemExit(f"no event {event!r}; the demo has {', '.join(names)}")
            index = matches[0]
            app.query_one("#events").select_index(index)  # type: ignore[attr-defined]
            app.run_event(index)
            while not (app.main.view.ended and not app.main.running):
                await pilot.pause(0.05)
            app.main.action_show_tab(tab)
            await pilot.pause(0.2)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(app.export_screenshot(title="cfn-debug"), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", type=Path)
    parser.add_argument("--event", default="fault-unhandled-exception")
    parser.add_argument("--tab", default="findings")
    parser.add_argument("--size", default="130x38")
    args = parser.parse_args()
    width, _, height = args.size.partition("x")
    asyncio.run(capture(args.target, args.event, (int(width), int(height)), args.tab))
    print(f"wrote {args.target}")


if __name__ == "__main__":
    main()
