"""The models scenarios send: where they come from, and how each run gets unique names.

Sources, in `cfn test`'s order: the project's ``inputs/`` (or ``example_inputs/``, when the
schema accepts its create: cfn_debug.example_inputs) files ``inputs_N_create.json`` and
``inputs_N_update.json`` (lowest N); else ``overrides.json`` applied
over inputs generated from the schema; else the project's own CREATE and UPDATE events that the
schema accepts (one it rejects is passed over, saying so); else inputs generated from the schema
alone.

What the user wrote is sent as written. Where a run needs a new name (a value cfn-debug
generated, ``--unique``, or a create answered AlreadyExists for a written value: the scenario
retries once), :func:`make_unique` gives a per-run suffix to a string that is (part of) the
primary or an additional identifier and that the user sets (not readOnly), as long as the suffix
cannot change what the value means: never to a reference to a pre-existing resource (the
schema's ``relationshipRef``, a value that came from an export, ``--export`` or a ``{{...}}``
placeholder), an ARN, or a value whose ``enum``, ``const`` or ``format`` a suffix would break
(a ``pattern`` is kept when the suffixed value still matches it).
"""

from __future__ import annotations

import copy
import json
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfn_debug.aws.placeholders import fill, read_json_bare, read_json_filled
from cfn_debug.contract.input_checks import desired_state_errors
from cfn_debug.errors import EventError
from cfn_debug.example_inputs import rejected_example
from cfn_debug.records import Action
from cfn_debug.scenarios.generate import example_create, example_update
from cfn_debug.schema import (
    MISSING,
    ResourceSchema,
    join_pointer,
    resolve_pointer,
    split_pointer,
)

if TYPE_CHECKING:
    from cfn_debug.project import Project

INPUT_DIRS = ("inputs", "example_inputs")
_INPUT_NAME = re.compile(r"^inputs_(\d+)_create\.json$")
OVERRIDES = "overrides.json"


@dataclass
class ScenarioInputs:
    create: dict[str, Any]
    update: dict[str, Any] | None  # None: no update input (update scenarios derive one)
    source: str  # where they came from, for the report
    overrides: dict[str, dict[str, Any]] = field(default_factory=dict)  # pointer -> value
    #: model pointers whose value must never get a unique suffix: values that are a whole
    #: ``{{...}}`` placeholder in the input file, or that were filled from a {{placeholder}} (an
    #: export: a resource that exists before the tests, such as the setup stack's), or that the
    #: caller says came from an export or --export (ScenarioOptions.unique_exempt adds to these)
    unique_exempt: frozenset[str] = frozenset()
    from_files: bool = False  # read from inputs/ (or example_inputs/)

    @property
    def written(self) -> bool:
        """Whether the user wrote these values (input files, the project's events) rather
        than cfn-debug generating them: written values are sent as written."""
        return self.from_files or not self.source.startswith("generated")


# --- reading ------------------------------------------------------------------------------------


def _model_file(path: Path, exports: Any = None, exempt: set[str] | None = None) -> dict[str, Any]:
    """The model in ``path``, its placeholders filled; their pointers are added to ``exempt``."""
    raw, bare = read_json_bare(path)
    data, filled = fill(raw, exports, path=path, bare=bare)
    if not isinstance(data, dict):
        raise EventError("expected a resource model (a JSON object)", path=path)
    if exempt is not None:
        exempt.update(f.pointer for f in filled)
        exempt.update(placeholder_pointers(raw))  # whole placeholders, as the file has them
    return data


