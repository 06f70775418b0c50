"""Watch mode refreshes the notices line after a schema save: a warning the save introduces shows
with the re-run, and one it removes goes away."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.widgets.notices import Notices

from .helpers import demo_config, run_event, screen_text, wait_until
from .test_dashboard import _copy_demo

SIZE = (140, 45)
SCHEMA = "cfndebug-demo-widget.json"


@pytest.mark.slow
async def test_a_schema_save_refreshes_the_notices(tmp_path: Path) -> None:
    project = tmp_path / "project"
    _copy_demo(project)
    app = CfnDebugApp(demo_config(tmp_path / "state", project_dir=project))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "read")
        notices = app.query_one(Notices)
        assert "NoSuchProperty" not in screen_text(app)
        await pilot.press("w")
        await wait_until(pilot, lambda: app.main.watcher is not None, "watch on")
        await pilot.pause(0.3)  # the watches are registered on the watcher's first turn
        first = app.main.view.generation

        path = project / SCHEMA
        schema = json.loads(path.read_text(encoding="utf-8"))
        schema["readOnlyProperties"].append("/properties/NoSuchProperty")
        path.write_text(json.dumps(schema, indent=2), encoding="utf-8")
        await wait_until(pilot, lambda: app.main.view.generation > first, "the re-run")
        await wait_until(pilot, lambda: notices.display, "the notices line")
        await wait_until(
            pilot, lambda: "NoSuchProperty" in screen_text(app), "the new warning drawn"
        )
        await pilot.press("w")
