"""The ``--json`` document of `cfn-debug scenario` (resource and hook projects alike): the
endpoint, AWS target, type, inputs, each scenario's masked result, counts, leaks and errors."""

from __future__ import annotations

import argparse
from typing import Any

from cfn_debug import __version__
from cfn_debug.scenarios.masking import masked_results
from cfn_debug.scenarios.results import Outcome

#: Outcomes that leave a run "ok" (exit 0).
OK_OUTCOMES = frozenset({Outcome.PASSED, Outcome.WARNED, Outcome.SKIPPED})


def scenario_document(args: argparse.Namespace, partial: dict[str, Any]) -> dict[str, Any]:
    """The --json document from what there is: the workspace, runner and results so far."""
    workspace = partial.get("workspace")
    hook = getattr(workspace, "hook", None)  # a hook project (cfn_debug.hooks)
    runner = partial.get("runner")
    results = partial.get("results", [])
    schema = workspace.schema if workspace is not None else None
    target = workspace.aws_target if workspace is not None else None
    errors = [
        {"kind": "infrastructure", "scenario": r.name, "message": r.error or "could not run"}
        for r in results
        if r.outcome is Outcome.ERROR
    ] + [
        {"kind": "blocked", "scenario": r.name, "message": r.notes[-1] if r.notes else "blocked"}
        for r in results
        if r.outcome is Outcome.BLOCKED
    ]
    write_only = schema.write_only if schema is not None else ()
    reveal = bool(getattr(args, "reveal_write_only", False))
    return {
        "cfn_debug": __version__,
        "endpoint": workspace.endpoint_label if workspace is not None else None,
        "aws": target.to_dict() if target is not None else None,
        "type_name": schema.type_name if schema else hook.schema.type_name if hook else None,
        "inputs": runner.inputs.source if runner is not None else None,
        "type_configuration": partial.get("type_configuration"),
        "ok": all(r.outcome in OK_OUTCOMES for r in results) and not errors,
        "counts": {o.value: sum(r.outcome is o for r in results) for o in Outcome},
        "scenarios": masked_results(results, write_only, reveal=reveal),
        "leaked": [
            {"scenario": name, "identifier": identifier}
            for name, identifier in (runner.leaked if runner is not None else [])
        ],
        "errors": errors,
        "notices": partial.get("notices", []),
    }
