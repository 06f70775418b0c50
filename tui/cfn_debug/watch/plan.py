"""What watch mode watches (handler sources, schema, event files), how a changed path is
classified, and the events a re-run sends."""

from __future__ import annotations

import dataclasses
import os
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfn_debug.endpoint.runtimes import RuntimeOptions, project_language, runtime_for
from cfn_debug.errors import CfnDebugError
from cfn_debug.events import EventSpec

if TYPE_CHECKING:
    from cfn_debug.workspace import Workspace


SOURCE, SCHEMA, EVENT = "source", "schema", "event"


def event_key(event: EventSpec) -> str:
    return real_path(event.path) if event.path is not None else event.name


def with_fresh_token(event: EventSpec) -> EventSpec:
    """The same event as a new request: a new clientRequestToken."""
    norm = dataclasses.replace(event.normalized, client_request_token=str(uuid.uuid4()))
    return dataclasses.replace(event, normalized=norm)


def real_path(path: Path | str) -> str:
    return os.path.realpath(path)


def _under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _in_hidden_dir(path: str, directory: str) -> bool:
    """Whether ``path`` lies in a hidden directory below ``directory`` (.aws-sam/, .cache/):
    never a source, as the builds and the pool's staleness check skip them too."""
    folders = os.path.relpath(path, directory).split(os.sep)[:-1]
    return any(name.startswith(".") for name in folders)


@dataclass
class WatchPlan:
    """What to watch, and how a changed path is classified."""

    source_dirs: list[str] = field(default_factory=list)
    build_files: list[str] = field(default_factory=list)  # a build's configuration: a source
    schema_file: str | None = None
    event_dirs: list[str] = field(default_factory=list)  # any *.json in them is an event
    event_files: list[str] = field(default_factory=list)  # exactly these (headless)
    #: Build outputs inside the sources (a Go module's bin/): no change there is one, so a
    #: --build that writes them does not trigger itself.
    output_dirs: list[str] = field(default_factory=list)

    def classify(self, path: str) -> str | None:
        if any(_under(path, d) for d in self.output_dirs):
            return None
        if self.schema_file is not None and path == self.schema_file:
            return SCHEMA
        if path in self.event_files:
            return EVENT
        if path.endswith(".json") and any(os.path.dirname(path) == d for d in self.event_dirs):
            return EVENT
        if path in self.build_files:
            return SOURCE
        if any(_under(path, d) and not _in_hidden_dir(path, d) for d in self.source_dirs):
            return SOURCE
        return None

    def recursive_roots(self) -> list[str]:
        return _outermost(self.source_dirs)

    def flat_roots(self) -> list[str]:
        """Directories watched without recursion: the schema's, the events' and the build
        files'."""
        files = [*self.event_files, *self.build_files]
        dirs = [*self.event_dirs, *(os.path.dirname(f) for f in files)]
        if self.schema_file is not None:
            dirs.append(os.path.dirname(self.schema_file))
        return sorted({d for d in dirs if os.path.isdir(d)})


def _outermost(dirs: Iterable[str]) -> list[str]:
    result: list[str] = []
    for directory in sorted(set(dirs), key=len):
        if os.path.isdir(directory) and not any(_under(directory, kept) for kept in result):
            result.append(directory)
    return sorted(result)


def plan_for(workspace: Workspace, event_files: Sequence[Path] | None = None) -> WatchPlan:
    """The plan for a workspace: its handler sources, its schema, and either the given event
    files or (``None``) every event directory of the project."""
    project = workspace.project
    root = Path(project.root)
    src = root / "src"
    if src.is_dir():
        sources = [real_path(src)]
    else:
        sources = [real_path(spec.code_dir) for spec in project.functions.values()]
    built = _built_sources(project.functions, root)
    schema = workspace.schema.path if workspace.schema is not None else project.schema_path
    plan = WatchPlan(
        source_dirs=sources + built.source_dirs,
        build_files=built.build_files,
        schema_file=real_path(schema) if schema else None,
        output_dirs=built.output_dirs,
    )
    if event_files is not None:
        plan.event_files = sorted({real_path(p) for p in event_files})
    else:
        dirs = {real_path(e.path.parent) for e in project.events if e.path is not None}
        plan.event_dirs = sorted(dirs)
    return plan


def _built_sources(functions: dict[str, Any], root: Path) -> WatchPlan:
    """The source directories, build files (tsconfig.json, pom.xml, ...) and outputs of the
    functions whose runtime builds their code, as each runtime names them (a Go module's root
    is its sources, and its CodeUri bin/ inside it the build's output); none for Python."""
    language = project_language(root)
    found = WatchPlan()
    for spec in functions.values():
        try:
            runtime = runtime_for(spec, root, RuntimeOptions(), language=language)
        except CfnDebugError:
            continue  # the endpoint says why when it starts
        if runtime.family == "python":
            continue
        sources, code = real_path(runtime.source_dir()), real_path(spec.code_dir)
        found.source_dirs.append(sources)
        found.build_files.extend(real_path(path) for path in runtime.build_files())
        if code != sources and _under(code, sources):
            found.output_dirs.append(code)
    found.build_files = sorted(set(found.build_files))
    found.output_dirs = sorted(set(found.output_dirs))
    return found
