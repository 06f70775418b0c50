"""Common authoring slips in a resource schema that a validator alone does not report.

- ``required`` written as pointers (``"/properties/Name"``) instead of property names: JSON
  Schema reads them as names no model has;
- a ``required`` name the schema does not define;
- a pointer list (``primaryIdentifier``, ``createOnlyProperties``, ...) written with bare names
  instead of ``/properties/...`` pointers;
- a ``$ref`` cycle with nothing to validate (``{"$ref": "#/definitions/Node"}`` inside
  ``Node``, directly or through other bare references): following it never reaches a schema.

``slips`` lists them as (pointer, level, message); ``ref_cycle`` answers the first bare
``$ref`` cycle and ``without_ref_cycles`` a copy with each cycle cut where it closes (that
node then accepts any value). A cycle is a warning, not an error: AWS publishes one
(AWS::EC2::VerifiedAccessTrustProvider's ``SseSpecification`` refers to itself) and
CloudFormation registers it. The module reads raw JSON only, so the schema loader can use it.
"""

from __future__ import annotations

import copy
from typing import Any

Slip = tuple[str, str, str]  # pointer, level ("warning", "error"), message

POINTER_LISTS = (
    "primaryIdentifier",
    "createOnlyProperties",
    "readOnlyProperties",
    "writeOnlyProperties",
    "deprecatedProperties",
)


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _resolve_local(data: Any, ref: str) -> tuple[bool, Any]:
    """The node ``ref`` (``#/...``) points at in ``data``: (found, node)."""
    if not ref.startswith("#"):
        return False, None
    node = data
    for token in [t for t in ref[1:].split("/") if t]:
        token = _unescape(token)
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False, None
    return True, node


def _bare_ref(node: Any) -> str | None:
    """The ``$ref`` of a node that holds nothing else to validate (a description aside)."""
    if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
        return None
    others = set(node) - {"$ref", "description", "$comment", "title", "examples"}
    return node["$ref"] if not others else None


def _ref_cycle_closing(data: Any) -> tuple[str, str, str] | None:
    """The first bare ``$ref`` cycle: (the pointer it starts from, the chain as text, the
    pointer of the node whose ``$ref`` closes it), or None."""
    if not isinstance(data, dict):
        return None
    starts: list[tuple[str, Any]] = []
    for section in ("definitions", "properties"):
        block = data.get(section)
        if isinstance(block, dict):
            starts.extend((f"/{section}/{_escape(k)}", v) for k, v in block.items())
    for pointer, node in starts:
        seen = [pointer]
        ref = _bare_ref(node)
        while ref is not None:
            target = ref[1:] if ref.startswith("#") else ref
            if target in seen:
                return pointer, " -> ".join([*seen, target]), seen[-1]
            found, node = _resolve_local(data, ref)
            if not found:
                break
            seen.append(target)
            ref = _bare_ref(node)
    return None


def ref_cycle(data: Any) -> tuple[str, str] | None:
    """The first bare ``$ref`` cycle: (the pointer of the node whose ``$ref`` starts it, the
    chain as text), or None. Only cycles of references with nothing else to validate count:
    a recursive structure (``Node`` with ``properties.children.items.$ref`` to ``Node``) is
    fine."""
    found = _ref_cycle_closing(data)
    return None if found is None else (found[0], found[1])


def without_ref_cycles(data: Any) -> tuple[Any, list[tuple[str, str]]]:
    """``data`` with every bare ``$ref`` cycle cut at the node that closes it (its ``$ref``
    removed, so it accepts any value), and the cycles cut as (pointer, chain). ``data``
    itself is not changed; without a cycle it is returned as is."""
    cut: list[tuple[str, str]] = []
    found = _ref_cycle_closing(data)
    if found is None:
        return data, cut

    data = copy.deepcopy(data)
    while found is not None:
        pointer, chain, closing = found
        _, node = _resolve_local(data, "#" + closing)
        if not isinstance(node, dict) or "$ref" not in node:  # pragma: no cover - defensive
            break
        del node["$ref"]
        cut.append((pointer, chain))
        found = _ref_cycle_closing(data)
    return data, cut


def cycle_message(chain: str) -> str:
    return (
        f"$ref cycle with nothing to validate ({chain}): following it never reaches a schema; "
        "cfn-debug lets the property take any value (expected the reference to reach a type, "
        "properties or items)"
    )


def slips(data: Any) -> list[Slip]:
    """The slips above found in a schema's raw JSON (see the module docstring)."""
    if not isinstance(data, dict):
        return []
    notes: list[Slip] = []
    properties = data.get("properties") if isinstance(data.get("properties"), dict) else {}
    required = data.get("required")
    if isinstance(required, list):
        for index, name in enumerate(required):
            if not isinstance(name, str):
                continue
            where = f"/required/{index}"
            if name.startswith("/properties/"):
                bare = _unescape(name[len("/properties/") :].split("/", 1)[0])
                notes.append(
                    (
                        where,
                        "warning",
                        f"{name!r} is a pointer: `required` takes property names ({bare!r}); "
                        "as written it asks for a property literally named so, which no model has",
                    )
                )
            elif properties and name not in properties:
                notes.append((where, "warning", f"required property {name!r} is not defined"))
    for keyword in POINTER_LISTS:
        entries = data.get(keyword)
        if not isinstance(entries, list):
            continue
        for index, entry in enumerate(entries):
            if isinstance(entry, str) and entry and not entry.startswith("/"):
                notes.append(
                    (
                        f"/{keyword}/{index}",
                        "warning",
                        f"{entry!r} is a name: {keyword} takes pointers such as "
                        f"'/properties/{entry}'",
                    )
                )
    for pointer, chain in without_ref_cycles(data)[1]:
        notes.append((pointer, "warning", cycle_message(chain)))
    return notes
