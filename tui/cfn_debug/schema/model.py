"""The resource schema: loading, self-validation, property classes, insertionOrder and timeouts.

Pointers come in two spellings. The schema names properties with *schema pointers*
(``/properties/Tags/*/Key``: the leading ``properties`` keyword, then property names, with the
``properties`` keyword of nested objects implied and ``*`` standing for "every element of an
array"). Everything else in cfn-debug speaks *model pointers*: RFC 6901 JSON pointers into a
resource model (``/Tags/2/Key``). A model pointer *pattern* is a model pointer whose array indices
are ``*`` (``/Tags/*/Key``); the property classes and the unordered arrays are held as patterns,
and :meth:`ResourceSchema.pattern_of` turns a concrete model pointer into its pattern.

Models are validated with jsonschema's Draft 7 validator, ``$ref`` resolved within the schema
(``#/definitions/...``). References to other documents cannot be resolved offline, so they are
treated as "anything goes" rather than as an error at validation time.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cfn_debug.errors import SchemaError
from cfn_debug.records import Action
from cfn_debug.schema.ecma_regex import compile_ecma
from cfn_debug.schema.fastcheck import (
    ShapeCheck,
    compile_columnar_check,
    compile_shape_check,
)
from cfn_debug.schema.notes import SchemaNote
from cfn_debug.schema.pointers import (
    MISSING,
    join_pointer,
    resolve_pointer,
    split_pointer,
)
from cfn_debug.schema.validators import (
    _MAX_DEPTH,
    _VALIDATING,
    SHAPE_EXEMPT_KEYWORDS,
    _allows_arrays,
    _errors,
    _identifier,
    _InputValidator,
    _is_unordered_array,
    _never,
    _prefixes,
    _ShapeValidator,
    _without_remote_refs,
    pattern_notes,
)
from cfn_debug.text.jsonfast import holds

TYPE_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9]{2,64}::[a-zA-Z0-9]{2,64}::[a-zA-Z0-9]{2,64}$")

#: The handler timeout CloudFormation applies when a handler declares no timeoutInMinutes.
DEFAULT_TIMEOUT_MINUTES = 120

#: Schema keywords holding lists of property pointers, and the class each one gives.
POINTER_LISTS: dict[str, str] = {
    "readOnlyProperties": "readOnly",
    "writeOnlyProperties": "writeOnly",
    "createOnlyProperties": "createOnly",
    "deprecatedProperties": "deprecated",
}

#: Draft 7 keywords the contract's shape check leaves out ("Returned models must conform to the
#: shape of the schema"): required, dependencies, propertyNames, the conditional subschemas

#: Top-level properties whose exact encoding is at least this long are validated once per
#: content (model_errors); at most _VALID_SUBTREES of them are remembered per schema.
_SUBTREE_MIN = 4096
_VALID_SUBTREES = 256
#: Arrays at least this long are validated by their elements not known valid (model_errors).
_ARRAY_MIN = 256


class ResourceSchema:
    """A loaded, self-validated resource schema and what the checks need to know about it."""

    def __init__(
        self, raw: dict[str, Any], *, path: Path | None = None, strict: bool = True
    ) -> None:
        self.path = path
        self._strict = strict
        self.raw = raw
        self.type_name: str = raw["typeName"]
        self.notes: list[SchemaNote] = []
        self._dangling: set[tuple[str, int]] = set()  # (keyword, index) resolving to nothing
        self._validation_copy = _without_remote_refs(raw)
        self.primary_identifier: tuple[str, ...] = tuple(
            self._model_pointer("primaryIdentifier", p, i)
            for i, p in enumerate(raw.get("primaryIdentifier", []))
        )
        self.additional_identifiers: tuple[tuple[str, ...], ...] = tuple(
            tuple(
                self._model_pointer(f"additionalIdentifiers/{g}", p, i) for i, p in enumerate(group)
            )
            for g, group in enumerate(raw.get("additionalIdentifiers", []))
        )
        classes: dict[str, frozenset[str]] = {}
        for keyword in POINTER_LISTS:
            pointers = [
                self._model_pointer(keyword, p, i) for i, p in enumerate(raw.get(keyword, []))
            ]
            # a pointer to nothing is ignored (no finding can be about a property the schema
            # does not have), but writeOnly keeps it: a value there is still masked
            classes[keyword] = frozenset(
                pointer
                for i, pointer in enumerate(pointers)
                if keyword == "writeOnlyProperties" or (keyword, i) not in self._dangling
            )
        self.read_only = classes["readOnlyProperties"]
        self.write_only = classes["writeOnlyProperties"]
        self.create_only = classes["createOnlyProperties"]
        self.deprecated = classes["deprecatedProperties"]
        required = raw.get("required")
        for index, name in enumerate(required if isinstance(required, list) else []):
            if isinstance(name, str) and join_pointer("", name) in self.read_only:
                self.notes.append(
                    SchemaNote(
                        f"/required/{index}",
                        "warning",
                        f"{name!r} is required but readOnly: no template or request can set "
                        "it; cfn-debug does not ask requests for it",
                    )
                )
        self.notes.extend(pattern_notes(raw))
        self._unordered_nodes: dict[int, bool] = {}
        self._classes: dict[str, frozenset[str]] = {}
        self._unordered_deep: dict[str, bool] = {}
        self.unordered_array_pointers: frozenset[str] = frozenset(self._unordered_arrays())
        self._unordered_below: dict[str, bool] = {}
        self._shape_validator: Any = None
        self._input_validator: Any = None
        self._shape_checks: tuple[ShapeCheck, ...] | None = None  # compiled on first use
        self._input_check: ShapeCheck | None = None
        # (property, size, digest of its exact encoding) of large properties found valid
        self._valid_subtrees: dict[tuple[str, int, bytes], None] = {}
        # (property, serial of the kept facts, cfn_debug.diff.ArrayFacts) of long arrays found
        # valid, and whether a property's array is validated element by element
        self._valid_arrays: dict[tuple[str, int], None] = {}
        self._elementwise_keys: dict[str, bool] = {}
        top = self._validation_copy
        self._splittable = not any(k in top for k in ("minProperties", "maxProperties", "enum"))
        self._splittable = self._splittable and "const" not in top

    def __repr__(self) -> str:
        return f"ResourceSchema({self.type_name!r}, path={self.path!r})"

    # -- schema navigation --

    def resolve_ref(self, node: Any) -> Any:
        """Follow local ``$ref`` chains; a reference that cannot be followed becomes ``{}``."""
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen or not ref.startswith("#"):
                return {}
            seen.add(ref)
            target = resolve_pointer(self.raw, ref[1:])
            if target is MISSING:
                return {}
            node = target
        return node

    def _children(self, node: Any, token: str) -> list[Any]:
        """Subschemas a property token (or ``*``, the array items) leads to from ``node``."""
        found: list[Any] = []
        for branch in self._branches(node):
            if token == "*":
                items = branch.get("items")
                if isinstance(items, dict):
                    found.append(self.resolve_ref(items))
                continue
            props = branch.get("properties")
            if isinstance(props, dict) and token in props:
                found.append(self.resolve_ref(props[token]))
            patterns = branch.get("patternProperties")
            if isinstance(patterns, dict):
                for pattern, sub in patterns.items():
                    compiled = compile_ecma(pattern)
                    if compiled.usable and compiled.search(token):
                        found.append(self.resolve_ref(sub))
        return found

    def _branches(self, node: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
        """``node`` and the subschemas of its allOf/anyOf/oneOf, where properties may be."""
        node = self.resolve_ref(node)
        if not isinstance(node, dict) or depth > 4:
            return
        yield node
        for keyword in ("allOf", "anyOf", "oneOf"):
            for sub in node.get(keyword, []) if isinstance(node.get(keyword), list) else []:
                yield from self._branches(sub, depth + 1)

    def subschemas(self, model_pointer: str) -> list[dict[str, Any]]:
        """The subschemas that describe the value at a model pointer (or pattern); [] if none."""
        nodes: list[Any] = [self.raw]
        for token in split_pointer(model_pointer):
            next_nodes: list[Any] = []
            for node in nodes:
                if token.isdigit() or token == "*":
                    items = self._children(node, "*")
                    if items:
                        next_nodes.extend(items)
                        continue
                next_nodes.extend(self._children(node, token))
            nodes = next_nodes
            if not nodes:
                return []
        return [n for n in nodes if isinstance(n, dict)]

    def pattern_of(self, model_pointer: str) -> str:
        """The pattern of a concrete model pointer: array indices become ``*``.

        A digit token is an index when the schema says the value there is an array, or when the
        schema does not say anything about it (a digit property name is rare, an index common).
        """
        tokens = split_pointer(model_pointer)
        out: list[str] = []
        nodes: list[Any] = [self.raw]
        for token in tokens:
            is_index = False
            if token.isdigit():
                items = [c for n in nodes for c in self._children(n, "*")]
                named = [c for n in nodes for c in self._children(n, token)]
                is_index = bool(items) or not named
                nodes = items if is_index else named
            else:
                nodes = [c for n in nodes for c in self._children(n, token)]
            out.append("*" if is_index else token)
        return join_pointer("", *out)

    def _model_pointer(self, keyword: str, schema_pointer: Any, index: int = 0) -> str:
        """Turn a schema pointer of ``keyword`` into a model pointer pattern (validated).

        A pointer that resolves to nothing refuses the schema only in primaryIdentifier (every
        identifier check depends on it); elsewhere the CloudFormation CLI accepts it, schemas
        with such pointers are published, and it becomes a warning in :attr:`notes`.
        """
        if not isinstance(schema_pointer, str):
            raise SchemaError(
                f"expected a JSON pointer string such as '/properties/Name', got "
                f"{schema_pointer!r}",
                path=self.path,
                field=keyword.split("/")[0],
            )
        try:
            tokens = split_pointer(schema_pointer)
        except ValueError:
            tokens = []
        if not tokens or tokens[0] != "properties" or len(tokens) < 2:
            raise SchemaError(
                f"pointer {schema_pointer!r} must start with '/properties/'",
                path=self.path,
                field=keyword.split("/")[0],
            )
        out: list[str] = []
        nodes: list[Any] = [self.raw]
        rest = tokens[1:]
        i = 0
        while i < len(rest):
            token = rest[i]
            children = [c for n in nodes for c in self._children(n, token)]
            if not children and token == "properties" and i + 1 < len(rest):
                # the explicit spelling /properties/A/properties/B: the keyword, not a property
                i += 1
                continue
            if not children:
                message = (
                    f"pointer {schema_pointer!r} resolves to nothing in the schema (no "
                    f"{'array items' if token == '*' else 'property ' + repr(token)} at "
                    f"{join_pointer('/properties', *out) if out else '/properties'})"
                )
                if keyword == "primaryIdentifier" and self._strict:
                    raise SchemaError(message, path=self.path, field=keyword)
                level = "error" if keyword == "primaryIdentifier" else "warning"
                self._dangling.add((keyword, index))
                what = (
                    "; kept only to mask a value there"
                    if keyword == "writeOnlyProperties"
                    else "; ignored"
                )
                self.notes.append(SchemaNote(f"/{keyword}/{index}", level, message + what))
                out.extend(t for t in rest[i:] if t != "properties")
                break
            out.append(token)
            nodes = children
            i += 1
        return join_pointer("", *out)

    def _has_unordered(self, node: Any) -> bool:
        """Is there an insertionOrder-false array in ``node`` (references followed)?"""
        node = self.resolve_ref(node)
        key = id(node)
        below = self._unordered_nodes
        if key in below:
            return below[key]
        below[key] = False  # a cycle back here adds nothing
        found = False
        for branch in self._branches(node):
            if branch.get("insertionOrder") is False:
                found = True
            props = branch.get("properties")
            subs = list(props.values()) if isinstance(props, dict) else []
            if isinstance(branch.get("items"), dict):
                subs.append(branch["items"])
            if not found and any(self._has_unordered(sub) for sub in subs):
                found = True
        below[key] = found
        return found

    def _unordered_arrays(self) -> Iterator[str]:
        """Patterns of every array whose schema says ``insertionOrder: false``, down to
        ``_MAX_DEPTH`` levels (a recursive definition is asked by :meth:`unordered_at`)."""
        visits = [0]

        def walk(node: Any, pointer: str, depth: int) -> Iterator[str]:
            visits[0] += 1
            if depth > _MAX_DEPTH or visits[0] > 100_000 or not self._has_unordered(node):
                return
            for branch in self._branches(node):
                if _is_unordered_array(branch):
                    yield pointer
                props = branch.get("properties")
                if isinstance(props, dict):
                    for name, sub in props.items():
                        yield from walk(sub, join_pointer(pointer, name), depth + 1)
                items = branch.get("items")
                if isinstance(items, dict):
                    yield from walk(items, join_pointer(pointer, "*"), depth + 1)

        yield from walk(self.raw, "", 0)

    # -- what the checks ask --

    def is_unordered(self, model_pointer: str) -> bool:
        """True when the array at this model pointer (or pattern) has insertionOrder false."""
        if not self.unordered_array_pointers:
            return False
        if model_pointer in self.unordered_array_pointers:
            return True
        return self.unordered_at(self.pattern_of(model_pointer))

    def unordered_at(self, pattern: str) -> bool:
        """Is the array at this pointer pattern insertionOrder false? Deeper than the walk
        behind :attr:`unordered_array_pointers` goes (a recursive definition), the schema is
        asked directly."""
        if pattern in self.unordered_array_pointers:
            return True
        if not self.unordered_array_pointers or pattern.count("/") <= _MAX_DEPTH:
            return False
        found = self._unordered_deep.get(pattern)
        if found is None:
            found = any(
                _is_unordered_array(branch)
                for node in self.subschemas(pattern)
                for branch in self._branches(node)
            )
            if len(self._unordered_deep) < 4096:
                self._unordered_deep[pattern] = found
        return found

    def has_unordered_below(self, pattern: str) -> bool:
        """Is there an insertionOrder-false array at ``pattern`` or anywhere below it?"""
        found = self._unordered_below.get(pattern)
        if found is None:
            if pattern.count("/") < _MAX_DEPTH:
                found = any(
                    p == pattern or p.startswith(pattern + "/")
                    for p in self.unordered_array_pointers
                )
            else:  # below the walk's depth: ask the schema (recursive definitions)
                found = bool(self.unordered_array_pointers) and any(
                    self._has_unordered(node) for node in self.subschemas(pattern)
                )
            if len(self._unordered_below) < 4096:
                self._unordered_below[pattern] = found
        return found

    def handler_timeout_s(self, action: Action) -> float:
        """handlers.<action>.timeoutInMinutes in seconds; 120 minutes when the schema has none."""
        handler = self.raw.get("handlers", {}).get(action.value.lower(), {})
        minutes = handler.get("timeoutInMinutes") if isinstance(handler, dict) else None
        if isinstance(minutes, bool) or not isinstance(minutes, int | float):
            minutes = DEFAULT_TIMEOUT_MINUTES
        return float(minutes) * 60.0

    def has_handler(self, action: Action) -> bool:
        handlers = self.raw.get("handlers")
        return isinstance(handlers, dict) and action.value.lower() in handlers

    def classify(self, model_pointer: str) -> set[str]:
        """The classes of the property at a model pointer, its ancestors' included.

        A property inside a createOnly (readOnly, writeOnly, ...) object is itself createOnly,
        so ``/Config/Size`` is createOnly when ``/Config`` is. Classes: readOnly, writeOnly,
        createOnly, deprecated, primaryIdentifier, additionalIdentifier, and insertionOrderFalse
        for an array compared as a multiset.
        """
        pattern = self.pattern_of(model_pointer)
        prefixes = _prefixes(pattern)
        found: set[str] = set()
        for name, members in (
            ("readOnly", self.read_only),
            ("writeOnly", self.write_only),
            ("createOnly", self.create_only),
            ("deprecated", self.deprecated),
        ):
            if any(p in members for p in prefixes):
                found.add(name)
        if pattern in self.primary_identifier:
            found.add("primaryIdentifier")
        if any(pattern in group for group in self.additional_identifiers):
            found.add("additionalIdentifier")
        if pattern in self.unordered_array_pointers:
            found.add("insertionOrderFalse")
        return found

    def classes_of_pattern(self, pattern: str) -> frozenset[str]:
        """:meth:`classify` of a pointer pattern, cached for the schema's lifetime (the diff
        asks it for every change of every step)."""
        found = self._classes.get(pattern)
        if found is None:
            found = frozenset(self.classify(pattern))
            if len(self._classes) < 4096:
                self._classes[pattern] = found
        return found

    def identifier_of(self, model: Any) -> dict[str, Any] | None:
        """The primary identifier's values keyed by model pointer; None if any part is missing."""
        return _identifier(model, self.primary_identifier)

    def any_identifier_of(self, model: Any) -> dict[str, Any] | None:
        """The primary identifier, else the first complete additional identifier, else None."""
        for group in (self.primary_identifier, *self.additional_identifiers):
            found = _identifier(model, group)
            if found is not None:
                return found
        return None

    # -- model validation --

    def model_errors(
        self,
        model: Any,
        *,
        encode: Callable[[Any], bytes | None] | None = None,
        encodings: Any = None,
    ) -> list[tuple[str, str]]:
        """The contract's shape check: (model pointer, message) for every violation.

        Draft 7 without required, dependencies, propertyNames, if/then/else, allOf, anyOf, oneOf
        and not, as "Returned models must conform to the shape of the schema" lists them.

        ``encode`` (the step's shared exact encoder, :meth:`cfn_debug.diff.Encodings.of`) lets
        unchanged subtrees be validated once: a large top-level property whose exact encoding
        was found valid before (kept by its hash) is not validated again, only the rest of the
        model is. Each top-level property is validated on its own in the shape check (required
        and the other cross-property keywords are exempt), so this answers as the whole does.

        ``encodings`` (the step's :class:`cfn_debug.diff.Encodings`, whose ``of`` is then the
        encoder) goes further for a long array whose schema validates each element on its own
        (``items`` and ``type`` only): an array found valid is remembered by its kept facts,
        and of a later array only the elements such an array lacks are validated (every other
        element equals one of its elements, a valid one).
        """
        if encode is None and encodings is not None:
            encode = encodings.of
        if self._shape_checks is None:
            found = (
                compile_columnar_check(self._validation_copy, SHAPE_EXEMPT_KEYWORDS),
                compile_shape_check(self._validation_copy, SHAPE_EXEMPT_KEYWORDS),
            )
            self._shape_checks = tuple(c for c in found if c is not None)
        part, fresh, arrays = model, [], []
        if encode is not None and isinstance(model, dict) and self._splittable:
            part, fresh, arrays = self._unknown_part(model, encode, encodings)
        for check in self._shape_checks:
            if check(part):  # sound: the fast checks accept only what jsonschema accepts
                for digest in fresh:
                    if len(self._valid_subtrees) >= _VALID_SUBTREES:
                        del self._valid_subtrees[next(iter(self._valid_subtrees))]
                    self._valid_subtrees[digest] = None
                for array in arrays:
                    if len(self._valid_arrays) >= _VALID_SUBTREES:
                        del self._valid_arrays[next(iter(self._valid_arrays))]
                    self._valid_arrays[array] = None
                return []
        return self.slow_model_errors(model)

    def _unknown_part(
        self, model: dict[str, Any], encode: Callable[[Any], bytes | None], encodings: Any
    ) -> tuple[dict[str, Any], list[tuple[str, int, bytes]], list[tuple[str, int]]]:
        """The model without the large properties known valid (and with only the elements of a
        long elementwise array no array known valid holds), the digests of the large properties
        not yet known, and the (property, facts serial) of the long arrays not yet known (both
        remembered once the part is found valid)."""
        part: dict[str, Any] = {}
        fresh: list[tuple[str, int, bytes]] = []
        arrays: list[tuple[str, int]] = []
        for key, value in model.items():
            if (
                encodings is not None
                and type(value) is list
                and len(value) >= _ARRAY_MIN
                and self._elementwise(key)
            ):
                facts = encodings.facts(value)
                # objects only: their fingerprints are cut out of the encoding, where marshal's
                # of scalars would cost more than the columnar check of them all
                if facts.raw is not None and facts.pieces:
                    if (key, facts.serial) in self._valid_arrays:
                        continue
                    arrays.append((key, facts.serial))
                    part[key] = self._beyond_valid(key, value, facts, encodings)
                    continue
            if type(value) is dict or type(value) is list:
                raw = encode(value)
                # a null may be None or NaN (both encode as null): such a subtree is not kept
                if raw is not None and len(raw) >= _SUBTREE_MIN and not holds(raw, b"null"):
                    # sha256: twice as fast as blake2b where the CPU has SHA instructions
                    digest = (key, len(raw), hashlib.sha256(raw).digest())
                    if digest in self._valid_subtrees:
                        continue
                    fresh.append(digest)
            part[key] = value
        return part, fresh, arrays

    def _beyond_valid(self, key: str, value: list[Any], facts: Any, encodings: Any) -> list[Any]:
        """The elements of ``value`` that the most recently used kept array found valid at
        ``key`` lacks (all of them when there is none)."""
        for known in encodings.kept():
            if known is not facts and (key, known.serial) in self._valid_arrays:
                beyond = encodings.elements_beyond(value, known)
                if beyond is not None:
                    return beyond
                break
        return value

    def _elementwise(self, key: str) -> bool:
        """Whether the shape check of top-level property ``key`` holding an array is the check
        of each element on its own: the property's only validating keywords are ``type`` and a
        single ``items`` schema (no length, uniqueness or contains), and no patternProperties
        at the top can apply to it."""
        found = self._elementwise_keys.get(key)
        if found is None:
            top = self._validation_copy
            prop = top.get("properties", {}).get(key) if isinstance(top, dict) else None
            found = (
                isinstance(top, dict)
                and not top.get("patternProperties")
                and isinstance(prop, dict)
                and set(prop) & _VALIDATING <= {"type", "items", *SHAPE_EXEMPT_KEYWORDS}
                and isinstance(prop.get("items", {}), dict)
                and _allows_arrays(prop.get("type", "array"))
            )
            self._elementwise_keys[key] = found
        return found

    def slow_model_errors(self, model: Any) -> list[tuple[str, str]]:
        """:meth:`model_errors` through jsonschema alone, without the compiled fast check."""
        if self._shape_validator is None:
            self._shape_validator = _ShapeValidator(self._validation_copy)
        return _errors(self._shape_validator, model)

    def input_errors(self, model: Any) -> list[tuple[str, str]]:
        """Full Draft 7, required included: the input assumption of create and update.

        A compiled check (nothing exempt) answers for valid inputs; jsonschema lists the errors.
        """
        if self._input_check is None:
            found = compile_shape_check(self._validation_copy, ())
            self._input_check = found if found is not None else _never
        if self._input_check(model):
            return []
        return self.slow_input_errors(model)

    def slow_input_errors(self, model: Any) -> list[tuple[str, str]]:
        """:meth:`input_errors` through jsonschema alone."""
        if self._input_validator is None:
            self._input_validator = _InputValidator(self._validation_copy)
        return _errors(self._input_validator, model)
