"""What every invoker offers the chain: one async call that never raises for endpoint trouble."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

import orjson

from cfn_debug.events import request_place
from cfn_debug.records import InvokeResult
from cfn_debug.text.jsonfast import Splicer, exact, holds

#: request id -> the handler's log lines for that invocation (the embedded endpoint's logs_for).
LogsHook = Callable[[str], list[str]]
#: request id -> the AWS call records of that invocation (the embedded endpoint's aws_calls_for).
AwsCallsHook = Callable[[str], list[dict[str, Any]]]


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


#: (member, its exact encoding) of a request model's large members, each member the very
#: object of the payload: the step built from the request seeds its ``diff.Encodings`` with
#: them instead of encoding those members again.
Members = tuple[tuple[Any, bytes], ...]


def encode_payload(payload: dict[str, Any]) -> bytes:
    """The request body of ``payload`` (:func:`encode_request`'s)."""
    return encode_request(payload)[0]


def encode_request(payload: dict[str, Any]) -> tuple[bytes, Members]:
    """The request body and the encodings of the large members it was made of (see
    :data:`Members`): ``json.dumps(payload, separators=(",", ":"))`` in meaning, with its
    models encoded by orjson where that cannot differ (see cfn_debug.text.jsonfast).
    Non-ASCII characters are sent as UTF-8 rather than escaped.

    The whole payload is encoded by orjson at once when it can be (no ``null``, which a NaN
    would be written as; nothing orjson refuses): one buffer, not parts joined; else it is
    taken apart by the Splicer. A large request model's container members are encoded on their
    own first and put in as they are (orjson's Fragment), and returned with the body for the
    step's secret scan and diffs; a member sent again (the same desired state at every
    re-invocation) is found free of ``null`` by comparing bytes."""
    spliced = _with_model_members(payload)
    if spliced is not None:
        return spliced
    whole = exact(payload)
    if whole is not None and not holds(whole, b"null"):
        return whole, ()
    return Splicer(_compact, ensure_ascii=True, split_depth=1).encode(payload), ()


#: Members of a request model at least this long (bytes of JSON) are encoded on their own.
_MEMBER_MIN = 64 * 1024
#: ... and only looked for when a member holds at least this many elements or members (a
#: shorter one can still be large: it is then encoded with the whole body).
_MEMBER_LEN_MIN = 64
_CONTAINERS = (list, dict)


def _with_model_members(payload: dict[str, Any]) -> tuple[bytes, Members] | None:
    """The payload's body, its request model's large container members encoded first and put
    in as they are; None when there is no large member or a part cannot be used (a
    ``null`` anywhere: a NaN would be written so; something orjson refuses)."""
    place = request_place(payload)
    if place is None:
        return None
    holder, key = place
    model = payload[holder][key]
    if not any(type(v) in _CONTAINERS and len(v) >= _MEMBER_LEN_MIN for v in model.values()):
        return None  # no member long enough to be large: a small payload is encoded whole
    if type(payload) is not dict or type(payload[holder]) is not dict or type(model) is not dict:
        return None  # a subclass: exact() refuses it, the Splicer writes it as json does
    members: list[tuple[Any, bytes]] = []
    shown: dict[str, Any] = {}
    for name, value in model.items():
        if type(value) is list or type(value) is dict:
            raw = exact(value)
            if raw is None or holds(raw, b"null"):
                return None
            if len(raw) >= _MEMBER_MIN:
                members.append((value, raw))
                shown[name] = orjson.Fragment(raw)
                continue
        shown[name] = value
    if not members:
        return None
    # the rest, small: checked for null with each large member as a bare 0
    skeleton = {**payload, holder: {**payload[holder], key: {**shown}}}
    bare = {
        **skeleton,
        holder: {
            **skeleton[holder],
            key: {
                name: orjson.Fragment(b"0") if isinstance(value, orjson.Fragment) else value
                for name, value in shown.items()
            },
        },
    }
    rest = exact(bare)
    if rest is None or holds(rest, b"null"):
        return None
    whole = exact(skeleton)
    if whole is None:
        return None
    return whole, tuple(members)


class Invoker(Protocol):
    label: str

    async def invoke(self, function_name: str, body: bytes) -> InvokeResult:
        """Invoke once with ``body`` (a request's JSON, :func:`encode_request`); every outcome
        (even "nothing answers") comes back as an InvokeResult."""
        ...

    async def aclose(self) -> None: ...
