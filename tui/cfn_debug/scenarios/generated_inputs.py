"""The generated-inputs scenario: creates from inputs generated from the schema, each replayed
in a sub-play and shrunk when a handler fails on it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from cfn_debug.records import RunEnded, RunStarted, StepCompleted
from cfn_debug.scenarios.generate import Attempt, search
from cfn_debug.scenarios.inputs import apply_overrides
from cfn_debug.scenarios.outcome import (
    describe,
    error_code_of,
    failed_with,
    model_of,
    read_back_problems,
    status_of,
    succeeded,
)
from cfn_debug.scenarios.play import Play
from cfn_debug.scenarios.results import ActionStarted, Purpose


async def generated_inputs(p: Play) -> None:
    options = p.runner.options
    if options.examples <= 0:
        p.skip("scenario-generated-inputs", "no generated inputs asked for (--examples 0)")
        return
    loop = asyncio.get_running_loop()
    overrides = p.runner.inputs.overrides.get("CREATE", {})
    rejected: list[dict[str, Any]] = []
    refused: list[tuple[dict[str, Any], str]] = []  # created nothing, cleanly FAILED

    async def attempt(model: dict[str, Any]) -> Attempt:
        sub = Play(p.runner, p.name, p.result.title, p.emit, rules=p.rules, quiet=True)
        sent = apply_overrides(model, overrides) if overrides else model
        sent, sub.unique_values = sub.make_unique(sent)
        sub.create_input = sent
        reasons = await _try_generated(sub, sent)
        if sub.refused and not reasons:
            refused.append((model, sub.refused))
        elif sub.result.notes and not reasons:
            rejected.append(model)
        try:
            await sub.cleanup()
        except Exception as error:  # reported with the attempt; the search goes on
            reasons.append(f"cleanup failed: {error}")
        return Attempt(model, bool(reasons), reasons, payload=sub)

    def try_input(model: dict[str, Any]) -> Attempt:
        return asyncio.run_coroutine_threadsafe(attempt(model), loop).result()

    found = await asyncio.to_thread(
        search,
        p.schema,
        try_input,
        examples=options.examples,
        budget=options.examples + options.shrink_budget,
        seed=options.seed,
    )
    p.result.examples_run = found.attempts
    if rejected:
        p.note(
            f"{len(rejected)} generated input(s) rejected with FAILED InvalidRequest: not judged "
            "(the schema cannot express every rule of the service)"
        )
    if refused:
        model, why = refused[0]
        p.verdict(
            "scenario-generated-inputs-created",
            False,
            f"{len(refused)} of {found.attempts} generated input(s) not created; the first, "
            f"{json.dumps(model, ensure_ascii=False)}: {why} (a value naming a resource that "
            "must exist? give it in inputs/ or overrides.json)",
            "create (generated input)",
        )
    if found.failure is None:
        judged = found.attempts - len(rejected) - len(refused)
        if judged <= 0 and refused:
            p.skip(
                "scenario-generated-inputs",
                "no generated input was created, so none could be read back and deleted",
            )
            return
        p.verdict(
            "scenario-generated-inputs",
            True,
            f"{judged} generated input(s) created, read back equal and deleted"
            + (f"; {len(rejected)} rejected with InvalidRequest" if rejected else ""),
        )
        return
    failure = found.failure
    sub = failure.payload
    # what the create sent (overrides applied, unique values suffixed), not the generated model
    sent = sub.create_input if isinstance(sub.create_input, dict) else failure.model
    p.result.minimal_input = sent
    _replay(p, sub)
    stopped = " (shrinking stopped at the run budget)" if found.budget_exhausted else ""
    text = (
        f"minimal failing input{stopped}, as sent: {json.dumps(sent, ensure_ascii=False)}"
        + (
            f" (generated as {json.dumps(failure.model, ensure_ascii=False)})"
            if sent != failure.model
            else ""
        )
        + f"; after {found.attempts} input(s): "
        + "; ".join(failure.reasons[:5])
    )
    p.verdict("scenario-generated-inputs", False, text, "create (generated input)")


async def _try_generated(sub: Play, model: dict[str, Any]) -> list[str]:
    reasons: list[str] = []

    def findings(run: Any, label: str) -> None:
        for f in run.must_failures:
            reasons.append(f"{label}: {f.rule_id}: {f.message.splitlines()[0]}")

    created = await sub.create(model, "create (generated input)")
    findings(created.run, "create")
    if failed_with(created.run, "InvalidRequest") and not created.run.must_failures:
        # the schema cannot say everything the service refuses: rejecting an input it allows
        # is the handler's right, and FAILED InvalidRequest is the way to say so
        sub.result.notes.append("rejected with InvalidRequest (not judged)")
        return reasons
    if status_of(created.run) == "FAILED" and error_code_of(created.run) and not reasons:
        # nor can it say that a name must belong to a resource that exists (a bucket, a table):
        # a correct handler answers FAILED NotFound (or what the service said) for a generated
        # one, so a clean FAILED is the SHOULD scenario-generated-inputs-created, not a MUST
        sub.refused = f"create ended {describe(created.run)}"
        return reasons
    if not succeeded(created.run):
        reasons.append(f"create ended {describe(created.run)}")
        return reasons
    if not created.identifier:
        # its create's primary-identifier-present says why; a read or delete built from that
        # model would carry no identifier, a fault of cfn-debug's request, not the handler's
        reasons.append("create returned SUCCESS without a primary identifier: not read back")
        return reasons
    read = await sub.read(created.model, "read back")
    findings(read, "read")
    if not succeeded(read):
        reasons.append(f"read ended {describe(read)}")
    else:
        problems = read_back_problems(sub.schema, model, model_of(read) or {})
        reasons.extend(f"read back: {text}" for _, text in problems[:3])
    deleted = await sub.delete(created.model, "delete")
    findings(deleted, "delete")
    if not succeeded(deleted):
        reasons.append(f"delete ended {describe(deleted)}")
    return reasons


def _replay(p: Play, sub: Play) -> None:
    """Show the minimal failing input's chains in the scenario, as if they ran there."""
    for action in sub.result.actions:
        p.result.actions.append(action)
        p.emit(ActionStarted(p.name, action.label, action.purpose, action.waived))
        run = action.run
        p.emit(RunStarted(run=type(run)(**{**run.__dict__, "steps": []})))
        for step in run.steps:
            p.emit(StepCompleted(run.run_id, step))
        p.emit(RunEnded(run=run))
    for line in sub.result.cleanup:
        p.result.cleanup.append(f"minimal input: {line}")
    p.result.leaked.extend(sub.result.leaked)
    if any(a.purpose is Purpose.CLEANUP for a in sub.result.actions):
        p.note("the minimal input's cleanup is shown with its chains")
