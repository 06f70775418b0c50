"""What the dashboard does for the bundled demo: resetting its state (R), and saying why a
create answered AlreadyExists (a fresh clientRequestToken and Name per run is the engine's:
``Workspace.request_for``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfn_debug.app.opening import engine_support
from cfn_debug.records import Action

if TYPE_CHECKING:
    from cfn_debug.records import RunRecord


def reset(env_vars: Any) -> Path:
    """Forget every widget earlier runs created; the state directory reset. Raises OSError.
    Called once the project is open (the demo's state: ``cfn_debug.demo.runs``, via the engine
    the opening loaded)."""
    return engine_support().reset_state(env_vars)


def already_exists_hint(run: RunRecord, session_runs: list[RunRecord], *, demo: bool) -> str:
    """AlreadyExists after an earlier run of this session created the same Name: say so, and
    how to start again."""
    requested_name = engine_support().requested_name
    name = requested_name(run.steps[0].request) if run.steps else None
    earlier = [
        n
        for n, past in enumerate(session_runs, start=1)
        if past is not run
        and past.action is Action.CREATE
        and past.final_status == "SUCCESS"
        and past.steps
        and requested_name(past.steps[0].request) == name
    ]
    cause = (
        f"Run #{earlier[-1]} of this session created {name!r}. "
        if earlier and name
        else "A previous run may have created it. "
    )
    if demo:
        return cause + "R resets the demo's state (or edit the event's Name)."
    return cause + "Delete it first (run a delete event), or change the Name."
