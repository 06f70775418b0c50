"""Find a resource-type project: its settings, schema, functions and test events.

``discover_project(path)`` looks at ``path``; without one, at the current directory when it holds a
``.rpdk-config`` or a ``template.yml``; else it opens the bundled demo project.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfn_debug.aws.placeholders import read_json_filled
from cfn_debug.endpoint.template import load_functions
from cfn_debug.errors import CfnDebugError, EventError, ProjectError
from cfn_debug.events import EventSpec, event_from_model, load_event
from cfn_debug.filesafe import read_json, read_text
from cfn_debug.hooks.lambda_hooks import find_lambda_hook
from cfn_debug.hooks.project import find_hook_events, hook_schema_of, is_hook_project
from cfn_debug.locations import DEMO_DIR
from cfn_debug.records import Action
from cfn_debug.schema import identifier_model, split_pointer

if TYPE_CHECKING:
    from cfn_debug.aws.placeholders import Exports
    from cfn_debug.endpoint.template import FunctionSpec

RPDK_CONFIG = ".rpdk-config"
TEMPLATE_NAMES = ("template.yml", "template.yaml")
#: Directories of ready-made events, in the order they are listed.
EVENT_DIRS = ("sample_events", "sam-tests")
#: Directories of bare models named inputs_N_create/update/invalid.json (`cfn test` inputs).
INPUT_DIRS = ("inputs", "example_inputs")
_INPUT_NAME = re.compile(r"^inputs_(\d+)_(create|update|invalid)\.json$")


@dataclass
class Project:
    """A resource-type project as cfn-debug sees it."""

    root: Path
    settings: dict[str, Any] = field(default_factory=dict)  # .rpdk-config as read
    schema_path: Path | None = None
    functions: dict[str, FunctionSpec] = field(default_factory=dict)
    events: list[EventSpec] = field(default_factory=list)
    event_errors: list[CfnDebugError] = field(default_factory=list)  # files that would not load
    is_demo: bool = False
    functions_error: ProjectError | None = None  # why there are no functions (broken template)
    #: what fills the {{ExportName}} placeholders of its files (None: nothing; any is an error)
    exports: Exports | None = None
    #: a hook project: "hook" (artifact type HOOK) or "lambda-hook" (a template declaring an
    #: AWS::CloudFormation::LambdaHook); None for a resource type (cfn_debug.hooks)
    hook_kind: str | None = None
    #: a Lambda Hook's declaration (cfn_debug.hooks.lambda_hooks.LambdaHook)
    lambda_hook: Any = None

    @property
    def type_name(self) -> str | None:
        value = self.settings.get("typeName")
        return value if isinstance(value, str) else None

    @property
    def language(self) -> str | None:
        return self.settings.get("language")

    @property
    def entrypoint(self) -> str | None:
        return self.settings.get("entrypoint")

    @property
    def test_entrypoint(self) -> str | None:
        return self.settings.get("testEntrypoint")

    @property
    def name(self) -> str:
        return self.type_name or self.root.name


def is_project_dir(path: Path) -> bool:
    return (path / RPDK_CONFIG).is_file() or any((path / n).is_file() for n in TEMPLATE_NAMES)


def schema_file_name(type_name: str) -> str:
    """`cfn init`'s schema file name: ``Org::Service::Thing`` -> ``org-service-thing.json``."""
    return type_name.lower().replace("::", "-") + ".json"


def read_settings(root: Path) -> dict[str, Any]:
    path = root / RPDK_CONFIG
    if not path.exists():  # a directory or a FIFO by that name is an error read_json names
        return {}
    data = read_json(path, ProjectError)
    if not isinstance(data, dict):
        raise ProjectError("expected a JSON object", path=path)
    for key in ("typeName", "language", "entrypoint", "testEntrypoint"):
        if key in data and data[key] is not None and not isinstance(data[key], str):
            raise ProjectError(f"expected a string, got {data[key]!r}", path=path, field=key)
    return data


