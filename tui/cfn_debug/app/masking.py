"""Credentials never reach a screenshot: every credential value the session carries is masked in
the SVG, as exports mask them; an error shown or logged goes through ``redact_text``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cfn_debug.text.redact import CREDENTIAL_CONTAINERS, SECRET_KEYS, redact_text

__all__ = ["known_secrets", "redact_text", "scrub_secrets"]


def known_secrets(sources: Iterable[Any]) -> set[str]:
    """Every credential value found in ``sources`` (events' data, the profile's credentials)."""
    found: set[str] = set()
    for source in sources:
        _collect_secrets(source, found, inside=False)
    return {s for s in found if len(s) >= 8}


def _collect_secrets(value: Any, found: set[str], *, inside: bool) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            lowered = str(key).lower()
            secret = inside or lowered in SECRET_KEYS or lowered in CREDENTIAL_CONTAINERS
            _collect_secrets(item, found, inside=secret)
    elif isinstance(value, list | tuple):
        for item in value:
            _collect_secrets(item, found, inside=inside)
    elif inside and isinstance(value, str):
        found.add(value)
    elif hasattr(value, "__dict__") and not isinstance(value, str | int | float | bool):
        _collect_secrets(vars(value), found, inside=True)


def scrub_secrets(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every known secret (and anything that looks like an access key) masked."""
    return redact_text(text, sorted(secrets, key=len, reverse=True))
