"""The fixed / new / still-failing comparison and the classification of changed paths."""

from __future__ import annotations

from pathlib import Path

from cfn_debug.chain import ChainOptions
from cfn_debug.records import (
    Action,
    EndReason,
    Finding,
    InvokeResult,
    Level,
    OutcomeKind,
    RunRecord,
    Step,
)
from cfn_debug.watch import EVENT, SCHEMA, SOURCE, Watcher, WatchPlan, compare_runs
from cfn_debug.workspace import Workspace


def run(run_id: str, *findings: Finding, end: EndReason = EndReason.TERMINAL) -> RunRecord:
    record = RunRecord(run_id, "read", "/p/read.json", Action.READ, "f", "e", "t", end_reason=end)
    record.chain_findings = list(findings)
    return record


def finding(rule: str, pointer: str | None, step: int | None = None) -> Finding:
    return Finding(rule, Level.MUST, f"{rule} broke", pointer, step)


def answered(record: RunRecord, progress: dict[str, object], **request: object) -> RunRecord:
    """``record`` with one step: ``request`` sent, ``progress`` answered."""
    result = InvokeResult(OutcomeKind.PROGRESS, 0.1, progress=progress)
    body = {"clientRequestToken": record.run_id, **request}
    record.steps = [Step(0, Action.READ, "f", {"request": body}, result, "t", 30.0)]
    return record


def test_findings_are_matched_by_rule_and_pointer() -> None:
    before = run("a", finding("r1", "/x"), finding("r2", "/y"), finding("r3", None))
    after = run("b", finding("r2", "/y", step=4), finding("r1", "/z"), finding("r3", None))
    comparison = compare_runs(answered(before, {"n": 1}), answered(after, {"n": 2}))
    # r1 moved from /x to /z: its rule still fires, so nothing is called fixed
    assert comparison.fixed == ()
    assert [(f.rule_id, f.pointer) for f in comparison.gone] == [("r1", "/x")]
    assert [(f.rule_id, f.pointer) for f in comparison.new] == [("r1", "/z")]
    assert [(f.rule_id, f.pointer) for f in comparison.still] == [("r2", "/y"), ("r3", None)]
    assert comparison.still[0].step == 4  # the current run's finding
    assert (comparison.run_id, comparison.previous_run_id) == ("b", "a")


def test_repeated_finding_counts_once() -> None:
    step_findings = [finding("r1", "/x", step=0), finding("r1", "/x", step=1)]
    before = run("a")
    after = run("b", *step_findings)
    assert len(compare_runs(before, after).new) == 1


def test_cancelled_runs_are_not_a_baseline(workspace: Workspace) -> None:
    watcher = Watcher(workspace, ChainOptions(), on_event=lambda _e: None)
    step = Step(0, Action.READ, "f", {}, InvokeResult(OutcomeKind.PROGRESS, 0.1), "t", 30.0)
    complete = run("a", finding("r1", "/x"))
    complete.steps = [step]
    cancelled = run("b", end=EndReason.CANCELLED)
    cancelled.steps = [step]
    later = run("c")
    later.steps = [step]
    assert watcher.note_run(complete) is None  # the first run has nothing to compare with
    assert watcher.note_run(cancelled) is None
    comparison = watcher.note_run(later)
    assert comparison is not None and comparison.previous_run_id == "a"


def test_paths_are_classified() -> None:
    plan = WatchPlan(
        source_dirs=["/p/src"],
        schema_file="/p/thing.json",
        event_dirs=["/p/sample_events"],
        event_files=["/elsewhere/read.json"],
    )
    assert plan.classify("/p/src/pkg/handlers.py") == SOURCE
    assert plan.classify("/p/src") == SOURCE
    assert plan.classify("/p/srcx/handlers.py") is None
    assert plan.classify("/p/thing.json") == SCHEMA
    assert plan.classify("/p/sample_events/create.json") == EVENT
    assert plan.classify("/p/sample_events/notes.txt") is None
    assert plan.classify("/p/sample_events/deeper/create.json") is None
    assert plan.classify("/elsewhere/read.json") == EVENT
    assert plan.classify("/elsewhere/other.json") is None
    assert plan.classify("/p/build/pkg/handlers.py") is None
    assert plan.classify("/p/src/.aws-sam/build/handlers.py") is None  # a hidden directory
    assert plan.classify("/p/src/.hidden.py") == SOURCE  # a hidden file is a source


def test_plan_of_the_demo_project(project: Path, workspace: Workspace) -> None:
    watcher = Watcher(workspace, ChainOptions(), on_event=lambda _e: None)
    plan = watcher.plan
    root = project.resolve()
    assert plan.source_dirs == [str(root / "src")]
    assert plan.schema_file == str(root / "cfndebug-demo-widget.json")
    assert str(root / "sample_events") in plan.event_dirs
    assert plan.recursive_roots() == [str(root / "src")]
    assert str(root) in plan.flat_roots()  # the schema's directory, not recursively


def test_fixed_only_when_the_answer_to_the_same_request_changed() -> None:
    from cfn_debug.app.summary import comparison_line

    broken = answered(run("a", finding("r1", "/x")), {"status": "SUCCESS", "x": 1}, Name="w-1a2b3c")
    # a new token and a new per-run suffix: the same request; the answer changed: fixed
    mended = answered(run("b"), {"status": "SUCCESS"}, Name="w-9f8e7d")
    comparison = compare_runs(broken, mended)
    assert [f.rule_id for f in comparison.fixed] == ["r1"] and comparison.gone == ()
    assert comparison_line(comparison) == "Since the last run: fixed r1."
    # another request (the event was edited): the finding is gone, but nothing was fixed
    other = answered(run("c"), {"status": "SUCCESS"}, Name="another")
    comparison = compare_runs(broken, other)
    assert comparison.fixed == () and [f.rule_id for f in comparison.gone] == ["r1"]
    assert "fixed" not in comparison_line(comparison).replace("not a fix", "")
    assert "the request changed" in comparison_line(comparison)
    # the same request answered the same: the finding went away on its own (a timing), no fix
    same = answered(run("d"), {"status": "SUCCESS", "x": 1}, Name="w-1a2b3c")
    comparison = compare_runs(broken, same)
    assert comparison.fixed == () and "did not change" in comparison.gone_because
