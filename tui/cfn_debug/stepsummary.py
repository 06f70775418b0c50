"""One line that says what a step's answer holds where the status alone does not: how many
models a LIST page returned and whether a nextToken came with them. Shared by the console
printer and the dashboard (and anything else that lists steps)."""

from __future__ import annotations

from cfn_debug.records import Action, Step


def list_summary(step: Step) -> str | None:
    """``3 model(s), nextToken "abc…"`` / ``0 model(s), no nextToken``; None for other steps."""
    progress = step.result.progress
    if step.action is not Action.LIST or not isinstance(progress, dict):
        return None
    if progress.get("status") != "SUCCESS":
        return None
    models = progress.get("resourceModels")
    count = f"{len(models)} model(s)" if isinstance(models, list) else "no resourceModels array"
    token = progress.get("nextToken")
    if token is None or token == "":
        return f"{count}, no nextToken (the last page)"
    text = str(token)
    shown = text if len(text) <= 24 else text[:21] + "..."
    return f"{count}, nextToken {shown!r} (more pages)"
