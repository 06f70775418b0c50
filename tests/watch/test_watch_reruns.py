"""Watch mode against the real demo handlers on the embedded endpoint: real files are edited
while a Watcher runs, and the re-runs must show what the edit did."""

from __future__ import annotations

import json
from pathlib import Path

from watch_support import HANDLERS, SCHEMA, edit, event, start

from cfn_debug.chain import ChainOptions
from cfn_debug.demo.runs import requested_name
from cfn_debug.records import DelayStarted, EndReason, RunEnded, RunRecord, RunStarted
from cfn_debug.watch import (
    SCHEMA as SCHEMA_KIND,
)
from cfn_debug.watch import (
    SOURCE,
    BuildFinished,
    ChangeDetected,
    Comparison,
    RerunStarted,
    WatchProblem,
)
from cfn_debug.workspace import Workspace

# The read handler's guard around the WriteOnlyOnRead bug; without it every read echoes the
# writeOnly Secret (the seeded wdg-demo0001 has one).
GUARDED = 'if fault == "WriteOnlyOnRead" and record.get("secret"):'
UNGUARDED = 'if record.get("secret"):'
WRITE_ONLY_RULE = "write-only-not-returned"


async def test_handler_edit_reruns_and_reports_new_then_fixed(
    project: Path, workspace: Workspace
) -> None:
    session = await start(workspace, [event(project, "read.json")])
    first = session.seen
    assert not any(isinstance(e, RunEnded) and e.run.must_failures for e in first)

    edit(project / HANDLERS, GUARDED, UNGUARDED)  # inject the bug
    change = await session.next(ChangeDetected)
    assert change.kinds == {SOURCE}
    assert str((project / HANDLERS).resolve()) in change.paths
    rerun = await session.next(RerunStarted)
    assert (rerun.event_name, rerun.reason) == ("read", SOURCE)
    broken = await session.next(Comparison)
    assert [f.rule_id for f in broken.new] == [WRITE_ONLY_RULE]
    assert broken.fixed == () and broken.still == ()

    edit(project / HANDLERS, UNGUARDED, GUARDED)  # fix it again
    repaired = await session.next(Comparison)
    assert [f.rule_id for f in repaired.fixed] == [WRITE_ONLY_RULE]
    assert repaired.new == () and repaired.still == ()
    assert repaired.previous_run_id == broken.run_id
    await session.stop()


