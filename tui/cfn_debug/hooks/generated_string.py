"""A string a schema pattern accepts, made by hypothesis-jsonschema (seeded, so the same pattern
gives the same string): for a hook target's property when no usual value fits its pattern. Its
own module so that hypothesis (~0.4 s of imports) loads only when a pattern needs it."""

from __future__ import annotations

import warnings
from typing import Any

from hypothesis import HealthCheck, given, seed, settings
from hypothesis.errors import NonInteractiveExampleWarning
from hypothesis_jsonschema import from_schema


def generated_string(pattern: str, low: int, high: int | None) -> str | None:
    """One string of ``low``..``high`` characters that ``pattern`` accepts, or None when
    hypothesis cannot generate one."""
    node: dict[str, Any] = {"type": "string", "pattern": pattern, "minLength": low}
    if high is not None:
        node["maxLength"] = high
    found: list[str] = []
    try:
        strategy = from_schema(node)

        @seed(20260)
        @settings(max_examples=1, database=None, suppress_health_check=list(HealthCheck))
        @given(strategy)
        def take(value: str) -> None:
            if not found:
                found.append(value)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NonInteractiveExampleWarning)
            warnings.simplefilter("ignore", UserWarning)
            take()
    except Exception:  # a pattern hypothesis cannot generate from (or a Java-only syntax)
        return None
    return found[0] if found else None
