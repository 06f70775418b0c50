"""A change to any input of a project's build rebuilds it: for TypeScript its sources and its
tsconfig*.json, package.json and lockfile; for Java its sources and resources, pom.xml,
lombok.config and the schema; for Go its module files, go.work included. Watch mode watches the
same files (and not a build's output inside them), and the warm workers are retired when one
changes.

The decisions are tested on copies of the fixture projects with touched modification times; the
builds that run are a stand-in script's (a real tsc rebuild is test_ts_note's watch test)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from cfn_debug.endpoint.runtimes import RuntimeOptions, builds, project_language, runtime_for
from cfn_debug.endpoint.runtimes.base import BuildFailed
from cfn_debug.endpoint.runtimes.java import JavaRuntime
from cfn_debug.endpoint.runtimes.node import NodeRuntime
from cfn_debug.endpoint.runtimes.provided import ProvidedRuntime
from cfn_debug.endpoint.server import EmbeddedEndpoint
from cfn_debug.endpoint.template import FunctionSpec, load_functions
from cfn_debug.errors import EndpointError, ProjectError
from cfn_debug.project import discover_project, read_settings
from cfn_debug.watch import SCHEMA, SOURCE, WatchPlan, plan_for

from .conftest import PROJECTS, TS_NOTE, needs_node, needs_npm
from .native.conftest import GO_NOTE, JAVA_NOTE, copy_project

NODE_ECHO = PROJECTS / "node-echo"
HOUR_NS = 3600 * 10**9


def _set_mtime(path: Path, ns: int) -> None:
    os.utime(path, ns=(ns, ns))


def _age_all(root: Path, ns: int) -> None:
    """Every file under ``root`` (not through links) last modified at ``ns``."""
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if not path.is_symlink():
                _set_mtime(path, ns)


def _ts_runtime(project: Path, **options: object) -> NodeRuntime:
    spec = load_functions(project)["TypeFunction"]
    runtime = runtime_for(spec, project, RuntimeOptions(**options))  # type: ignore[arg-type]
    assert isinstance(runtime, NodeRuntime)
    return runtime


def _newest_under(root: Path) -> int:
    return max(p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file())


# --- TypeScript -------------------------------------------------------------------------------


@pytest.mark.slow  # ms each once ts_note_built has built the fixture (minutes on a cold cache)
@pytest.mark.parametrize(
    ("name", "rebuilds"),
    [
        ("src/handlers.ts", True),
        ("tsconfig.json", True),
        ("package.json", True),  # its build script
        ("package-lock.json", True),  # reinstalled: built again too
        ("template.yml", False),
        ("inputs/inputs_1_create.json", False),
    ],
)
def test_a_typescript_build_input_newer_than_dist_rebuilds(
    ts_note_copy: Path, name: str, rebuilds: bool
) -> None:
    runtime = _ts_runtime(ts_note_copy)
    assert not runtime._needs_build()
    _set_mtime(ts_note_copy / name, _newest_under(ts_note_copy / "dist") + HOUR_NS)
    assert runtime._needs_build() is rebuilds
    if name in ("package.json", "package-lock.json"):
        assert runtime._needs_install()


# Like an incremental tsc: writes dist/ only when it is missing, and counts its runs.
LAZY_BUILD_JS = """
const fs = require("fs");
fs.appendFileSync("builds.log", "built\\n");
if (!fs.existsSync("dist/handlers.js")) {
    fs.mkdirSync("dist", { recursive: true });
    fs.writeFileSync("dist/handlers.js", "exports.entrypoint = () => null;\\n");
}
"""


@needs_node
def test_a_build_that_leaves_dist_as_it_was_runs_once_per_change(tmp_path: Path) -> None:
    root = tmp_path
    (root / "src").mkdir()
    (root / "src" / "handlers.ts").write_text("export const entrypoint = () => null;\n")
    (root / "dist").mkdir()
    (root / "dist" / "handlers.js").write_text("exports.entrypoint = () => null;\n")
    (root / "build.js").write_text(LAZY_BUILD_JS)
    (root / "tsconfig.json").write_text('{"compilerOptions": {"outDir": "dist"}}\n')
    (root / "node_modules").mkdir()  # no npm marker: installed by another tool, not reinstalled
    _age_all(root, time.time_ns() - 2 * HOUR_NS)
    (root / "package.json").write_text(json.dumps({"scripts": {"build": "node build.js"}}))
    spec = FunctionSpec("TypeFunction", "dist/handlers.entrypoint", root, runtime="nodejs20.x")
    runtime = NodeRuntime(spec, root, RuntimeOptions())

    def builds() -> int:
        log = root / "builds.log"
        return len(log.read_text().splitlines()) if log.exists() else 0

    assert runtime._needs_build()  # package.json (its scripts) is newer than dist/
    runtime.prepare()
    assert builds() == 1
    runtime.prepare()  # dist/ is still older than package.json: built from these inputs already
    assert builds() == 1
    _set_mtime(root / "tsconfig.json", time.time_ns() + HOUR_NS)
    runtime.prepare()
    assert builds() == 2


# --- Java and Go ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "stale"),
    [
        ("src/main/java/software/cfndebug/javanote/NoteHandlers.java", True),
        ("pom.xml", True),
        ("cfndebug-fixture-javanote.json", True),  # the schema: generated from, packed in
        ("lombok.config", True),
        ("src/main/resources/log4j2.xml", True),
        ("template.yml", False),
        ("sam-tests/create.json", False),
    ],
)
def test_a_java_build_input_newer_than_the_jar_rebuilds(
    tmp_path: Path, name: str, stale: bool
) -> None:
    project = copy_project(JAVA_NOTE, tmp_path / "java-note")
    (project / "lombok.config").write_text("lombok.addLombokGeneratedAnnotation = true\n")
    (project / "src" / "main" / "resources").mkdir()
    (project / "src" / "main" / "resources" / "log4j2.xml").write_text("<Configuration/>\n")
    jar = project / "target" / "note.jar"
    jar.parent.mkdir()
    jar.write_bytes(b"PK")
    now = time.time_ns()
    _age_all(project, now - 2 * HOUR_NS)
    _set_mtime(jar, now - HOUR_NS)
    runtime = JavaRuntime(load_functions(project)["TypeFunction"], project, RuntimeOptions())
    assert not runtime._stale(jar)
    _set_mtime(project / name, now)
    assert runtime._stale(jar) is stale


@pytest.mark.parametrize(("name", "stale"), [("go.mod", True), ("go.work", True)])
def test_a_go_module_file_newer_than_the_binary_rebuilds(
    tmp_path: Path, name: str, stale: bool
) -> None:
    project = copy_project(GO_NOTE, tmp_path / "go-note")
    (project / "go.work").write_text("go 1.21\n\nuse .\n")
    binary = project / "bin" / "bootstrap"
    binary.parent.mkdir()
    binary.write_bytes(b"")
    binary.chmod(0o755)
    now = time.time_ns()
    _age_all(project, now - 2 * HOUR_NS)
    _set_mtime(binary, now - HOUR_NS)
    runtime = ProvidedRuntime(load_functions(project)["TypeFunction"], project, RuntimeOptions())
    assert not runtime._stale()
    _, digest = runtime._sources()  # cfn-debug's own build is keyed by this digest
    _set_mtime(project / name, now)
    assert runtime._stale() is stale
    assert runtime._sources()[1] != digest


# --- watch mode and the warm workers ----------------------------------------------------------


def _plan(project: Path) -> WatchPlan:
    """plan_for reads the workspace's project and schema only: no endpoint is started."""
    workspace = SimpleNamespace(project=discover_project(project), schema=None)
    return plan_for(workspace)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("project", "changed", "kind"),
    [
        (TS_NOTE, "tsconfig.json", SOURCE),
        (TS_NOTE, "package.json", SOURCE),
        (TS_NOTE, "package-lock.json", SOURCE),
        (TS_NOTE, "src/handlers.ts", SOURCE),
        (TS_NOTE, "template.yml", None),
        (JAVA_NOTE, "pom.xml", SOURCE),
        (JAVA_NOTE, "lombok.config", SOURCE),
        (JAVA_NOTE, "cfndebug-fixture-javanote.json", SCHEMA),  # reloaded, and rebuilt
        (JAVA_NOTE, "template.yml", None),
        (GO_NOTE, "go.mod", SOURCE),
        (GO_NOTE, "cmd/main.go", SOURCE),
        (GO_NOTE, "bin/bootstrap", None),  # the build's output: `--build "make"` writes it
        (GO_NOTE, ".aws-sam/build/TypeFunction/bootstrap", None),  # `--build "sam build"`'s
    ],
)
def test_watch_mode_watches_every_build_input(
    project: Path, changed: str, kind: str | None
) -> None:
    plan = _plan(project)
    path = os.path.realpath(project / changed)
    assert plan.classify(path) == kind
    watched = [*plan.recursive_roots(), *plan.flat_roots()]
    assert kind is None or any(path.startswith(root + os.sep) for root in watched), watched


