"""What to tell the user when a run ends or something fails: one line, plus what to do next."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfn_debug.chain_end import INCONCLUSIVE_HINT
from cfn_debug.errors import CfnDebugError, EndpointError, EventError, ProjectError, SchemaError
from cfn_debug.records import EndReason, Level, OutcomeKind, RunRecord, Step


def error_hint(error: BaseException) -> str:
    if isinstance(error, EventError):
        return "Fix the event (e edits it here, E opens the file in $EDITOR), then press r."
    if isinstance(error, SchemaError):
        return "Fix the resource schema (or pass --schema FILE)."
    if isinstance(error, EndpointError):
        return (
            "The endpoint could not start: fix what the message names (a port, a toolchain, a "
            "build, a runtime it does not run), or pass --endpoint URL to use a running "
            "`sam local start-lambda`."
        )
    if isinstance(error, ProjectError):
        return (
            "Check the project's template.yml and .rpdk-config, or pass PROJECT_DIR "
            "(outside a project cfn-debug opens the bundled demo)."
        )
    if isinstance(error, CfnDebugError):
        return "See the message above."
    return "This looks like a bug in cfn-debug: please report it with the message above."


def run_summary(run: RunRecord, *, single: bool = False) -> tuple[str, str, str]:
    """(text, hint, tone) for a finished run; tone is ok, warn or error.

    ``single``: the run was made in stop mode (one invocation, never re-invoked).
    """
    steps = len(run.steps)
    findings = run.findings
    musts = sum(1 for f in findings if f.level is Level.MUST)
    counted = f"{steps} invocation{'s' if steps != 1 else ''}, {len(findings)} finding" + (
        "s" if len(findings) != 1 else ""
    )
    if musts:
        counted += f" ({musts} MUST)"
    last = run.steps[-1] if run.steps else None
    status = run.final_status or (last.result.status if last else None) or "no status"
    reason = run.end_reason

    if reason is EndReason.ERROR and last is not None:
        message = last.result.error_message or last.result.kind.value
        if last.result.kind is OutcomeKind.UNREACHABLE:
            return (
                f"The endpoint could not be used: {message}",
                "Start the endpoint (or run without --endpoint to use the embedded one), "
                "then press r.",
                "error",
            )

        # lazy: the infrastructure checks (pylib's request shapes, ~12 ms) once a run errs
        from cfn_debug.infrastructure import infrastructure_error

        cause = infrastructure_error(last.result)
        if cause is not None:  # the function never ran, or its AWS could not be reached
            return (
                cause[0].upper() + cause[1:],
                "Fix what it names (the Response tab has the whole error), then press r.",
                "error",
            )
        return (
            f"The endpoint could not be used: {message}",
            "See the Response tab; fix the endpoint or the function's setup, then press r.",
            "error",
        )
    if reason is EndReason.CANCELLED:
        return f"Stopped after {counted}.", "Press r to run the event again.", "warn"
    if reason is EndReason.MAX_REINVOKE and single:
        return (
            f"Stop mode: one invocation, {status}: {counted}.",
            "Press m for auto or step mode to follow the IN_PROGRESS chain.",
            "error" if musts else "warn" if findings else "ok",
        )
    if reason is EndReason.MAX_REINVOKE:
        if musts:  # a MUST finding decided it before the cap
            return (
                f"Stopped at the re-invoke cap: {counted}.",
                "The Findings tab explains each one; the chain never reached a terminal status.",
                "error",
            )
        return (
            f"Inconclusive: still IN_PROGRESS at the re-invoke cap: {counted}.",
            f"No verdict on the handler: {INCONCLUSIVE_HINT}.",
            "error",
        )
    if reason is EndReason.HANDLER_TIMEOUT:
        return (
            f"The chain ran past the schema's timeoutInMinutes: {counted}.",
            "See the Timing tab; shorten the stabilization or raise timeoutInMinutes.",
            "error",
        )
    if last is not None and last.result.kind is OutcomeKind.CRASH:
        return (
            f"The handler crashed ({last.result.error_type or 'Unhandled'}): {counted}.",
            "The Response tab has the stack trace, the Logs tab the handler's own lines.",
            "error",
        )
    if last is not None and last.result.kind is not OutcomeKind.PROGRESS:
        return (
            f"The invocation came back as {last.result.kind.value.replace('_', ' ')}: {counted}.",
            "See the Response and Logs tabs.",
            "error",
        )
    if run.verdict is not None:  # a hook: its verdict is the outcome, a refusal no error
        progress = last.result.progress if last is not None and last.result.progress else {}
        said = progress.get("message") or ""
        return (
            f"Hook verdict: {run.verdict}" + (f": {said}" if said else "") + f"  ({counted})",
            "A refusal is the hook doing its job, not a finding; the Findings tab explains any "
            "breach of the hook contract.",
            "error" if musts else ("warn" if findings else "ok"),
        )
    if status == "FAILED":
        progress = last.result.progress if last is not None and last.result.progress else {}
        code = progress.get("errorCode") or "no errorCode"
        message = progress.get("message") or "no message"
        return (
            f"FAILED {code}: {message}  ({counted})",
            "Findings explain contract breaches; the Logs tab shows the handler's lines "
            "(a traceback there means an exception the handler did not catch).",
            "error",
        )
    tone = "error" if musts else ("warn" if findings else "ok")
    hint = (
        "The Findings tab explains each one with the contract sentence it enforces."
        if findings
        else "No contract findings. Select a step for its request, response, logs and timing."
    )
    return f"{status}: {counted}.", hint, tone


def transcript_kind(path: Path | None) -> str:
    """What `cfn-debug open` shows: a session journal (.jsonl) or a JSON transcript."""
    return "session journal" if path is not None and path.suffix == ".jsonl" else "JSON transcript"


def error_code(run: RunRecord) -> str | None:
    last = run.steps[-1].result if run.steps else None
    progress = last.progress if last is not None and last.progress else {}
    code = progress.get("errorCode")
    return code if isinstance(code, str) else None


def landing_row(steps: list[Step]) -> int:
    """Where the cursor goes when a chain ends: the first step with a MUST finding, else the
    first with any finding (a run with only SHOULD findings shows them), else the last step."""
    for row, step in enumerate(steps):
        if any(f.level is Level.MUST for f in step.findings):
            return row
    for row, step in enumerate(steps):
        if step.findings:
            return row
    return len(steps) - 1


def comparison_line(comparison: Any) -> str:
    """One line: the findings fixed, new and still failing against the previous run."""
    parts = []
    for label, findings in (
        ("fixed", comparison.fixed),
        ("new", comparison.new),
        ("still failing", comparison.still),
    ):
        if findings:
            parts.append(f"{label} " + ", ".join(sorted({f.rule_id for f in findings})))
    gone = getattr(comparison, "gone", ())
    if gone:
        rules = ", ".join(sorted({f.rule_id for f in gone}))
        parts.append(f"no longer seen {rules} ({comparison.gone_because}: not a fix)")
    if not parts:
        return "Since the last run: no findings then or now."
    return "Since the last run: " + " · ".join(parts) + "."
