"""Keep credentials out of everything cfn-debug shows, journals or exports.

``redact`` returns a copy of a JSON-like value with every credential value replaced by
``REDACTED``: the values of credential keys (accessKeyId, secretAccessKey, sessionToken,
bearerToken, ...), everything inside callerCredentials/providerCredentials/credentials, and any
string that contains an AWS access key id (AKIA/ASIA...). ``mask_write_only`` hides the values of a
schema's writeOnlyProperties in a model, for transcripts that may be shared.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

REDACTED = "***REDACTED***"

#: Keys whose value is a secret wherever they appear.
SECRET_KEYS = frozenset(
    {
        "accesskeyid",
        "secretaccesskey",
        "sessiontoken",
        "bearertoken",
        "aws_access_key_id",
        "aws_secret_access_key",
        "aws_session_token",
    }
)
#: Keys whose whole content (an object of credentials) is secret.
CREDENTIAL_CONTAINERS = frozenset({"callercredentials", "providercredentials", "credentials"})

_ACCESS_KEY = re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|AIDA|AROA|AIPA|ANPA|ANVA|AGPA)[A-Z0-9]{16}")
# A 40-character secret access key assigned in text, e.g. "aws_secret_access_key = abc...".
_SECRET_ASSIGNMENT = re.compile(
    r"(?i)(secret[_ ]?access[_ ]?key[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9/+=]{40}"
)


def redact_text(text: str) -> str:
    """Replace access key ids and assigned secret keys inside free text (log lines, messages)."""
    if "A" not in text and "ecret" not in text and "ECRET" not in text:
        return text
    text = _ACCESS_KEY.sub(REDACTED, text)
    return _SECRET_ASSIGNMENT.sub(lambda m: m.group(1) + REDACTED, text)


def _redact_container(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: (REDACTED if v not in (None, "") else v) for k, v in value.items()}
    if value in (None, ""):
        return value
    return REDACTED


def redact(obj: Any) -> Any:
    """A copy of ``obj`` (dicts, lists, scalars) with every credential value replaced.

    Values that hold no secret are shared with the input, not copied, so redacting a large model
    costs one walk and no allocation for its unchanged strings.
    """
    if isinstance(obj, dict):
        out: dict[Any, Any] = {}
        for key, value in obj.items():
            lowered = key.lower() if isinstance(key, str) else key
            if lowered in CREDENTIAL_CONTAINERS:
                out[key] = _redact_container(value)
            elif lowered in SECRET_KEYS and value not in (None, ""):
                out[key] = REDACTED if isinstance(value, str) else _redact_container(value)
            else:
                out[key] = redact(value)
        return out
    if isinstance(obj, list):
        return [redact(item) for item in obj]
    if isinstance(obj, str):
        return redact_text(obj)
    return obj


def redact_lines(lines: Iterable[str]) -> list[str]:
    return [redact_text(line) for line in lines]


def _model_pointer_parts(pointer: str) -> list[str]:
    """'/properties/A/items/properties/B' or '/A/*/B' -> ['A', '*', 'B']."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    if not pointer.startswith("/properties/"):
        return parts  # already a model pointer (what schema.ResourceSchema.write_only holds)
    out: list[str] = []
    i = 0
    while i < len(parts):
        part = parts[i]
        if part == "properties" and i + 1 < len(parts):
            out.append(parts[i + 1])
            i += 2
            continue
        out.append("*" if part in ("items", "*") else part)
        i += 1
    return out


def _mask(value: Any, parts: list[str]) -> Any:
    if not parts:
        return REDACTED if value is not None else value
    head, rest = parts[0], parts[1:]
    if head == "*" and isinstance(value, list):
        return [_mask(item, rest) for item in value]
    if isinstance(value, dict) and head in value:
        return {**value, head: _mask(value[head], rest)}
    return value


def mask_write_only(model: dict[str, Any] | None, schema: Any) -> dict[str, Any] | None:
    """A copy of ``model`` with the values of the schema's writeOnlyProperties masked.

    ``schema`` is a ResourceSchema (its ``write_only`` pointers, either schema pointers such as
    ``/properties/Password`` or model pointers such as ``/Password``), or None (nothing masked).
    """
    if model is None or schema is None:
        return model
    masked: Any = model
    for pointer in getattr(schema, "write_only", None) or ():
        masked = _mask(masked, _model_pointer_parts(pointer))
    return masked
