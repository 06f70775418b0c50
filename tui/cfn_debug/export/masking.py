"""What an export may show: credentials always redacted, writeOnly values masked unless revealed.

Every writer takes its runs through :class:`Masker`. Three layers, cheapest first:

1. ``cfn_debug.redact.redact`` over the whole run (credential keys, access key ids in text).
2. The schema's writeOnlyProperties masked where they live: the models of each request
   (sam-style ``request.desiredResourceState``/``previousResourceState`` and the HandlerRequest's
   ``requestData.resourceProperties``/``previousResourceProperties``), the returned
   ``resourceModel``/``resourceModels``, and the before/after values of the model diffs.
3. The credential values and writeOnly *values* seen in the session's requests and models
   scrubbed from every other string (log lines, messages, callbackContext, properties a handler
   copied them into). Only values of at least :data:`MIN_SCRUB_LEN` characters are scrubbed this
   way, so short values do not garble unrelated text; layers 1 and 2 hide them where they belong.
   Credential values are scrubbed even with ``reveal_write_only``.
4. Free text (log lines, stack traces, bodies, messages) loses what looks like a secret access
   key (40 base64 characters of mixed case) or an STS session token, even when the session never
   recorded the value itself: a journal keeps logs as the handler printed them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from cfn_debug.records import RunRecord
from cfn_debug.redact import CREDENTIAL_CONTAINERS, REDACTED, SECRET_KEYS, redact

WRITE_ONLY_MASK = "***WRITE-ONLY***"
MIN_SCRUB_LEN = 6

# A secret access key: exactly 40 of [A-Za-z0-9/+] with upper, lower and a digit or / or +.
# An STS session token: its well-known base64 prefixes and a long base64 tail.
_CREDENTIAL_TEXT = re.compile(
    r"(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[a-z])"
    r"(?=[A-Za-z0-9/+]*[0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
    r"|(?:IQoJb3JpZ2lu|FwoGZXIvYXdz)[A-Za-z0-9/+=]{20,}"
)


def redact_credential_text(text: str) -> str:
    """``text`` without anything shaped like a secret access key or a session token."""
    return _CREDENTIAL_TEXT.sub(REDACTED, text)


_REQUEST_MODEL_PATHS: tuple[tuple[str, str], ...] = (
    ("request", "desiredResourceState"),
    ("request", "previousResourceState"),
    ("requestData", "resourceProperties"),
    ("requestData", "previousResourceProperties"),
)


def pointer_parts(pointer: str) -> tuple[str, ...]:
    """A model pointer ('/Secret', '/Items/*/Key', '/Items/0/Key') as its unescaped segments.

    These are ``ResourceSchema.write_only``'s model pointers (schema pointers already resolved),
    where '*' stands for any array item.
    """
    if not pointer:
        return ()
    return tuple(p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:])


def _matches(pattern: Sequence[str], parts: Sequence[str]) -> bool:
    return len(pattern) == len(parts) and all(
        p == "*" or p == q for p, q in zip(pattern, parts, strict=True)
    )


def _mask_at(value: Any, parts: Sequence[str]) -> Any:
    """A copy of ``value`` with what lies at ``parts`` masked (shared where untouched)."""
    if not parts:
        return WRITE_ONLY_MASK if value is not None else None
    head, rest = parts[0], parts[1:]
    if isinstance(value, list) and (head == "*" or head.isdigit()):
        if head == "*":
            return [_mask_at(item, rest) for item in value]
        index = int(head)
        if index < len(value):
            return [*value[:index], _mask_at(value[index], rest), *value[index + 1 :]]
        return value
    if isinstance(value, dict):
        if head == "*":
            return {k: _mask_at(v, rest) for k, v in value.items()}
        if head in value:
            return {**value, head: _mask_at(value[head], rest)}
    return value


def _values_at(value: Any, parts: Sequence[str]) -> Iterator[Any]:
    if not parts:
        yield value
        return
    head, rest = parts[0], parts[1:]
    if isinstance(value, list):
        if head == "*":
            for item in value:
                yield from _values_at(item, rest)
        elif head.isdigit() and int(head) < len(value):
            yield from _values_at(value[int(head)], rest)
    elif isinstance(value, dict):
        if head == "*":
            for item in value.values():
                yield from _values_at(item, rest)
        elif head in value:
            yield from _values_at(value[head], rest)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield json.dumps(value)


def _credential_values(value: Any, into: set[str]) -> None:
    """Collect the credential strings of a request (before redaction hides them)."""
    if isinstance(value, dict):
        for key, item in value.items():
            lowered = key.lower() if isinstance(key, str) else key
            if lowered in CREDENTIAL_CONTAINERS or lowered in SECRET_KEYS:
                into.update(_strings(item))
            else:
                _credential_values(item, into)
    elif isinstance(value, list):
        for item in value:
            _credential_values(item, into)


def _redact_free_text(step: dict[str, Any]) -> dict[str, Any]:
    result = step["result"]
    texts = [*result["logs"], *result["stack_trace"], result["body_excerpt"]]
    texts.append(result.get("error_message") or "")
    texts.extend(f["message"] for f in step["findings"])
    if not any(_CREDENTIAL_TEXT.search(t) for t in texts):
        return step
    result = {
        **result,
        "logs": [redact_credential_text(line) for line in result["logs"]],
        "stack_trace": [redact_credential_text(line) for line in result["stack_trace"]],
        "body_excerpt": redact_credential_text(result["body_excerpt"]),
        "error_message": redact_credential_text(result["error_message"])
        if result.get("error_message")
        else result.get("error_message"),
    }
    findings = [{**f, "message": redact_credential_text(f["message"])} for f in step["findings"]]
    return {**step, "result": result, "findings": findings}


class Masker:
    """Masks runs for export. Build it over the whole session so every secret is known first."""

    def __init__(
        self,
        write_only: Iterable[str] = (),
        *,
        reveal_write_only: bool = False,
        runs: Iterable[RunRecord] = (),
    ) -> None:
        self.reveal_write_only = reveal_write_only
        self.write_only: tuple[tuple[str, ...], ...] = (
            () if reveal_write_only else tuple(sorted({pointer_parts(p) for p in write_only}))
        )
        secrets: set[str] = set()
        credentials: set[str] = set()
        for run in runs:
            for step in run.steps:
                _credential_values(step.request, credentials)
                if not self.write_only:
                    continue
                for model in self._step_models(step.request, step.result.progress):
                    for parts in self.write_only:
                        for found in _values_at(model, parts):
                            secrets.update(s for s in _strings(found) if len(s) >= MIN_SCRUB_LEN)
        credentials = {c for c in credentials if len(c) >= MIN_SCRUB_LEN and c != REDACTED}
        self.secrets = frozenset(secrets - credentials)
        self.credentials = frozenset(credentials)
        self._replacement = {**dict.fromkeys(self.secrets, WRITE_ONLY_MASK)}
        self._replacement.update(dict.fromkeys(self.credentials, REDACTED))
        # Longest first, so a secret that contains another is replaced whole.
        ordered = sorted(self._replacement, key=len, reverse=True)
        self._scrub = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        # The same secrets as json.dumps writes them inside a string, to find them in one pass.
        self._detect = (
            re.compile("|".join(re.escape(json.dumps(s)[1:-1]) for s in ordered))
            if ordered
            else None
        )

    @property
    def masks_write_only(self) -> bool:
        return bool(self.write_only)

    @staticmethod
    def _step_models(request: Any, progress: Any) -> Iterator[Any]:
        if isinstance(request, dict):
            for outer, inner in _REQUEST_MODEL_PATHS:
                holder = request.get(outer)
                if isinstance(holder, dict) and isinstance(holder.get(inner), dict):
                    yield holder[inner]
        if isinstance(progress, dict):
            if isinstance(progress.get("resourceModel"), dict):
                yield progress["resourceModel"]
            models = progress.get("resourceModels")
            if isinstance(models, list):
                yield from (m for m in models if isinstance(m, dict))

    # --- structural masking -------------------------------------------------------------

    def mask_model(self, model: Any) -> Any:
        for parts in self.write_only:
            model = _mask_at(model, parts)
        return model

    def _mask_request(self, request: dict[str, Any]) -> dict[str, Any]:
        out = dict(request)
        for outer, inner in _REQUEST_MODEL_PATHS:
            holder = out.get(outer)
            if isinstance(holder, dict) and inner in holder:
                out[outer] = {**holder, inner: self.mask_model(holder[inner])}
        return out

    def _mask_progress(self, progress: dict[str, Any] | None) -> dict[str, Any] | None:
        if progress is None:
            return None
        out = dict(progress)
        if "resourceModel" in out:
            out["resourceModel"] = self.mask_model(out["resourceModel"])
        if isinstance(out.get("resourceModels"), list):
            out["resourceModels"] = [self.mask_model(m) for m in out["resourceModels"]]
        return out

    def _mask_change(self, change: dict[str, Any]) -> dict[str, Any]:
        pointer = change.get("pointer")
        if not isinstance(pointer, str):
            return change
        parts = pointer_parts(pointer) if pointer else ()
        out = dict(change)
        for wo in self.write_only:
            if len(parts) >= len(wo) and _matches(wo, parts[: len(wo)]):
                # The change is at or inside a writeOnly property: hide both sides whole.
                for side in ("before", "after"):
                    if out.get(side) is not None:
                        out[side] = WRITE_ONLY_MASK
                return out
            if len(parts) < len(wo) and _matches(wo[: len(parts)], parts):
                for side in ("before", "after"):
                    out[side] = _mask_at(out.get(side), wo[len(parts) :])
        return out

    # --- the whole run --------------------------------------------------------------------

    def _scrub_value(self, value: Any) -> Any:
        assert self._scrub is not None
        if isinstance(value, str):
            return self._scrub.sub(lambda m: self._replacement[m.group()], value)
        if isinstance(value, dict):
            return {k: self._scrub_value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._scrub_value(v) for v in value]
        return value

    def _scrub_step(self, step: dict[str, Any]) -> dict[str, Any]:
        if self._detect is None or not self._detect.search(json.dumps(step, ensure_ascii=False)):
            return step
        return self._scrub_value(step)  # type: ignore[no-any-return]

    def run_dict(self, run: RunRecord) -> dict[str, Any]:
        """The run as ``RunRecord.to_dict`` gives it, with everything an export must hide hidden."""
        data: dict[str, Any] = redact(run.to_dict())
        steps = []
        for step in data["steps"]:
            if self.write_only:
                step = {
                    **step,
                    "request": self._mask_request(step["request"])
                    if isinstance(step.get("request"), dict)
                    else step.get("request"),
                    "result": {
                        **step["result"],
                        "progress": self._mask_progress(step["result"].get("progress")),
                    },
                    "diff_request": [self._mask_change(c) for c in step["diff_request"]],
                    "diff_previous": [self._mask_change(c) for c in step["diff_previous"]],
                }
            steps.append(self._scrub_step(_redact_free_text(step)))
        data["steps"] = steps
        if self._scrub is not None:
            data["chain_findings"] = self._scrub_value(data["chain_findings"])
        return data

    def run(self, run: RunRecord) -> RunRecord:
        return RunRecord.from_dict(self.run_dict(run))

    def runs(self, runs: Iterable[RunRecord]) -> Iterator[RunRecord]:
        """Masked copies, one at a time, so a writer streams without holding two sessions."""
        for run in runs:
            yield self.run(run)
