"""The pure renderers: colours at the timing thresholds, masking for snapshots, run summaries."""

from __future__ import annotations

from cfn_debug.app.render import Palette, duration_bar, scrub, step_status
from cfn_debug.app.summary import run_summary
from cfn_debug.records import (
    WARN_FRACTION,
    Action,
    EndReason,
    InvokeResult,
    OutcomeKind,
    RunRecord,
    Step,
)

P = Palette(ok="green", warn="yellow", error="red", accent="cyan", muted="grey50")


def _bar_style(seconds: float, limit: float) -> str:
    bar = duration_bar(seconds, limit, P, width=20)
    return str(bar.spans[0].style)


def test_bar_colour_changes_at_the_warning_fraction_and_past_the_limit() -> None:
    assert _bar_style(0.5 * 60, 60) == "green"
    assert _bar_style(WARN_FRACTION * 60 - 0.01, 60) == "green"
    assert _bar_style(WARN_FRACTION * 60, 60) == "yellow"
    assert _bar_style(60, 60) == "yellow"
    assert _bar_style(60.5, 60) == "red"
    assert _bar_style(31, 30) == "red"


def test_bar_is_log_scaled_with_marks_at_1_and_10_seconds() -> None:
    # 1 ms .. 60 s over 20 cells: 1 s at cell 13, 10 s at cell 17 (1-based).
    empty = duration_bar(0.0, 60, P, width=20, label=False).plain
    assert empty == "·" * 12 + "┊" + "·" * 3 + "┊" + "·" * 3
    fast = duration_bar(0.012, 60, P, width=20, label=False).plain
    slow = duration_bar(25, 60, P, width=20, label=False).plain
    # a 12 ms step and a 25 s step both show, and far apart
    assert 3 <= fast.count("█") <= 6 and 18 <= slow.count("█") <= 20
    assert duration_bar(600, 60, P, width=20, label=False).plain == "█" * 20


def test_deterministic_bar_hides_the_measured_time() -> None:
    fast = duration_bar(0.01, 60, P, deterministic=True).plain
    slow = duration_bar(59, 60, P, deterministic=True).plain
    assert fast == slow
    assert "/ 60 s" in fast


def test_scrub_masks_what_changes_between_runs() -> None:
    text = (
        "token 4b90a7e4-b790-456b-a937-0cfdfa211dfe at 2026-11-22T00:41:29.123Z on "
        "http://127.0.0.1:40123 made wdg-3fa2c1d09b7e in 0.0123 s"
    )
    masked = scrub(text)
    assert masked == ("token <uuid> at <time> on http://127.0.0.1:<port> made wdg-<id> in <t>")
    assert scrub("wdg-demo0001 Size 7") == "wdg-demo0001 Size 7"


def _step(index: int, **result: object) -> Step:
    return Step(
        index=index,
        action=Action.CREATE,
        function_name="TestEntrypoint",
        request={},
        result=InvokeResult(**{"kind": OutcomeKind.PROGRESS, "duration_s": 0.1, **result}),
        started_at="2026-01-01T00:00:00Z",
        limit_s=60.0,
    )


def _run(steps: list[Step], reason: EndReason, status: str | None) -> RunRecord:
    return RunRecord(
        run_id="r",
        event_name="e",
        event_path=None,
        action=Action.CREATE,
        function_name="TestEntrypoint",
        endpoint="x",
        started_at="t",
        steps=steps,
        end_reason=reason,
        final_status=status,
    )


def test_summary_of_a_failed_run_names_the_error_code_and_message() -> None:
    step = _step(0, progress={"status": "FAILED", "errorCode": "NotFound", "message": "gone"})
    text, _hint, tone = run_summary(_run([step], EndReason.TERMINAL, "FAILED"))
    assert text.startswith("FAILED NotFound: gone")
    assert tone == "error"


def test_summary_of_an_unreachable_endpoint_says_what_to_do() -> None:
    step = _step(0, kind=OutcomeKind.UNREACHABLE, error_message="nothing answers at http://x")
    text, hint, tone = run_summary(_run([step], EndReason.ERROR, None))
    assert "nothing answers at http://x" in text
    assert "press r" in hint
    assert tone == "error"
    assert step_status(step) == "UNREACHABLE"


def test_aws_calls_show_the_failed_call_and_the_raising_one() -> None:
    import io

    from rich.console import Console

    from cfn_debug.app.render import aws_calls_renderable

    calls = [
        {
            "service": "s3",
            "operation": "HeadBucket",
            "params": {"Bucket": "b"},
            "http_status": 200,
            "error_code": None,
            "error_message": None,
            "duration_ms": 3.0,
            "raised": False,
        },
        {
            "service": "dynamodb",
            "operation": "PutItem",
            "params": {"TableName": "t"},
            "http_status": 400,
            "error_code": "ResourceNotFoundException",
            "error_message": "Requested resource not found",
            "duration_ms": 5.0,
            "raised": True,
        },
    ]
    console = Console(width=120, file=io.StringIO(), record=True)
    console.print(aws_calls_renderable(calls, P))
    text = console.export_text()
    assert "s3.HeadBucket" in text and "dynamodb.PutItem" in text
    assert "⚡ raised" in text and "ResourceNotFoundException" in text
    assert "⚡" not in text.splitlines()[1]  # the first call neither failed nor raised
