"""What an export may show: credentials always redacted, writeOnly values masked unless revealed.

Every writer takes its runs through :class:`Masker`. Four layers:

1. ``cfn_debug.text.redact.redact`` over the whole run (credential keys, access key ids in text).
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
from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Any

from cfn_debug.records import RunRecord
from cfn_debug.text.redact import REDACTED, redact, secret_looking_key

WRITE_ONLY_MASK = "***WRITE-ONLY***"
#: What replaces a type configuration value whose key looks secret (``secret_looking_key``).
SECRET_MASK = "***SECRET***"
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


#: Where a request carries the type configuration (sam-style, HandlerRequest).
_TYPE_CONFIGURATION_PATHS: tuple[tuple[str, str], ...] = (
    ("request", "typeConfiguration"),
    ("requestData", "typeConfiguration"),
)


def _type_configurations(request: Any) -> Iterator[dict[str, Any]]:
    if isinstance(request, dict):
        for outer, inner in _TYPE_CONFIGURATION_PATHS:
            holder = request.get(outer)
            if isinstance(holder, dict) and isinstance(holder.get(inner), dict):
                yield holder[inner]


def _secret_config_values(config: Any) -> Iterator[Any]:
    """The values under secret-looking keys of a type configuration, at any depth."""
    if isinstance(config, dict):
        for key, value in config.items():
            if isinstance(key, str) and secret_looking_key(key):
                yield value
            else:
                yield from _secret_config_values(value)
    elif isinstance(config, list):
        for item in config:
            yield from _secret_config_values(item)


def mask_type_configuration(config: Any) -> Any:
    """A copy of a type configuration with the values of secret-looking keys masked."""
    if isinstance(config, dict):
        return {
            key: SECRET_MASK
            if isinstance(key, str) and secret_looking_key(key) and value is not None
            else mask_type_configuration(value)
            for key, value in config.items()
        }
    if isinstance(config, list):
        return [mask_type_configuration(item) for item in config]
    return config


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


#: Words longer than this are not put into trie_pattern's prefix tree (see there).
TRIE_MAX_DEPTH = 100


def trie_pattern(words: Iterable[str]) -> re.Pattern[str] | None:
    """One regex matching any of ``words``, shaped as a prefix tree.

    A plain alternation of hundreds of secrets makes the regex engine try each at every
    position; the tree shares prefixes, so a scan costs about one step per character. Longer
    words win over their own prefixes (greedy, longest branch first).
    """
    trie: dict[str, Any] = {}
    long_words: set[str] = set()
    for word in words:
        if not word:
            continue
        if len(word) > TRIE_MAX_DEPTH:
            # a tree as deep as a long secret would nest groups past the regex compiler's (and
            # Python's) recursion limits: such words are plain alternatives, tried first
            long_words.add(word)
            continue
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    if not trie and not long_words:
        return None

    def build(node: dict[str, Any]) -> str:
        ends = "" in node
        branches = [re.escape(c) + build(node[c]) for c in sorted(node) if c]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if ends:
            return f"(?:{body})?"
        return body

    longest_first = sorted(long_words, key=len, reverse=True)
    alternatives = [re.escape(word) for word in longest_first]
    if trie:
        alternatives.append(build(trie))
    if len(alternatives) == 1:
        return re.compile(alternatives[0])
    return re.compile("(?:" + "|".join(alternatives) + ")")


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
_SHARED = frozenset({str, int, float, bool, type(None), dict})


def record_dict(value: Any) -> Any:
    """What ``to_dict`` gives for a record, without copying the JSON payloads inside it.

    ``dataclasses.asdict`` deep-copies every model and log list; the masking never mutates what
    it is given (it builds new containers where it changes something), so sharing is safe and
    several times faster on a 10,000-step session.
    """
    kind = type(value)
    names = _FIELD_NAMES.get(kind)
    if names is not None:
        out = {}
        for name in names:
            item = getattr(value, name)
            # Most fields are strings, numbers or JSON payloads: no call for those.
            out[name] = item if type(item) in _SHARED else record_dict(item)
        if out.get("verdict", "") is None:  # a run that is no hook's: as RunRecord.to_dict
            del out["verdict"]
        return out
    if kind in _SHARED:
        return value
    if isinstance(value, Enum):
        return value.value
    if kind is list:
        if value and is_dataclass(value[0]):
            return [record_dict(item) for item in value]
        return value
    if is_dataclass(value) and not isinstance(value, type):
        # a "transient" field (InvokeResult.aws_calls) is not part of the record's JSON
        _FIELD_NAMES[kind] = tuple(f.name for f in fields(value) if not f.metadata.get("transient"))
        return record_dict(value)
    return value


def _credential_locations(request: Any) -> Iterator[Any]:
    """Where a sam-style event or a HandlerRequest carries credentials."""
    if not isinstance(request, dict):
        return
    for key in ("credentials", "bearerToken"):
        if key in request:
            yield request[key]
    data = request.get("requestData")
    if isinstance(data, dict):
        for key in ("callerCredentials", "providerCredentials"):
            if key in data:
                yield data[key]


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


def _keep_enums(scrubbed: Any, original: Any, *keys: str) -> Any:
    """``scrubbed`` with the enumerated fields of ``original`` put back: a "credential" that
    equals ``progress`` or ``CREATE`` (a hand-made transcript) must not turn a step's kind or
    action into ``***REDACTED***``, which would no longer load. Enumerations reveal nothing."""
    if not isinstance(scrubbed, dict) or not isinstance(original, dict):
        return scrubbed
    if keys:
        return {**scrubbed, **{k: original[k] for k in keys if k in original}}
    out = {**scrubbed, **{k: original[k] for k in ("action",) if k in original}}
    result, before = out.get("result"), original.get("result")
    if isinstance(result, dict) and isinstance(before, dict) and "kind" in before:
        out["result"] = {**result, "kind": before["kind"]}
    for name, key in (("findings", "level"), ("diff_request", "kind"), ("diff_previous", "kind")):
        items, originals = out.get(name), original.get(name)
        if isinstance(items, list) and isinstance(originals, list):
            out[name] = [
                _keep_enums(item, first, key) for item, first in zip(items, originals, strict=False)
            ]
    return out


_SUMMARY_PROGRESS = ("status", "hookStatus", "errorCode", "message")


def _summary_step(step: dict[str, Any]) -> dict[str, Any]:
    result = step["result"]
    progress = result.get("progress")
    if isinstance(progress, dict):
        progress = {k: progress[k] for k in _SUMMARY_PROGRESS if k in progress}
        result = {**result, "progress": progress}
    return {**step, "request": {}, "result": result}


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
        config_secrets: set[str] = set()  # values under secret-looking type configuration keys
        credentials: set[str] = set()
        for run in runs:
            for step in run.steps:
                for location in _credential_locations(step.request):
                    credentials.update(_strings(location))
                if not reveal_write_only:
                    for config in _type_configurations(step.request):
                        for value in _secret_config_values(config):
                            config_secrets.update(
                                s for s in _strings(value) if len(s) >= MIN_SCRUB_LEN
                            )
                if not self.write_only:
                    continue
                found: list[Any] = []
                for model in self._step_models(step.request, step.result.progress):
                    for parts in self.write_only:
                        found.extend(_values_at(model, parts))
                for change in (*step.diff_request, *step.diff_previous):
                    found.extend(self._change_values(change.pointer, change.before, change.after))
                for value in found:
                    secrets.update(s for s in _strings(value) if len(s) >= MIN_SCRUB_LEN)
        credentials = {c for c in credentials if len(c) >= MIN_SCRUB_LEN and c != REDACTED}
        config_secrets = (config_secrets - credentials) - secrets
        self.secrets = frozenset(secrets - credentials)
        self.credentials = frozenset(credentials)
        self._replacement = {**dict.fromkeys(self.secrets, WRITE_ONLY_MASK)}
        self._replacement.update(dict.fromkeys(config_secrets, SECRET_MASK))
        self._replacement.update(dict.fromkeys(self.credentials, REDACTED))
        self._scrub = trie_pattern(self._replacement)
        # The same secrets as json.dumps writes them inside a string, to find them in one pass.
        self._detect = trie_pattern(
            json.dumps(s, ensure_ascii=False)[1:-1] for s in self._replacement
        )

    def _change_values(self, pointer: str, before: Any, after: Any) -> Iterator[Any]:
        """The writeOnly values a model change carries (at, inside or below its pointer)."""
        parts = pointer_parts(pointer)
        for wo in self.write_only:
            if len(parts) >= len(wo) and _matches(wo, parts[: len(wo)]):
                yield before
                yield after
            elif len(parts) < len(wo) and _matches(wo[: len(parts)], parts):
                yield from _values_at(before, wo[len(parts) :])
                yield from _values_at(after, wo[len(parts) :])

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

    @staticmethod
    def _mask_type_configuration(request: dict[str, Any]) -> dict[str, Any]:
        out = request
        for outer, inner in _TYPE_CONFIGURATION_PATHS:
            holder = out.get(outer)
            if isinstance(holder, dict) and isinstance(holder.get(inner), dict):
                masked = mask_type_configuration(holder[inner])
                if masked != holder[inner]:
                    out = {**out, outer: {**holder, inner: masked}}
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

    def _scrub_step(self, step: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """The step with the session's secret values scrubbed, and its JSON text."""
        text = json.dumps(step, ensure_ascii=False)
        if self._detect is None or not self._detect.search(text):
            return step, text
        step = _keep_enums(self._scrub_value(step), step)
        return step, json.dumps(step, ensure_ascii=False)

    def _masked_head(self, run: RunRecord, models: bool) -> dict[str, Any]:
        """The run redacted, with its chain findings scrubbed; its steps not yet masked."""
        data: dict[str, Any] = record_dict(run)
        if not models:
            # Only what the text formats show: no request, the ProgressEvent's status fields.
            data["steps"] = [_summary_step(step) for step in data["steps"]]
        data = redact(data)
        if self._scrub is not None:
            data["chain_findings"] = [
                _keep_enums(self._scrub_value(f), f, "level") for f in data["chain_findings"]
            ]
        return data

    def _mask_step(self, step: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """One redacted step masked, and its JSON text."""
        if not self.reveal_write_only and isinstance(step.get("request"), dict):
            step = {**step, "request": self._mask_type_configuration(step["request"])}
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
        return self._scrub_step(_redact_free_text(step))

    def _masked(self, run: RunRecord, models: bool) -> dict[str, Any]:
        data = self._masked_head(run, models)
        data["steps"] = [self._mask_step(step)[0] for step in data["steps"]]
        return data

    def run_dict(self, run: RunRecord, *, models: bool = True) -> dict[str, Any]:
        """The run as ``RunRecord.to_dict`` gives it, with everything an export must hide hidden.

        ``models=False`` leaves out what the Markdown, HTML and JUnit writers never show (the
        request payload; the ProgressEvent beyond status, errorCode and message), which makes
        masking a long session several times cheaper.
        """
        return self._masked(run, models)

    def run_json(self, run: RunRecord) -> str:
        """``json.dumps(self.run_dict(run))``, reusing the text the secret scan produced."""
        return "".join(self.run_json_parts(run))

    def run_json_parts(self, run: RunRecord) -> Iterator[str]:
        """``run_json`` in pieces, each step masked and encoded only when its turn comes, so a
        run of 100 steps of 10 MB is never held as 1 GB of text."""
        data = self._masked_head(run, True)
        yield "{"
        for number, (key, value) in enumerate(data.items()):
            yield ", " if number else ""
            if key != "steps":
                yield f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"
                continue
            yield '"steps": ['
            for index, step in enumerate(value):
                yield (", " if index else "") + self._mask_step(step)[1]
            yield "]"
        yield "}"

    def run(self, run: RunRecord, *, models: bool = True) -> RunRecord:
        return RunRecord.from_dict(self.run_dict(run, models=models))

    def runs(self, runs: Iterable[RunRecord], *, models: bool = True) -> Iterator[RunRecord]:
        """Masked copies, one at a time, so a writer streams without holding two sessions."""
        for run in runs:
            yield self.run(run, models=models)
