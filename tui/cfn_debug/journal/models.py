"""Repeated resource models in the journal: written once, referred to afterwards (``model_refs``).

In an IN_PROGRESS chain the request of each re-invocation carries the model the step before
returned, and a handler often returns the same model step after step: a 5 MB model would be
written two or three times a step. A step line instead writes a model equal to one a recent step
of its run wrote in full as ``null`` plus a reference, ``"model_refs": {"request": [3,
"result"]}`` (this step's request model is step 3's returned model), and ``load_journal`` puts
the model back (``restore_models``).

Equal means equal bytes, never the same object: a model's signature is its members' exact
encodings (``jsonfast.exact``, as build_step made them for its diffs and secret scan, so
computing it costs no encoding) and its scalar members with their types. An object changed in
place between two steps therefore has another signature and is written again. Encodings with a
``null`` (a None, or a NaN orjson writes alike) give no signature: the model is written in full.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cfn_debug.text.jsonfast import holds

#: Where each payload shape keeps the resource model of the request.
_REQUEST_PLACES = (("request", "desiredResourceState"), ("requestData", "resourceProperties"))
#: How many models written in full a run remembers for references (each holds its encodings).
_KEPT = 3
#: The places a reference names: the step's request model, its returned model.
PLACES = ("request", "result")

Signature = tuple[Any, ...]


def request_place(request: Any) -> tuple[str, str] | None:
    """(holder, key) of the request's model: its place in either payload shape, if it has one."""
    if not isinstance(request, dict):
        return None
    for holder, key in _REQUEST_PLACES:
        inner = request.get(holder)
        if isinstance(inner, dict) and isinstance(inner.get(key), dict):
            return holder, key
    return None


def model_at(step: dict[str, Any] | Any, where: str) -> Any:
    """The model a step (a step line's dict, or a Step) holds at ``where``, or None."""
    request = step.get("request") if isinstance(step, dict) else step.request
    if where == "request":
        place = request_place(request)
        return request[place[0]][place[1]] if place is not None else None
    result = step.get("result") if isinstance(step, dict) else step.result
    progress = result.get("progress") if isinstance(result, dict) else result.progress
    model = progress.get("resourceModel") if isinstance(progress, dict) else None
    return model if isinstance(model, dict) else None


def _signature(model: dict[str, Any], encode: Any) -> Signature | None:
    """What two models must share to be written alike: keys in order, each container member's
    exact encoding, each scalar member's type and repr. None when that cannot be told."""
    parts: list[Any] = []
    for key, value in model.items():
        kind = type(value)
        if type(key) is not str:
            return None
        if kind is dict or kind is list:
            raw = encode(value)
            if raw is None or holds(raw, b"null"):
                return None
            parts.append((key, raw))
        elif kind is str or kind is int or kind is bool or kind is float or value is None:
            parts.append((key, kind, repr(value)))  # repr: -0.0 is not 0.0; 1 is not True
        else:
            return None
    return tuple(parts)


def _blanked(step: dict[str, Any], where: str) -> dict[str, Any]:
    """A shallow copy of a step line's dict with the model at ``where`` written as null."""
    if where == "request":
        request = step["request"]
        holder, key = request_place(request)  # type: ignore[misc]
        return {**step, "request": {**request, holder: {**request[holder], key: None}}}
    result = step["result"]
    return {**step, "result": {**result, "progress": {**result["progress"], "resourceModel": None}}}


class ModelRefs:
    """A journal's memory of the models its runs' recent steps wrote in full."""

    def __init__(self) -> None:
        # run id -> [(step index, place, signature)], most recently written or referred first
        self._written: dict[str, list[tuple[int, str, Signature]]] = {}

    def refer(self, run_id: str, index: int, entry: dict[str, Any], encode: Any) -> None:
        """Replace the models of ``entry`` (a step line) that a recent step of the run wrote in
        full by references to it (``entry["model_refs"]``); remember the ones written in full.
        ``encode``: the step's memo of ``jsonfast.exact`` (build_step's encodings)."""
        written = self._written.setdefault(run_id, [])
        refs: dict[str, list[Any]] = {}
        for where in PLACES:
            model = model_at(entry["step"], where)
            if model is None:
                continue
            signature = _signature(model, encode)
            if signature is None:
                continue
            for number, (source, place, known) in enumerate(written):
                if known == signature:  # bytes compared, by length first
                    refs[where] = [source, place]
                    written.insert(0, written.pop(number))
                    entry["step"] = _blanked(entry["step"], where)
                    break
            else:
                written.insert(0, (index, where, signature))
                del written[_KEPT:]
        if refs:
            entry["model_refs"] = refs

    def saved(self, run_id: str) -> list[tuple[int, str, Signature]]:
        """What the run remembers now, for ``restore`` if the line that follows is not written."""
        return list(self._written.get(run_id, ()))

    def restore(self, run_id: str, saved: list[tuple[int, str, Signature]]) -> None:
        self._written[run_id] = saved

    def forget(self, run_id: str) -> None:
        self._written.pop(run_id, None)


def restore_models(step: Any, refs: Any, by_index: Mapping[int, Any]) -> None:
    """Put back the models a journal line wrote as references (``model_refs``: place -> [index
    of the step that wrote it, its place there]), sharing the one object. ``by_index``: the run's
    earlier steps by index, kept by the loader as it goes (a lookup, not a scan of the run)."""
    if not isinstance(refs, dict):
        raise ValueError("model_refs: expected an object")
    if any(where not in PLACES for where in refs):
        raise ValueError(f"model_refs: expected the places {' and '.join(PLACES)}")
    # the step itself too: its returned model may be the model of its own request (put back
    # first: the places are taken in order)
    for where in PLACES:
        if where not in refs:
            continue
        source = refs[where]
        if (
            not isinstance(source, list)
            or len(source) != 2
            or type(source[0]) is not int
            or source[1] not in PLACES
        ):
            raise ValueError(f"model_refs: expected place: [step index, place], got {where!r}")
        earlier = step if source[0] == step.index else by_index.get(source[0])
        model = model_at(earlier, source[1]) if earlier is not None else None
        if not isinstance(model, dict):
            raise ValueError(f"model_refs: step {source[0]!r} has no {source[1]} model")
        if where == "request":
            holder = _null_place(step.request)
            if holder is None:
                raise ValueError("model_refs: the request has no place for a model")
            step.request = {
                **step.request,
                holder[0]: {**step.request[holder[0]], holder[1]: model},
            }
        else:
            progress = step.result.progress
            if not isinstance(progress, dict) or progress.get("resourceModel") is not None:
                raise ValueError("model_refs: the result has no place for a model")
            step.result.progress = {**progress, "resourceModel": model}


def _null_place(request: Any) -> tuple[str, str] | None:
    """(holder, key) of a request model written as null (a reference's place)."""
    if not isinstance(request, dict):
        return None
    for holder, key in _REQUEST_PLACES:
        inner = request.get(holder)
        if isinstance(inner, dict) and key in inner and inner[key] is None:
            return holder, key
    return None