def _from_input_files(
    root: Path, schema: ResourceSchema, exports: Any = None
) -> tuple[ScenarioInputs | None, list[str]]:
    """The lowest N's create (and update) of inputs/, else of example_inputs/ when the schema
    accepts its create (cfn_debug.example_inputs); and why example_inputs/ was passed over."""
    skipped: list[str] = []
    for name in INPUT_DIRS:
        directory = root / name
        if not directory.is_dir():
            continue
        numbered = sorted(
            (int(m.group(1)), p)
            for p in directory.glob("inputs_*_create.json")
            if (m := _INPUT_NAME.match(p.name))
        )
        if not numbered:
            continue
        number, create_path = numbered[0]
        update_path = directory / f"inputs_{number}_update.json"
        exempt: set[str] = set()
        create = _model_file(create_path, exports, exempt)
        if rejected_example(create_path, create, schema) is not None:  # said in a notice
            skipped.append(f"{name}/{create_path.name} is not valid against the schema")
            continue
        update = _model_file(update_path, exports, exempt) if update_path.is_file() else None
        source = f"{name}/{create_path.name}" + (f", {update_path.name}" if update else "")
        # Generated inputs need the same pre-existing resources: they get these values too.
        keep = {
            p: create[split_pointer(p)[0]]
            for p in sorted(exempt)
            if len(split_pointer(p)) == 1 and split_pointer(p)[0] in create
        }
        found = ScenarioInputs(
            create,
            update,
            source,
            {"CREATE": keep} if keep else {},
            frozenset(exempt),
            from_files=True,
        )
        return found, skipped
    return None, skipped


_PLACEHOLDER = re.compile(r"^\s*\{\{\s*[^{}]+?\s*\}\}\s*$")


def placeholder_pointers(model: Any, pointer: str = "") -> set[str]:
    """Pointers of the string values that are a whole ``{{Name}}`` placeholder: `cfn test`
    fills them from the setup stack's exports, so they name resources that exist already."""
    if isinstance(model, str):
        return {pointer} if _PLACEHOLDER.match(model) else set()
    found: set[str] = set()
    if isinstance(model, dict):
        for key, value in model.items():
            found |= placeholder_pointers(value, join_pointer(pointer, key))
    elif isinstance(model, list):
        for index, value in enumerate(model):
            found |= placeholder_pointers(value, join_pointer(pointer, index))
    return found


def read_overrides(root: Path, exports: Any = None) -> dict[str, dict[str, Any]] | None:
    """overrides.json as {"CREATE": {pointer: value}, "UPDATE": {...}}; keys may be property
    names or JSON pointers ("/SubnetId"), as the CloudFormation CLI accepts both. Its
    ``{{ExportName}}`` placeholders are filled from ``exports``."""
    path = root / OVERRIDES
    if not path.is_file():
        return None

    data = read_json_filled(path, exports)[0]
    if not isinstance(data, dict):
        raise EventError('expected an object such as {"CREATE": {"/Name": "x"}}', path=path)
    out: dict[str, dict[str, Any]] = {}
    for action, items in data.items():
        if action not in ("CREATE", "UPDATE"):
            raise EventError("expected CREATE or UPDATE", path=path, field=action)
        if not isinstance(items, dict):
            raise EventError("expected an object of property: value", path=path, field=action)
        out[action] = {(k if k.startswith("/") else "/" + k): v for k, v in items.items()}
    return out