def find_schema(root: Path, type_name: str | None) -> Path | None:
    """The .rpdk-config-derived schema file, else the single *.json at the root with a typeName."""
    if type_name:
        candidate = root / schema_file_name(type_name)
        if candidate.is_file():
            return candidate
    found: list[Path] = []
    for path in sorted(root.glob("*.json")):
        try:
            head = read_text(path)  # a FIFO named *.json is skipped, not waited on
        except (OSError, UnicodeDecodeError):
            continue
        if '"typeName"' not in head:
            continue
        try:
            data = json.loads(head)
        except ValueError:
            found.append(path)  # a broken schema still is the schema: loading it says what broke
            continue
        if isinstance(data, dict) and "typeName" in data:
            found.append(path)
    return found[0] if len(found) == 1 else None


def _event_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.glob("*.json") if p.is_file())


def _label(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def _load_events(
    dirs: list[Path], errors: list[CfnDebugError], exports: Exports | None = None
) -> list[EventSpec]:
    events: list[EventSpec] = []
    for directory in dirs:
        for path in _event_files(directory):
            try:
                events.append(load_event(path, name=_label(path), exports=exports))
            except CfnDebugError as exc:
                errors.append(exc)
    return events


def _load_inputs(
    directory: Path, errors: list[CfnDebugError], exports: Exports | None = None
) -> list[EventSpec]:
    """inputs_N_create.json -> CREATE; inputs_N_update.json -> UPDATE with previous = the create
    input of the same N; inputs_N_invalid.json -> CREATE of an invalid model."""
    groups: dict[int, dict[str, Path]] = {}
    for path in _event_files(directory):
        match = _INPUT_NAME.match(path.name)
        if match:
            groups.setdefault(int(match.group(1)), {})[match.group(2)] = path
    events: list[EventSpec] = []
    for number in sorted(groups):
        files = groups[number]
        models: dict[str, Any] = {}
        for kind in ("create", "update", "invalid"):
            if kind not in files:
                continue
            try:
                models[kind] = _filled(files[kind], exports)
                if not isinstance(models[kind], dict):
                    raise EventError("expected a resource model (a JSON object)", path=files[kind])
            except CfnDebugError as exc:
                errors.append(exc)
                models.pop(kind, None)
        for kind, action in (
            ("create", Action.CREATE),
            ("update", Action.UPDATE),
            ("invalid", Action.CREATE),
        ):
            if kind not in models:
                continue
            previous = models.get("create") if kind == "update" else None
            events.append(
                event_from_model(
                    models[kind],
                    action,
                    name=_label(files[kind]),
                    path=files[kind],
                    previous=previous,
                )
            )
    return events


#: why an inputs_N_update is not sent after a create that answered SUCCESS with no identifier
_NO_IDENTIFIER = "returned no primary identifier (its primary-identifier-present says so)"


class InputsChain:
    """`cfn test`'s order for ``inputs/``: ``inputs_N_update`` updates what ``inputs_N_create``
    made. Once the create of the same N has ended SUCCESS in this run, the update is sent with
    the created primary identifier (a readOnly one cannot be in the file), the createOnly
    values the create was sent with (a unique suffix included) and the create's returned model
    as its previous state, as `cfn test` does. An update whose create was run and did not
    succeed, or succeeded naming no primary identifier while the update file names none either,
    is not sent (``skip_reason``): it could only address nothing, and the request cfn-debug
    built would be blamed on the handler (input-identifier-present)."""

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self.created: dict[tuple[Path, str], dict[str, Any]] = {}
        #: key -> (the create's file name, why its update cannot be sent)
        self.failed: dict[tuple[Path, str], tuple[str, str]] = {}

    @staticmethod
    def _key(event: EventSpec, kind: str) -> tuple[Path, str] | None:
        path = event.path
        if path is None or path.parent.name not in INPUT_DIRS:
            return None
        match = _INPUT_NAME.match(path.name)
        if match is None or match.group(2) != kind:
            return None
        return path.parent, match.group(1)

    def skip_reason(self, event: EventSpec) -> str | None:
        """Why ``event`` (an inputs_N_update whose create did not succeed, or named no
        identifier the update could carry) is not sent."""
        key = self._key(event, "update")
        failed = self.failed.get(key) if key is not None else None
        if failed is None:
            return None
        name, why = failed
        desired = event.normalized.desired
        named = (
            self.schema is not None
            and isinstance(desired, dict)
            and self.schema.identifier_of(desired) is not None
        )
        if why == _NO_IDENTIFIER and named:
            return None  # the update file names its resource itself
        return f"skipped: {name} {why}"

    def _carried(self, desired: dict[str, Any], created: dict[str, Any]) -> dict[str, Any]:
        """The created resource's identifier and createOnly values, where the update file
        leaves them out or writes them as the create's file did (before a unique suffix)."""
        carried: dict[str, Any] = {}

        pointers = [*self.schema.create_only, *self.schema.primary_identifier]
        names = {t[0] for t in map(split_pointer, pointers) if len(t) == 1}
        for name in sorted(names):
            if name not in created:
                continue
            mine, theirs = desired.get(name), created[name]
            if mine is None or (
                isinstance(mine, str) and isinstance(theirs, str) and theirs.startswith(mine)
            ):
                carried[name] = theirs
        return carried

    def prepare(self, event: EventSpec) -> EventSpec:
        key = self._key(event, "update")
        created = self.created.get(key) if key is not None else None
        desired = event.normalized.desired
        if created is None or self.schema is None or not isinstance(desired, dict):
            return event
        carried = self._carried(desired, created)
        identifier = self.schema.identifier_of({**desired, **carried})
        if identifier is None:
            return event
        return event_from_model(
            {**desired, **carried, **identifier_model(identifier)},
            Action.UPDATE,
            name=event.name,
            path=event.path,
            previous=created,
        )

    def record(self, event: EventSpec, run: Any) -> None:
        key = self._key(event, "create")
        if key is None:
            return
        own = [s for s in run.steps if s.origin is None]
        if run.final_status != "SUCCESS" or not own:
            self.created.pop(key, None)
            self.failed[key] = (event.name, "did not succeed")
            return
        self.failed.pop(key, None)
        model = (own[-1].result.progress or {}).get("resourceModel")
        if isinstance(model, dict):
            self.created[key] = model
        if self.schema is not None and (
            not isinstance(model, dict) or self.schema.identifier_of(model) is None
        ):
            self.failed[key] = (event.name, _NO_IDENTIFIER)


def with_creates(
    events: list[EventSpec], schema: Any, load: Callable[[Path], EventSpec]
) -> tuple[list[EventSpec], list[str]]:
    """``events`` with the ``inputs_N_create`` of each ``inputs_N_update`` run without it put
    first (the update addresses what the create makes), and a line saying so for each. An
    update that names no identifier and has no create file to run first is an error that says
    how to run it."""
    names = {e.path.resolve() for e in events if e.path is not None}
    out: list[EventSpec] = []
    notes: list[str] = []
    for event in events:
        key = InputsChain._key(event, "update")
        if key is not None and event.path is not None:
            create = key[0] / f"inputs_{key[1]}_create.json"
            desired = event.normalized.desired
            named = (
                schema is not None
                and isinstance(desired, dict)
                and schema.identifier_of(desired) is not None
            )
            if create.is_file() and create.resolve() not in names:
                out.append(load(create))
                names.add(create.resolve())
                notes.append(
                    f"running {key[0].name}/{create.name} first: {event.path.name} updates "
                    "the resource it creates"
                )
            elif not create.is_file() and not named:
                raise ProjectError(
                    f"an update needs the resource's identifier, and there is no {create.name} "
                    "to create it first: run the create with it, or write the identifier of "
                    "an existing resource into the file",
                    path=event.path,
                )
        out.append(event)
    return out, notes


def _filled(path: Path, exports: Exports | None) -> Any:

    return read_json_filled(path, exports)[0]


def find_events(
    root: Path, *, is_demo: bool = False, exports: Exports | None = None
) -> tuple[list[EventSpec], list[CfnDebugError]]:
    """Every event of a project, and the files that would not load."""
    errors: list[CfnDebugError] = []
    dirs = [root / d for d in EVENT_DIRS if (root / d).is_dir()]
    if is_demo and not dirs:
        # The wheel puts the demo's events in cfn_debug/demo/sample_events; a source checkout
        # keeps them at the repository root.
        repo_events = root.parents[2] / "sample_events"
        if repo_events.is_dir():
            dirs.append(repo_events)
    events = _load_events(dirs, errors, exports)
    for name in INPUT_DIRS:
        # the first that holds inputs, as `scenario` reads them: `cfn init` leaves
        # example_inputs/ behind, and a project with inputs/ no longer means it
        if (root / name).is_dir() and any((root / name).glob("inputs_*.json")):
            events.extend(_load_inputs(root / name, errors, exports))
            break
    return events, errors


def _load_functions(root: Path) -> tuple[dict[str, FunctionSpec], ProjectError | None]:
    """The template's (else .rpdk-config's) functions; a problem is kept, not raised: it only
    matters when the embedded endpoint has to serve them."""
    if not is_project_dir(root):
        return {}, None

    try:
        return load_functions(root), None
    except ProjectError as exc:
        return {}, exc


def discover_project(
    path: Path | None = None, *, schema_path: Path | None = None, exports: Exports | None = None
) -> Project:
    """The project at ``path`` (else the current directory, else the bundled demo).

    ``schema_path`` overrides the schema file discovery (``--schema``); ``exports`` fills the
    ``{{ExportName}}`` placeholders of its events and inputs (one it cannot fill makes the file
    an event error).
    """
    if path is not None:
        root = path.expanduser()
        if not root.exists():
            raise ProjectError("no such directory", path=root)
        if not root.is_dir():
            raise ProjectError("expected a project directory, found a file", path=root)
    else:
        cwd = Path.cwd()
        root = cwd if is_project_dir(cwd) else DEMO_DIR
    root = root.resolve()
    is_demo = root == DEMO_DIR
    settings = read_settings(root)
    type_name = settings.get("typeName")
    if schema_path is not None:
        schema = schema_path.expanduser()
        if not schema.is_file():
            raise ProjectError("no such schema file", path=schema, field="--schema")
    else:
        schema = find_schema(root, type_name)
    hook_kind, lambda_hook = _hook_kind(root, settings, schema)
    if hook_kind is not None:
        hook_schema = hook_schema_of(schema, lambda_hook)
        events, errors = find_hook_events(root, hook_schema, exports)  # type: ignore[assignment]
    else:
        events, errors = find_events(root, is_demo=is_demo, exports=exports)
    functions, functions_error = _load_functions(root)
    return Project(
        root=root,
        settings=settings,
        schema_path=schema,
        functions=functions,
        functions_error=functions_error,
        events=events,
        event_errors=errors,
        is_demo=is_demo,
        exports=exports,
        hook_kind=hook_kind,
        lambda_hook=lambda_hook,
    )


def _hook_kind(root: Path, settings: dict[str, Any], schema: Path | None) -> tuple[str | None, Any]:
    """("hook", None) for a hook project, ("lambda-hook", its LambdaHook) for a Lambda Hook,
    (None, None) for a resource type (cfn_debug.hooks)."""
    if is_hook_project(settings, schema):
        return "hook", None
    if settings.get("artifact_type"):
        return None, None

    found = find_lambda_hook(root)
    return ("lambda-hook", found) if found is not None else (None, None)
