"""Text cfn-debug did not write is shown as it is and can do nothing: control characters become
visible escapes and Rich markup stays literal, in every widget and in the SVG screenshot."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.widgets.events_panel import EventsPanel

from .helpers import demo_config, opened, screen_text, wait_until

SIZE = (160, 40)
HOSTILE = "evil-[b]bold-[@click=app.quit]x-\x1b]0;pwned\x07"


def _project(target: Path) -> Path:
    from cfn_debug.demo import PROJECT_DIR, sample_events_dir

    shutil.copytree(
        PROJECT_DIR, target, ignore=shutil.ignore_patterns("__pycache__", "sample_events")
    )
    events = target / "sample_events"
    events.mkdir()
    data = json.loads((sample_events_dir() / "read.json").read_text())
    (events / f"{HOSTILE}.json").write_text(json.dumps(data))
    (events / "broken-[red]x-\x1b[2J.json").write_text("{")
    return target


async def test_hostile_names_are_shown_literally_and_the_svg_stays_xml(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    app = CfnDebugApp(demo_config(tmp_path / "state", project_dir=project))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.pause()
        text = screen_text(app)
        assert "evil-[b]bold-[@click=app.quit]x-\\x1b" in text  # literal, escaped, then cut
        panel = app.query_one(EventsPanel)
        labels = [str(leaf.label) for branch in panel.root.children for leaf in branch.children]
        assert any("evil-[b]bold-[@click=app.quit]x-\\x1b]0;pwned\\x07" in la for la in labels)
        assert any("broken-[red]x-\\x1b[2J" in la for la in labels), labels
        assert "\x1b" not in text and "\x07" not in text
        index = next(i for i, e in enumerate(app.main.listed_events) if e.name.endswith(HOSTILE))
        panel.select_index(index)
        await wait_until(pilot, lambda: app.main.selected_event == index, "the hostile event")
        await pilot.press("r")
        await wait_until(pilot, lambda: app.main.view.ended and not app.main.running, "the run")
        await pilot.pause()
        text = screen_text(app)
        assert "[b]bold-[@click=app.quit]" in text.split("\n")[1]  # the timeline's title
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "\x07" not in svg
        ET.fromstring(svg)  # well-formed XML
