"""What the editors need besides the editor screen: the event editor's redacted credentials put
back, and the callbackContext editor's check."""

from __future__ import annotations

from typing import Any

from cfn_debug.text.redact import REDACTED


def restore_redacted(edited: Any, original: Any) -> Any:
    """The editor shows credentials redacted; put the original values back where the marker
    is still in place (anything the user typed over it is kept)."""
    if edited == REDACTED:
        return original
    if isinstance(edited, dict) and isinstance(original, dict):
        return {k: restore_redacted(v, original.get(k)) for k, v in edited.items()}
    if isinstance(edited, list) and isinstance(original, list):
        return [
            restore_redacted(v, original[i] if i < len(original) else None)
            for i, v in enumerate(edited)
        ]
    return edited


def context_problems(value: Any) -> list[tuple[str, str]]:
    if value is None or isinstance(value, dict):
        return []
    return [("", f"expected a JSON object or null, got {type(value).__name__}")]