async def test_schema_edit_reloads_the_schema(project: Path, workspace: Workspace) -> None:
    session = await start(workspace, [event(project, "read.json")])
    schema_path = project / SCHEMA
    original = schema_path.read_text(encoding="utf-8")
    schema = json.loads(original)
    schema["writeOnlyProperties"].append("/properties/Color")  # read returns Color: a finding
    schema_path.write_text(json.dumps(schema, indent=2), encoding="utf-8")

    change = await session.next(ChangeDetected)
    assert change.kinds == {SCHEMA_KIND}
    assert (await session.next(RerunStarted)).reason == SCHEMA_KIND
    comparison = await session.next(Comparison)
    assert [(f.rule_id, "Color" in (f.pointer or "")) for f in comparison.new] == [
        (WRITE_ONLY_RULE, True)
    ]
    assert workspace.schema is not None
    assert "/properties/Color" in workspace.schema.raw["writeOnlyProperties"]

    schema_path.write_text(original[: len(original) // 2], encoding="utf-8")  # a torn save
    problem = await session.next(WatchProblem)
    assert str(schema_path.name) in problem.message

    schema_path.write_text(original, encoding="utf-8")
    comparison = await session.next(Comparison)
    # the same request answered the same: the schema settled the finding, the handler fixed
    # nothing, so it is no longer seen, not "fixed"
    assert comparison.fixed == ()
    assert [f.rule_id for f in comparison.gone] == [WRITE_ONLY_RULE]
    assert "answer did not change" in comparison.gone_because
    await session.stop()
    between = session.since(problem)
    assert sum(isinstance(e, RerunStarted) for e in between) == 1  # none for the torn save


async def test_event_file_change_reruns_only_that_event(
    project: Path, workspace: Workspace
) -> None:
    files = [project / "sample_events" / "read.json", project / "sample_events" / "list.json"]
    session = await start(
        workspace, [event(project, "read.json"), event(project, "list.json")], event_files=files
    )
    listing = json.loads(files[1].read_text(encoding="utf-8"))
    listing["request"]["typeConfiguration"] = {"ListPageSize": 1}
    files[1].write_text(json.dumps(listing), encoding="utf-8")

    change = await session.next(ChangeDetected)
    rerun = await session.next(RerunStarted)
    assert (rerun.event_name, rerun.reason) == ("list", "event")
    ended = await session.next(RunEnded)
    # The re-run used the file as saved: one widget per page.
    models = ended.run.steps[0].result.progress["resourceModels"]  # type: ignore[index]
    assert len(models) == 1
    await session.stop()
    started = [e.run.event_name for e in session.since(change) if isinstance(e, RunStarted)]
    assert started == ["list"]


async def test_broken_event_file_is_reported_not_run(project: Path, workspace: Workspace) -> None:
    path = project / "sample_events" / "read.json"
    good = path.read_text(encoding="utf-8")
    session = await start(workspace, [event(project, "read.json")], event_files=[path])
    path.write_text('{"action": "READ", "request": ', encoding="utf-8")  # a torn save
    problem = await session.next(WatchProblem)
    assert "read.json" in problem.message

    path.write_text(good, encoding="utf-8")
    fixed_change = await session.next(ChangeDetected)
    await session.next(RerunStarted)
    await session.stop()
    between = session.seen[session.seen.index(problem) : session.seen.index(fixed_change)]
    assert not any(isinstance(e, RerunStarted | RunStarted) for e in between)


async def test_failed_build_does_not_rerun(
    project: Path, workspace: Workspace, tmp_path: Path
) -> None:
    marker = tmp_path / "build-is-broken"
    marker.touch()
    build = (
        f"echo compiling handlers; test ! -e '{marker}' || {{ echo 'syntax error' >&2; exit 3; }}"
    )
    session = await start(workspace, [event(project, "read.json")], build=build)

    edit(project / HANDLERS, GUARDED, UNGUARDED)
    failed = await session.next(BuildFinished)
    assert (failed.ok, failed.returncode) == (False, 3)
    assert "compiling handlers" in failed.output and "syntax error" in failed.output

    marker.unlink()
    edit(project / HANDLERS, UNGUARDED, GUARDED)
    second_change = await session.next(ChangeDetected)
    built = await session.next(BuildFinished)
    assert built.ok and "compiling handlers" in built.output
    await session.next(RerunStarted)
    await session.stop()
    between = session.seen[session.seen.index(failed) : session.seen.index(second_change)]
    assert not any(isinstance(e, RerunStarted | RunStarted) for e in between)


async def test_save_cancels_the_chain_in_flight(project: Path, workspace: Workspace) -> None:
    """A create waits 1 s between its IN_PROGRESS steps (the demo's callbackDelaySeconds); a save
    during that wait ends the chain as cancelled before the re-run starts."""
    create = event(project, "create.json")
    session = await start(workspace, [], options=ChainOptions())
    session.watcher.set_targets([create])
    delay_task = session.next(DelayStarted)
    # Nothing runs until a save; the first save runs the create, the second lands in its delay.
    edit(project / HANDLERS, GUARDED, UNGUARDED)
    await delay_task
    edit(project / HANDLERS, UNGUARDED, GUARDED)
    cancelled = await session.next(RunEnded)
    assert cancelled.run.end_reason is EndReason.CANCELLED
    rerun = await session.next(RerunStarted)
    assert rerun.event_name == "create"
    await session.stop()
    assert session.seen.index(cancelled) < session.seen.index(rerun)
    # A cancelled run is not compared: it never finished.
    assert not any(isinstance(e, Comparison) for e in session.seen)


def _token(run: RunRecord) -> str:
    return str(run.steps[0].request["request"]["clientRequestToken"])


def _name(run: RunRecord) -> str | None:
    return requested_name(run.steps[0].request)


async def test_reruns_of_the_demo_create_are_new_requests(
    project: Path, workspace: Workspace
) -> None:
    """Issue 13 item 4: every run of a demo event file sends a fresh clientRequestToken and a
    fresh Name, so the create succeeds on every save (a copy of the demo is the demo too)."""
    create = event(project, "create.json")
    own_token = create.normalized.client_request_token
    own_name = create.normalized.desired["Name"]  # type: ignore[index]
    session = await start(workspace, [create])
    edit(project / HANDLERS, GUARDED, UNGUARDED)
    await session.next(RerunStarted)
    await session.next(RunEnded)
    edit(project / HANDLERS, UNGUARDED, GUARDED)
    await session.next(RerunStarted)
    await session.next(RunEnded)
    await session.stop()
    runs = [e.run for e in session.seen if isinstance(e, RunEnded)]
    assert len(runs) == 3
    for run in runs:
        last = run.steps[-1].result.progress or {}
        assert run.final_status == "SUCCESS", last
        assert last.get("errorCode") != "AlreadyExists"
    tokens = {_token(run) for run in runs}
    names = [_name(run) for run in runs]
    assert len(tokens) == 3 and own_token not in tokens
    assert len(set(names)) == 3
    assert all(name is not None and name.startswith(f"{own_name}-") for name in names), names


async def test_a_pinned_event_keeps_its_name_on_a_rerun(
    project: Path, workspace: Workspace
) -> None:
    """An event the user pinned (the dashboard pins one edited in the session) is sent as
    written: the re-run is still a new request (a fresh token), but the Name is the event's, and
    the demo truthfully answers AlreadyExists."""
    create = event(project, "create.json")
    workspace.pin(create)
    session = await start(workspace, [create])
    edit(project / HANDLERS, GUARDED, UNGUARDED)
    await session.next(RerunStarted)
    rerun = await session.next(RunEnded)
    await session.stop()
    first = next(e for e in session.seen if isinstance(e, RunEnded))
    assert _token(first.run) == create.normalized.client_request_token  # as written
    assert _token(rerun.run) != _token(first.run)
    assert _name(first.run) == _name(rerun.run) == create.normalized.desired["Name"]  # type: ignore[index]
    assert rerun.run.steps[-1].result.progress["errorCode"] == "AlreadyExists"  # type: ignore[index]
