"""Watch mode in the dashboard, through cfn_debug.watch: a save re-runs the selected event and the
dashboard shows what changed against the previous run."""

from __future__ import annotations

import json
from pathlib import Path

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.widgets.header import SessionHeader

from .helpers import demo_config, run_event, screen_text, status_prompt, wait_until
from .test_dashboard import _copy_demo

SIZE = (140, 45)
HANDLERS = Path("src") / "cfndebug_demo_widget" / "handlers.py"
# The read handler's guard around its WriteOnlyOnRead bug: without it every read returns the
# writeOnly Secret of the seeded widget.
GUARDED = 'if fault == "WriteOnlyOnRead" and record.get("secret"):'
UNGUARDED = 'if record.get("secret"):'
RULE = "write-only-not-returned"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")


async def test_watch_key_reruns_on_a_handler_save_and_shows_new_then_fixed(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    _copy_demo(project)
    app = CfnDebugApp(demo_config(tmp_path / "state", project_dir=project))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "read")
        assert app.main.view.run is not None and not app.main.view.run.must_failures
        header = app.query_one(SessionHeader)
        assert header.watch is False
        await pilot.press("w")
        await wait_until(pilot, lambda: app.main.watcher is not None and header.watch, "watch on")
        await pilot.pause(0.3)  # the watches are registered on the watcher's first turn
        first = app.main.view.generation

        _edit(project / HANDLERS, GUARDED, UNGUARDED)  # inject the bug
        await wait_until(
            pilot,
            lambda: app.main.view.generation > first and app.main.view.comparison is not None,
            "the re-run and its comparison",
        )
        broken = app.main.view
        assert broken.rerun is not None and broken.run is not None
        assert broken.event_name is not None and broken.event_name.endswith("read")
        assert [f.rule_id for f in broken.comparison.new] == [RULE]
        assert f"new {RULE}" in status_prompt(app).text
        await pilot.press("1")
        text = screen_text(app)
        assert "Changes" in text and "handlers.py" in text
        assert "re-run on save" in text  # the timeline's title

        _edit(project / HANDLERS, UNGUARDED, GUARDED)  # fix it again
        await wait_until(
            pilot,
            lambda: app.main.view is not broken and app.main.view.comparison is not None,
            "the second re-run",
        )
        assert [f.rule_id for f in app.main.view.comparison.fixed] == [RULE]
        assert app.main.view.comparison.new == ()
        assert f"fixed {RULE}" in status_prompt(app).text
        await pilot.pause()
        flat = " ".join(screen_text(app).split())
        assert "Since the last run of this event:" in flat
        assert f"fixed {RULE} /resourceModel/Secret" in flat

        await pilot.press("w")
        assert app.main.watcher is None and header.watch is False


async def test_a_failed_build_is_shown_and_nothing_reruns(tmp_path: Path) -> None:
    project = tmp_path / "project"
    _copy_demo(project)
    config = demo_config(
        tmp_path / "state", project_dir=project, watch=True, build="echo compiling; exit 3"
    )
    app = CfnDebugApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "read")
        await wait_until(pilot, lambda: app.query_one(SessionHeader).watch, "watching")
        await pilot.pause(0.3)
        generation = app.main.view.generation
        _edit(project / HANDLERS, GUARDED, UNGUARDED)
        await wait_until(pilot, lambda: app.main.last_build is not None, "the build")
        await pilot.pause(0.2)
        prompt = status_prompt(app)
        assert prompt.tone == "error" and "Build failed (exit 3)" in prompt.text
        assert app.main.view.generation == generation, "nothing re-ran"
        await pilot.press("1")
        text = screen_text(app)
        assert "compiling" in text and "nothing re-ran" in text


async def test_an_edited_event_is_sent_as_written_by_a_watch_rerun_before_any_run(
    tmp_path: Path,
) -> None:
    """An edit pins the event's Name (Workspace.request_for) from the moment it is applied: a
    save that re-runs it in watch mode before the user ran it sends the Name as written, not the
    demo's fresh one (a re-run is still a new request: a new token, tests/watch)."""
    project = tmp_path / "project"
    _copy_demo(project)
    app = CfnDebugApp(demo_config(tmp_path / "state", project_dir=project, watch=True))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "create")
        index = app.main.view.event_index
        assert index is not None
        data = json.loads(json.dumps(app.main.listed_events[index].data))
        data["request"]["desiredResourceState"]["Name"] = "pinned-by-an-edit"
        app.main.event_edited(index, data)  # applied, not run
        await wait_until(pilot, lambda: app.query_one(SessionHeader).watch, "watching")
        await pilot.pause(0.3)  # the watches are registered on the watcher's first turn
        generation = app.main.view.generation
        handlers = project / HANDLERS
        handlers.write_text(handlers.read_text(encoding="utf-8") + "\n# saved\n", "utf-8")
        await wait_until(
            pilot,
            lambda: (
                app.main.view.generation > generation
                and app.main.view.ended
                and not app.main.running
            ),
            "the re-run after the save",
        )
        request = (app.main.view.steps or [])[0].request["request"]
        assert request["desiredResourceState"]["Name"] == "pinned-by-an-edit"
        assert request["clientRequestToken"] != data["request"].get("clientRequestToken")