def apply_overrides(model: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``model`` with each pointer's value set (its parents created as objects)."""
    out = copy.deepcopy(model)
    for pointer, value in overrides.items():
        tokens = split_pointer(pointer)
        if not tokens:
            continue
        node: Any = out
        for token in tokens[:-1]:
            if isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            elif isinstance(node, dict):
                node = node.setdefault(token, {})
            else:
                break
        else:
            if isinstance(node, dict):
                node[tokens[-1]] = value
            elif isinstance(node, list) and tokens[-1].isdigit() and int(tokens[-1]) < len(node):
                node[int(tokens[-1])] = value
    return out


def _from_events(
    project: Project, schema: ResourceSchema
) -> tuple[ScenarioInputs | None, list[str]]:
    """The project's own CREATE (and UPDATE) event as the scenarios' input, and why events were
    passed over: an event whose desired state the schema rejects is never the scenarios'
    input (a request cfn-debug builds must be one CloudFormation could send, and a handler may
    assume its input is valid; a published project's sam-tests may predate its schema)."""
    skipped: list[str] = []

    def pick(action: Action) -> tuple[Any, dict[str, Any]] | None:
        candidates = [
            e
            for e in project.events
            if e.action is action
            and e.normalized.desired
            and not (e.path is not None and e.path.parent.name in INPUT_DIRS)
            and not (e.normalized.type_configuration or {}).get("Fault")
        ]
        exact = [e for e in candidates if e.name.rsplit("/", 1)[-1] == action.value.lower()]
        for event in exact + [e for e in candidates if e not in exact]:
            model = drop_pointers(event.normalized.desired, schema.read_only)
            errors = desired_state_errors(schema, model)
            if not errors:
                return event, model
            pointer, message = errors[0]
            skipped.append(
                f"{event.source} is not valid against the schema: {pointer or '/'} {message}"
            )
        return None

    create = pick(Action.CREATE)
    if create is None:
        return None, skipped
    update = pick(Action.UPDATE)
    source = f"event {create[0].source}" + (f", {update[0].source}" if update else "")
    inputs = ScenarioInputs(create[1], update[1] if update else None, source)
    return inputs, skipped


def resolve_inputs(project: Project, schema: ResourceSchema) -> ScenarioInputs:
    """The create (and update) input of the scenarios; see the module docstring."""
    exports = getattr(project, "exports", None)
    found, skipped = _from_input_files(project.root, schema, exports)
    if found is not None:
        return _strip_read_only(found, schema)
    overrides = read_overrides(project.root, exports)
    if overrides is None:
        found, passed_over = _from_events(project, schema)
        skipped += passed_over
        if found is not None:
            if skipped:
                found.source += f" ({'; '.join(skipped)})"
            return found

    create = example_create(schema)
    update = example_update(schema)
    if overrides:
        path = project.root / OVERRIDES
        create_values = overrides.get("CREATE", {})
        update_values = overrides.get("UPDATE", create_values)
        create = apply_overrides(create, create_values)
        update = apply_overrides(update, update_values)
        _check_overridden(schema, create, create_values, path, "CREATE")
        _check_overridden(
            schema, update, update_values, path, "UPDATE" if "UPDATE" in overrides else "CREATE"
        )
    source = f"generated from the schema{' with ' + OVERRIDES if overrides else ''}"
    if skipped:
        source += f" ({'; '.join(skipped)})"
    return ScenarioInputs(create, update, source, overrides or {})


def _check_overridden(
    schema: ResourceSchema,
    model: dict[str, Any],
    values: dict[str, Any],
    path: Path,
    action: str,
) -> None:
    """An EventError naming the first value of ``overrides.json`` that makes the generated input
    invalid against the schema: a request cfn-debug builds must be one CloudFormation could send
    (a handler may assume its input is valid), so such an input is the project's to fix, never a
    finding on the handler. A value the author left as a placeholder (``"<MY_API_KEY_HERE>"``)
    is the usual case."""
    for pointer, message in schema.input_errors(model):
        hit = next((p for p in values if pointer == p or pointer.startswith(p + "/")), None)
        if hit is not None:
            raise EventError(
                f"{message} (the value makes the scenarios' input invalid against the schema: "
                "give one the schema allows)",
                path=path,
                field=f"{action}.{hit}",
            )


def _strip_read_only(found: ScenarioInputs, schema: ResourceSchema) -> ScenarioInputs:
    """An event's desired state may hold identifiers of some other resource: CloudFormation
    never sends readOnly properties to create, and the scenarios fill them in for update."""
    found.create = drop_pointers(found.create, schema.read_only)
    if found.update is not None:
        found.update = drop_pointers(found.update, schema.read_only)
    return found


def drop_pointers(model: dict[str, Any], patterns: frozenset[str] | set[str]) -> dict[str, Any]:
    """A copy without the top-level properties the (top-level) patterns name."""
    names = {split_pointer(p)[0] for p in patterns if len(split_pointer(p)) == 1}
    return {k: copy.deepcopy(v) for k, v in model.items() if k not in names}


# --- identifiers --------------------------------------------------------------------------------


def identifier_key(identifier: dict[str, Any] | None) -> str:
    return json.dumps(identifier, sort_keys=True, default=str)


def identifier_text(identifier: dict[str, Any] | None) -> str:
    if not identifier:
        return "(no identifier)"
    values = [str(v) for v in identifier.values()]
    return values[0] if len(values) == 1 else "|".join(values)


# --- unique names -------------------------------------------------------------------------------


def unique_suffix() -> str:
    return secrets.token_hex(3)


def _top_pointer(name: str) -> str:
    return "/" + name.replace("~", "~0").replace("/", "~1")


#: keywords under which a suffixed string no longer means what it meant
_FIXED_KEYWORDS = ("enum", "const", "format", "relationshipRef")


def natural_keys(
    schema: ResourceSchema, model: dict[str, Any], exempt: frozenset[str] | set[str] = frozenset()
) -> list[str]:
    """Top-level string properties of ``model`` that may get a unique suffix: (part of) the
    primary or an additional identifier, settable (not readOnly, not writeOnly), not a
    reference to something that exists already and not a value a suffix would break (see the
    module docstring). ``exempt``: pointers whose values came from an export."""
    identifiers = set(schema.primary_identifier)
    identifiers.update(p for group in schema.additional_identifiers for p in group)
    keys = []
    for name, value in model.items():
        pointer = _top_pointer(name)
        if pointer not in identifiers or not isinstance(value, str):
            continue
        if pointer in schema.read_only | schema.write_only or pointer in exempt:
            continue
        if _PLACEHOLDER.match(value) or value.lower().startswith("arn:"):
            continue
        raw = schema.raw.get("properties", {}).get(name)
        if isinstance(raw, dict) and str(raw.get("$ref", "#")).split("#", 1)[0]:
            continue  # a $ref into another type's schema: a reference to that type
        subschemas = schema.subschemas(pointer)
        if any(keyword in sub for sub in subschemas for keyword in _FIXED_KEYWORDS):
            continue
        keys.append(name)
    return keys


def _valid_at(schema: ResourceSchema, model: dict[str, Any], name: str) -> bool:
    pointer = "/" + name.replace("~", "~0").replace("/", "~1")
    return not any(
        p == pointer or p.startswith(pointer + "/") for p, _ in schema.input_errors(model)
    )


def unique_value(schema: ResourceSchema, model: dict[str, Any], name: str, suffix: str) -> str:
    """``model[name]`` with ``suffix`` worked in, in the first form the schema accepts; the
    value unchanged when none is accepted."""
    value: str = model[name]
    subschemas = schema.subschemas("/" + name.replace("~", "~0").replace("/", "~1"))
    limits = [s.get("maxLength") for s in subschemas if isinstance(s.get("maxLength"), int)]
    max_length = min(limits) if limits else None
    forms = [f"{value}-{suffix}", f"{value}{suffix}", f"{value}_{suffix}"]
    if max_length is not None:
        keep = max(0, max_length - len(suffix) - 1)
        forms += [f"{value[:keep]}-{suffix}", f"{value[: keep + 1]}{suffix}"]
    forms += [f"cfn{suffix}", suffix]
    for form in forms:
        trial = {**model, name: form}
        if _valid_at(schema, trial, name):
            return form
    return value


def retry_keys(
    schema: ResourceSchema, model: dict[str, Any], exempt: frozenset[str] | set[str] = frozenset()
) -> list[str]:
    """The natural key a retry after AlreadyExists makes unique: the last part of the primary
    identifier that may take a suffix (the parts before it usually name the parent the
    resource lives in: a table, a bucket), else every natural key."""
    keys = natural_keys(schema, model, exempt)
    primary = [k for k in keys if _top_pointer(k) in schema.primary_identifier]
    return primary[-1:] if primary else keys


def make_unique(
    schema: ResourceSchema,
    model: dict[str, Any],
    suffix: str,
    exempt: frozenset[str] | set[str] = frozenset(),
    only: list[str] | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """``model`` with its natural keys (or ``only`` those) made unique, and the {name: new
    value} it changed. ``exempt``: pointers of values that came from an export (pre-existing
    resources), kept."""
    out = copy.deepcopy(model)
    changed: dict[str, str] = {}
    for name in only if only is not None else natural_keys(schema, out, exempt):
        new = unique_value(schema, out, name, suffix)
        if new != out[name]:
            out[name] = new
            changed[name] = new
    return out, changed


def create_only_names(schema: ResourceSchema, model: dict[str, Any]) -> list[str]:
    """Top-level createOnly properties present in ``model`` that a request can set."""
    names = []
    for pointer in sorted(schema.create_only - schema.read_only):
        tokens = split_pointer(pointer)
        if len(tokens) == 1 and resolve_pointer(model, pointer) is not MISSING:
            names.append(tokens[0])
    return names
