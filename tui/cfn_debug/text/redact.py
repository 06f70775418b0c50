"""Keep credentials out of everything cfn-debug shows, journals or exports.

``redact`` returns a copy of a JSON-like value with every credential value replaced by
``REDACTED``: the values of credential keys (accessKeyId, secretAccessKey, sessionToken,
bearerToken, ...), everything inside callerCredentials/providerCredentials/credentials, and any
string that contains an AWS access key id (AKIA/ASIA...). ``mask_write_only`` hides the values of a
schema's writeOnlyProperties in a model, for transcripts that may be shared.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

import re2
from re2 import _re2

from cfn_debug.credentials import PLACEHOLDER_CREDENTIALS
from cfn_debug.text.jsonfast import Splicer, exact, remember_holds

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
#: The spellings of secret keys seen in practice (the fast path checks these before lowering).
_ALL_SECRET_KEYS = frozenset(
    {
        "accessKeyId",
        "secretAccessKey",
        "sessionToken",
        "bearerToken",
        "AccessKeyId",
        "SecretAccessKey",
        "SessionToken",
        "Credentials",
        "CallerCredentials",
        "ProviderCredentials",
        *SECRET_KEYS,
        *CREDENTIAL_CONTAINERS,
        *(k.upper() for k in SECRET_KEYS | CREDENTIAL_CONTAINERS),
        "callerCredentials",
        "providerCredentials",
    }
)

#: No string shorter than an access key id (20 characters) can hold one.
_SHORTEST_SECRET = 20
#: Access key ids: long-term (AKIA) and temporary (ASIA).
_ACCESS_KEY = re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])")
# A 40-character secret access key assigned in text, e.g. "aws_secret_access_key = abc...".
_SECRET_ASSIGNMENT = re.compile(
    r"(?i)(secret[_ ]?access[_ ]?key[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9/+=]{40}"
)


# A session token assigned in text, e.g. "'sessionToken': 'IQoJb3...'" or "aws_session_token=...".
_TOKEN_ASSIGNMENT = re.compile(r"(?i)(session[_ ]?token[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9/+=]{16,}")
#: Credential values shorter than this are not scrubbed by value (they would match too much).
_SHORTEST_VALUE = 16


def redact_text(text: str, values: Iterable[str] = ()) -> str:
    """Replace access key ids and assigned secret keys and session tokens inside free text (log
    lines, messages), and every occurrence of the credential ``values`` (see
    ``credential_values``): a handler that prints a credential alone is caught by value."""
    if len(text) < _SHORTEST_SECRET:
        return text
    for value in values:
        if value in text:
            text = text.replace(value, REDACTED)
    # str.__contains__ is far faster than the regex on long strings, and almost always False
    if ("AKIA" in text or "ASIA" in text) and _ACCESS_KEY.search(text):
        text = _ACCESS_KEY.sub(REDACTED, text)
    if ("oken" in text or "OKEN" in text) and _TOKEN_ASSIGNMENT.search(text):
        text = _TOKEN_ASSIGNMENT.sub(lambda m: m.group(1) + REDACTED, text)
    if "ecret" not in text and "ECRET" not in text:
        return text
    if not _SECRET_ASSIGNMENT.search(text):
        return text
    return _SECRET_ASSIGNMENT.sub(lambda m: m.group(1) + REDACTED, text)


def credential_values(payload: Any) -> tuple[str, ...]:
    """The credential strings a payload carries, for scrubbing by value.

    Looks where the two payload shapes keep them (``credentials``; ``requestData``'s
    ``callerCredentials``/``providerCredentials``) and at secret keys beside them; values shorter
    than 16 characters and cfn-debug's own placeholders are left out.
    """
    placeholders = set(PLACEHOLDER_CREDENTIALS.values())
    found: list[str] = []

    def take(value: Any) -> None:
        if (
            isinstance(value, str)
            and len(value) >= _SHORTEST_VALUE
            and value not in placeholders
            and value != REDACTED
            and value not in found
        ):
            found.append(value)

    if not isinstance(payload, dict):
        return ()
    for holder in (payload, payload.get("requestData"), payload.get("request")):
        if not isinstance(holder, dict):
            continue
        for key, value in holder.items():
            lowered = key.lower() if isinstance(key, str) else key
            if lowered in CREDENTIAL_CONTAINERS and isinstance(value, dict):
                for inner in value.values():
                    take(inner)
            elif lowered in SECRET_KEYS and lowered != "bearertoken":
                take(value)
    # the longest first: a value that contains another is replaced whole
    return tuple(sorted(found, key=len, reverse=True))


def _redact_container(value: Any) -> Any:
    if isinstance(value, dict):
        if all(v in (None, "", REDACTED) for v in value.values()):
            return value
        return {k: (REDACTED if v not in (None, "") else v) for k, v in value.items()}
    if value in (None, ""):
        return value
    return REDACTED


def redact(obj: Any) -> Any:
    """``obj`` (dicts, lists, scalars) with every credential value replaced.

    Copy on write: containers holding no secret are returned as they are (shared, not copied), so
    redacting a large model costs one walk and no allocation. Never mutates ``obj``.
    """
    kind = type(obj)
    if kind is dict:
        return _redact_dict(obj)
    if kind is list:
        return _redact_list(obj)
    if kind is str:
        return obj if len(obj) < _SHORTEST_SECRET else redact_text(obj)
    # subclasses (OrderedDict, ...): as their plain base
    if isinstance(obj, dict):
        return _redact_dict(dict(obj))
    if isinstance(obj, list | tuple):
        return _redact_list(list(obj))
    if isinstance(obj, str):
        return redact_text(str(obj))
    return obj


#: Every lower-cased key name that redaction acts on.
_SECRET_NAMES = SECRET_KEYS | CREDENTIAL_CONTAINERS


def _has_marker(text: str) -> bool:
    """Whether ``redact_text(text)`` (no values) could change ``text``: the markers it tests."""
    return (
        "AKIA" in text
        or "ASIA" in text
        or "oken" in text
        or "OKEN" in text
        or "ecret" in text
        or "ECRET" in text
    )


def _redact_dict(obj: dict[Any, Any]) -> dict[Any, Any]:
    # the hot loop of redacting a large model: strings are tested inline (no redact() call per
    # value); the outcome is what redact() gives for each value
    changed: dict[Any, Any] | None = None
    for key, value in obj.items():
        kind = type(value)
        if kind is str:
            if len(value) < _SHORTEST_SECRET and key not in _ALL_SECRET_KEYS:
                continue
        elif kind is int or kind is float or kind is bool or value is None:
            continue
        lowered = key.lower() if type(key) is str else key
        if lowered in _SECRET_NAMES:
            if lowered in CREDENTIAL_CONTAINERS:
                new = _redact_container(value)
            elif value not in ("", REDACTED):
                new = REDACTED if kind is str else _redact_container(value)
            else:
                new = redact(value)
        elif kind is str:  # at least _SHORTEST_SECRET long here; _has_marker, inline
            if not (
                "AKIA" in value
                or "ASIA" in value
                or "oken" in value
                or "OKEN" in value
                or "ecret" in value
                or "ECRET" in value
            ):
                continue
            new = redact_text(value)
        else:  # through redact(), as before: two frames a level (chain.too_deep's threshold)
            new = redact(value)
        if new is not value:
            if changed is None:
                changed = {}
            changed[key] = new
    if changed is None:
        return obj
    return {k: changed.get(k, v) for k, v in obj.items()}


def _redact_list(obj: list[Any]) -> list[Any]:
    out: list[Any] | None = None
    for i, item in enumerate(obj):
        kind = type(item)
        if kind is dict or kind is list:
            new = redact(item)  # two frames a level, as chain.too_deep expects
        elif kind is str:
            if len(item) < _SHORTEST_SECRET or not _has_marker(item):
                continue
            new = redact_text(item)
        else:
            continue
        if new is not item:
            if out is None:
                out = list(obj)
            out[i] = new
    return obj if out is None else out


def redact_lines(lines: Iterable[str], values: Iterable[str] = ()) -> list[str]:
    values = tuple(values)
    return [redact_text(line, values) for line in lines]


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


#: Lower-cased byte strings one of which a JSON text holds if ``redact`` could change anything in
#: it: every secret key and credential container name, and the markers ``redact_text`` looks for.
_MARKS = (
    b"credentials",
    b"oken",
    b"ecret",
    b"akia",
    b"asia",
    b"accesskeyid",
    b"access_key_id",
)
#: KELVIN SIGN, the one character outside ASCII whose lower case is an ASCII letter (k): a key
#: spelled with it lowers to a secret key's name, which the byte-wise lower() above cannot see.
_KELVIN = "\u212a".encode()


#: Large encodings found clean lately: a journal meets each model twice (returned by one step,
#: sent by the next), and comparing bytes is much cheaper than scanning them again.
_RECENT_CLEAN: list[bytes] = []
_RECENT_MIN = 64 * 1024
_RECENT_KEPT = 4


#: What jsonfast.holds is asked of a model's encoding: told by the secret scan's pass as well.
_LITERALS = (b"null", b"true", b"false")


def _marks_searcher() -> Callable[[bytes], bool] | None:
    """One RE2 pass that tells whether ``raw.lower()`` holds one of ``_MARKS`` (~0.7 GB/s, where
    lowering and seven ``in`` passes take twice as long), or None without RE2.

    Latin-1 mode, case-insensitive: every byte is one character, and the only characters that
    fold to the marks' ASCII letters are their ASCII upper cases (the non-ASCII ones that fold
    to k and s, KELVIN SIGN and LONG S, are beyond Latin-1), so a match is exactly a mark in the
    ASCII-lowered bytes. The same pass tells whether ``raw`` holds ``null``, ``true`` and
    ``false`` (case-sensitive), remembered for ``jsonfast.holds``: the checks, the diffs and the
    journal ask it of the same encodings, and would search each again (~3 ms for 5 MB)."""
    options = re2.Options()
    options.log_errors = False
    options.encoding = re2.Options.Encoding.LATIN1
    both = _re2.Set(_re2.RE2.Anchor.UNANCHORED, options)
    marks = both.Add(b"(?i)(?:" + b"|".join(_MARKS) + b")")
    literals = {both.Add(literal): literal for literal in _LITERALS}
    if marks < 0 or min(literals) < 0 or not both.Compile():  # pragma: no cover
        return None
    match = both.Match

    def search(raw: bytes) -> bool:
        found = match(raw)
        for number, literal in literals.items():
            remember_holds(raw, literal, number in found)
        return marks in found

    return search


def _holds_mark_plain(raw: bytes) -> bool:
    """Whether ``raw.lower()`` holds one of ``_MARKS`` (the reference for ``_holds_mark``)."""
    lowered = raw.lower()
    return any(mark in lowered for mark in _MARKS)


#: Below this many bytes the plain test is as quick as a call into RE2.
_SEARCH_MIN = 4096
#: The RE2 search, made on first use (importing RE2 costs a command's start ~7 ms): ... until.
_search_marks: Any = ...


def _searcher() -> Callable[[bytes], bool] | None:
    global _search_marks
    if _search_marks is ...:
        _search_marks = _marks_searcher()
    return _search_marks


def _holds_mark(raw: bytes) -> bool:
    search = _searcher() if len(raw) >= _SEARCH_MIN else None
    return _holds_mark_plain(raw) if search is None else search(raw)


def may_hold_secret(raw: bytes) -> bool:
    """False only if ``redact`` leaves the value encoded as ``raw`` (UTF-8 JSON) unchanged."""
    large = len(raw) >= _RECENT_MIN
    if large and raw in _RECENT_CLEAN:  # equal bytes (compared by length first)
        return False
    if not raw.isascii() and _KELVIN in raw:
        return True
    if _holds_mark(raw):
        return True
    if large:
        _RECENT_CLEAN.insert(0, raw)
        del _RECENT_CLEAN[_RECENT_KEPT:]
    return False


def _secret_key(key: str) -> bool:
    lowered = key.lower()
    return lowered in CREDENTIAL_CONTAINERS or lowered in SECRET_KEYS


#: Below this many bytes of JSON a part is walked: encoding it to scan it would cost as much.
_SCAN_MIN = 64 * 1024
#: Objects nested deeper than this are never taken apart by ``redact_large``.
_LARGE_MAX_DEPTH = 8


def redact_large(
    obj: Any,
    *,
    split_depth: int = 2,
    encode: Callable[[Any], bytes | None] | None = None,
    scan_min: int | None = None,
) -> Any:
    """``redact(obj)`` for a request or ProgressEvent that may carry multi-megabyte models.

    Objects less than ``split_depth`` deep are taken apart member by member; any other part of at
    least 64 KB of JSON that ``may_hold_secret`` finds clean is returned as it is, unwalked (a
    5 MB model: ~5 ms to encode and compare with a recent clean encoding, ~20 ms to scan, ~25 ms
    to walk). Everything else is ``redact``ed. ``encode`` is ``jsonfast.exact`` or a memo of it
    (``diff.Encodings.of``, so a step's diffs reuse the encodings). ``scan_min``: parts of fewer
    bytes of JSON than this (default 64 KB) are walked rather than scanned (0: every part is
    scanned first, and only the members of those that may hold a secret are walked). The result
    equals ``redact(obj)``, except that a tuple inside a part passed unwalked stays a tuple
    (``redact`` makes it a list; both encode as the same JSON array).
    """
    if encode is None:
        encode = exact
    return _redact_large(obj, 0, split_depth, encode, _SCAN_MIN if scan_min is None else scan_min)


def _redact_large(
    obj: Any,
    depth: int,
    split_depth: int,
    encode: Callable[[Any], bytes | None],
    scan_min: int,
) -> Any:
    kind = type(obj)
    if kind is not dict and kind is not list:
        return redact(obj)
    if depth >= split_depth or kind is list:
        raw = encode(obj)
        if raw is None or len(raw) < scan_min:
            return redact(obj)
        if not may_hold_secret(raw):
            return obj
        if kind is list or depth >= _LARGE_MAX_DEPTH:
            return redact(obj)
    if any(type(key) is not str for key in obj):
        return redact(obj)
    changed: dict[Any, Any] | None = None
    for key, value in obj.items():
        value_kind = type(value)
        if (value_kind is dict or value_kind is list) and not _secret_key(key):
            new = _redact_large(value, depth + 1, split_depth, encode, scan_min)
        else:
            new = _redact_dict({key: value})[key]
        if new is not value:
            if changed is None:
                changed = {}
            changed[key] = new
    if changed is None:
        return obj
    return {k: changed.get(k, v) for k, v in obj.items()}


def redacted_json(obj: Any, dumps: Callable[[Any], str], *, split_depth: int = 0) -> bytes:
    """``dumps(redact(obj))`` as UTF-8: :func:`redacted_json_parts` joined."""
    return b"".join(redacted_json_parts(obj, dumps, split_depth=split_depth))


def redacted_json_parts(
    obj: Any,
    dumps: Callable[[Any], str],
    *,
    split_depth: int = 0,
    encode: Callable[[Any], bytes | None] | None = None,
) -> list[bytes]:
    """``dumps(redact(obj))`` as UTF-8 in pieces, in a fraction of the time for large models.

    ``dumps`` is a compact (separators "," and ":") ``json.dumps`` with ``ensure_ascii=False``.
    Parts that ``may_hold_secret`` says are clean, and that orjson encodes as json would, are
    encoded by orjson without a walk; the rest are redacted and encoded by ``dumps`` as before.
    Objects nested less than ``split_depth`` deep are always taken apart member by member.
    ``encode``: :func:`cfn_debug.text.jsonfast.exact` (the default) or a memo of it.
    """

    def member(key: str, value: Any) -> str:
        return dumps(_redact_dict({key: value})[key])

    return Splicer(
        lambda value: dumps(redact(value)),
        member=member,
        descend=lambda key: not _secret_key(key),
        clean=lambda raw: not may_hold_secret(raw),
        split_depth=split_depth,
        encode=encode or exact,
    ).parts(obj)


# --- type configuration keys that look secret ---------------------------------------------------

#: Words that make a key a secret wherever they stand in it (ApiToken, DbPassword, ClientSecret).
_SECRET_WORDS = frozenset(
    {"password", "passwd", "passphrase", "secret", "token", "credential", "credentials"}
)
#: Last words that name something about a secret, not the secret itself (SecretArn, TokenUrl,
#: PasswordLength): such a key is not masked.
_ABOUT_WORDS = frozenset(
    {
        "arn", "id", "ids", "name", "names", "url", "uri", "endpoint", "type", "length",
        "size", "count", "ttl", "expiry", "expiration", "region", "version", "enabled",
        "policy", "format", "path", "field", "header", "rotation",
    }
)  # fmt: skip
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def secret_looking_key(key: str) -> bool:
    """Whether a type configuration key names a secret: it holds a secret word (password,
    secret, token, credential ...), or it ends in the word "key" (ApiKey, PrivateKey, key), and
    its last word does not name something *about* a secret (KeyName, KeyId, SecretArn, TokenUrl).
    Words are split at case changes, digits, ``_`` and ``-``: ``api_key``, ``APIKey``, ``apiKey``.
    """
    words = [w.lower() for w in _WORD.findall(key)]
    if not words or words[-1] in _ABOUT_WORDS:
        return False
    return words[-1] == "key" or any(w in _SECRET_WORDS for w in words)
