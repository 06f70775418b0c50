"""What the dashboard says when a run ends without a verdict: a function that could not be
loaded is not an endpoint to start, and a chain the re-invoke cap stopped is inconclusive."""

from __future__ import annotations

from cfn_debug.app.summary import run_summary
from cfn_debug.records import EndReason, OutcomeKind

from .test_render import _run, _step


def test_a_syntax_error_does_not_say_start_the_endpoint() -> None:
    step = _step(
        0,
        kind=OutcomeKind.CRASH,
        error_type="Runtime.UserCodeSyntaxError",
        error_message="Syntax error in module 'x.handlers': invalid syntax (handlers.py, line 9)",
    )
    text, hint, tone = run_summary(_run([step], EndReason.ERROR, "crash"))
    assert "start the endpoint" not in (text + hint).lower()
    assert "could not be loaded" in text and "invalid syntax" in text
    assert "press r" in hint and tone == "error"


def test_a_chain_stopped_by_the_reinvoke_cap_is_inconclusive() -> None:
    steps = [_step(i, progress={"status": "IN_PROGRESS"}) for i in (0, 1)]
    text, hint, tone = run_summary(_run(steps, EndReason.MAX_REINVOKE, "IN_PROGRESS"))
    assert "inconclusive" in text.lower()
    assert "raise --max-reinvoke or check the handler" in hint
    assert tone == "error"


def test_a_run_with_only_should_findings_lands_on_the_step_with_them() -> None:
    from cfn_debug.app.summary import landing_row
    from cfn_debug.records import Finding, Level

    steps = [_step(i, progress={"status": "IN_PROGRESS"}) for i in range(3)]
    steps[1].findings.append(Finding("some-should", Level.SHOULD, "a suspicion", None, 1))
    assert landing_row(steps) == 1
    steps[2].findings.append(Finding("some-must", Level.MUST, "a breach", None, 2))
    assert landing_row(steps) == 2