@needs_node
def test_a_build_file_change_retires_the_warm_workers(tmp_path: Path) -> None:
    """node-echo (no build script) with a package.json and tsconfig.json beside src/: a save of
    tsconfig.json alone makes the next invocation start a new worker (whose start builds)."""
    project = tmp_path / "echo"
    shutil.copytree(NODE_ECHO, project)
    (project / "package.json").write_text("{}\n")
    (project / "tsconfig.json").write_text("{}\n")
    (project / "node_modules").mkdir()  # no npm marker: installed by another tool, not reinstalled

    def pid(endpoint: EmbeddedEndpoint) -> int:
        url = f"{endpoint.url}/2015-03-31/functions/Echo/invocations"
        return int(httpx.post(url, json={"mode": "context"}, timeout=60).json()["pid"])

    with EmbeddedEndpoint(project) as endpoint:
        first = pid(endpoint)
        assert pid(endpoint) == first  # warm
        _set_mtime(project / "tsconfig.json", time.time_ns() + HOUR_NS)
        assert pid(endpoint) != first


def test_a_package_that_depends_on_nothing_is_not_installed_at_every_start(
    tmp_path: Path,
) -> None:
    """npm makes no node_modules/ for a package.json without dependencies: its absence then
    asks for no install (one that does not parse still goes to npm, which names the error)."""
    root = tmp_path
    (root / "src").mkdir()
    (root / "src" / "handlers.js").write_text("exports.entrypoint = () => null;\n")
    spec = FunctionSpec("TypeFunction", "src/handlers.entrypoint", root, runtime="nodejs20.x")
    runtime = NodeRuntime(spec, root, RuntimeOptions())
    package = root / "package.json"
    package.write_text(json.dumps({"name": "bare", "scripts": {}, "dependencies": {}}))
    assert not runtime._needs_install()
    package.write_text(json.dumps({"name": "lib", "dependencies": {"left-pad": "1.3.0"}}))
    assert runtime._needs_install()
    package.write_text(json.dumps({"name": "root", "workspaces": ["packages/*"]}))
    assert runtime._needs_install()  # npm links the workspaces into node_modules/
    package.write_text('{"name": "broken",')
    assert runtime._needs_install()


@pytest.mark.timeout(30)  # a read of the FIFO would wait for a writer that never comes
@pytest.mark.parametrize(
    ("name", "kind", "found"),
    [
        ("package.json", "fifo", "a FIFO"),
        ("tsconfig.json", "fifo", "a FIFO"),
        ("tsconfig.json", "directory", "a directory"),
    ],
)
def test_a_build_input_that_is_not_a_regular_file_is_refused_not_waited_on(
    tmp_path: Path, name: str, kind: str, found: str
) -> None:
    root = tmp_path
    (root / "src").mkdir()
    (root / "src" / "handlers.ts").write_text("export const entrypoint = () => null;\n")
    (root / "dist").mkdir()
    (root / "dist" / "handlers.js").write_text("exports.entrypoint = () => null;\n")
    (root / "package.json").write_text(json.dumps({"scripts": {"build": "node -e 0"}}))
    (root / "tsconfig.json").write_text("{}\n")
    (root / name).unlink()
    if kind == "fifo":
        os.mkfifo(root / name)
    else:
        (root / name).mkdir()
    spec = FunctionSpec("TypeFunction", "dist/handlers.entrypoint", root, runtime="nodejs20.x")
    runtime = NodeRuntime(spec, root, RuntimeOptions())
    with pytest.raises(EndpointError, match=f"expected a regular file .*, found {found}") as error:
        runtime.prepare()
    assert error.value.path == str(root / name)


@pytest.mark.timeout(30)
def test_an_rpdk_config_fifo_is_an_error_of_the_project_not_a_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".rpdk-config")
    assert project_language(tmp_path) is None  # the runtimes never wait on it
    with pytest.raises(ProjectError, match="expected a regular file, found a FIFO") as error:
        read_settings(tmp_path)
    assert error.value.path == str(tmp_path / ".rpdk-config")


def test_a_state_directory_that_cannot_be_written_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build lock lives in cfn-debug's state: when it cannot be created the error names it
    (it was an OSError, reported as an internal error of cfn-debug)."""
    blocked = tmp_path / "state"
    blocked.write_text("a file where the state directory should be\n")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    root = tmp_path / "project"
    (root / "dist").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"scripts": {"build": "node -e 0"}}))
    spec = FunctionSpec("TypeFunction", "dist/handlers.entrypoint", root, runtime="nodejs20.x")
    with pytest.raises(EndpointError, match="cannot create this directory of cfn-debug's state"):
        NodeRuntime(spec, root, RuntimeOptions()).prepare()  # dist/ is empty: a build is due


@needs_npm
@pytest.mark.timeout(60)
def test_a_build_that_never_ends_is_given_up_with_its_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build script that never ends (a watch mode) is stopped at the build limit, its whole
    tree killed, and fails as a build does (it hung the endpoint's start for ever)."""
    marker = f"cfn-debug-never-ends-{os.getpid()}"
    root = tmp_path
    (root / "dist").mkdir()
    script = f'node -e "setInterval(() => {{}}, 1000) // {marker}"'
    (root / "package.json").write_text(json.dumps({"scripts": {"build": script}}))
    monkeypatch.setattr(builds, "BUILD_LIMIT_S", 1.0)
    spec = FunctionSpec("TypeFunction", "dist/handlers.entrypoint", root, runtime="nodejs20.x")
    with pytest.raises(BuildFailed, match="gave up after 1 s"):
        NodeRuntime(spec, root, RuntimeOptions()).prepare()
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                left.append(pid)
    assert not left
