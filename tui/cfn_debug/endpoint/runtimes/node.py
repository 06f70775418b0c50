"""Node.js handlers (TypeScript plugin projects): ``node --require hooks.js runtime.js``.

runtime.js (beside this file, in node/) is cfn-debug's own Lambda Runtime API client: it loads the
module the function's ``Handler`` names under its code directory (``dist/handlers.entrypoint``),
runs it with a Lambda-shaped context and writes the end-of-invocation sentinel; hooks.js records
the handler's AWS calls (SDK v3 and v2) and points SDK v2 at AWS_ENDPOINT_URL.

``node`` is ``--node PATH`` or the first on PATH; it must satisfy the ``engines.node`` range of the
handler library (cloudformation-cli-typescript-lib, in the project's node_modules) or, failing
that, of the project's package.json.

Building (``prepare``): the project's dependencies are installed when node_modules is missing or
older than package.json / package-lock.json (``npm ci`` with a lockfile, else ``npm install``),
and the project's ``build`` script is run when the handler's output directory (``dist/``) is
missing or older than one of the build's inputs (``src/``, and ``build_files()``: the package's
tsconfig*.json, package.json with its scripts, package-lock.json), or when the last build
cfn-debug ran failed (tsc writes its output even when it reports errors, so a fresh dist/ does
not say the build passed; the failure is remembered outside the project until a build succeeds):
once, under a lock, reported through the endpoint's progress callback (a command that has not
ended after builds.BUILD_LIMIT_S is killed with its processes and fails). A build that succeeded
from the very inputs there are now is not run again (an incremental tsc may leave dist/ as it
was: their signature is kept outside the project). Decision: node_modules/ and dist/ are written
where the project's own build writes them (what ``npm ci && npm run build``, the plugin's
Makefile, would make); nothing else is written into the project.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

from cfn_debug.endpoint import proctree
from cfn_debug.endpoint.pyenv import EnvProgress
from cfn_debug.endpoint.runtimes import builds
from cfn_debug.endpoint.runtimes.base import (
    BuildFailed,
    Launch,
    Runtime,
    build_cache_dir,
    build_lock,
    check_build_files,
    project_key,
    read_json_object,
    signature,
)
from cfn_debug.endpoint.runtimes.semver import parse_version, satisfies
from cfn_debug.errors import EndpointError

HERE = Path(__file__).resolve().parent / "node"
RUNTIME_JS = HERE / "runtime.js"
HOOKS_JS = HERE / "hooks.js"
#: The handler library of TypeScript plugin projects: its engines range is the one checked.
HANDLER_LIBRARY = "@amazon-web-services-cloudformation/cloudformation-cli-typescript-lib"
#: Build output kept for an error message (the last lines; an install's first error lines).
ERROR_LINES = 15
#: An install's error lines kept for its message (npm's reason comes first; then the details).
INSTALL_ERROR_LINES = 6
#: How npm prefixes its error lines (npm 7+, and npm 6 and older).
NPM_ERROR_PREFIXES = ("npm error", "npm ERR!")
#: How npm prefixes its warnings, which never say why a command failed.
NPM_WARNING_PREFIXES = ("npm warn", "npm WARN")
#: The oldest Node this runtime client runs on.
MINIMUM_NODE = (18, 0, 0)
#: What npm writes into node_modules at every install (its freshness says when it last ran).
NPM_MARKER = ".package-lock.json"

_versions: dict[tuple[str, int], tuple[int, int, int] | None] = {}
_versions_lock = threading.Lock()


def find_node(choice: str | None) -> Path:
    """``--node PATH`` (a file, or a directory holding bin/node), else ``node`` on PATH."""
    if choice:
        path = Path(choice).expanduser()
        if path.is_dir():
            path = next((p for p in (path / "bin" / "node", path / "node") if p.exists()), path)
        if not path.is_file() or not os.access(path, os.X_OK):
            raise EndpointError("expected an executable node", path=str(path), field="--node")
        return path.absolute()
    found = shutil.which("node")
    if found is None:
        raise EndpointError(
            "this project's functions run on Node.js, and no `node` is on PATH: install Node.js "
            "18 or newer, or name one with --node PATH"
        )
    return Path(found)


def node_version(node: Path) -> tuple[int, int, int] | None:
    """The version of ``node`` (asked once per executable and modification time)."""
    try:
        key = (str(node), node.stat().st_mtime_ns)
    except OSError:
        return None
    with _versions_lock:
        if key in _versions:
            return _versions[key]
    try:
        done = subprocess.run(
            [str(node), "--version"], capture_output=True, text=True, timeout=30, check=False
        )
        version = parse_version(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        version = None
    with _versions_lock:
        _versions[key] = version
    return version


def failed_build_marker(package_root: Path) -> Path:
    """The file (outside the project) whose presence says the last ``npm run build`` cfn-debug
    ran in ``package_root`` failed."""
    return build_cache_dir() / "failed-builds" / project_key(package_root)


def build_stamp(package_root: Path) -> Path:
    """The file (outside the project) holding the signature of the inputs of the last build
    cfn-debug ran in ``package_root`` that succeeded."""
    return build_cache_dir() / "built-inputs" / project_key(package_root)


#: The package.json fields whose packages `npm install` puts under node_modules/.
DEPENDENCY_FIELDS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")


def _npm_text(line: str) -> str:
    """A line of npm's output without npm's error prefix, stripped."""
    for prefix in NPM_ERROR_PREFIXES:
        if line.startswith(prefix):
            return line[len(prefix) :].strip()
    return line.strip()


def npm_failure_lines(output: str, *, install: bool) -> list[str]:
    """The lines of a failed npm command that say why, for its one-line error.

    npm's warnings are left out, and so is the usage text npm appends to a usage error (``npm
    ci`` on a lockfile out of step with package.json prints its reason, then its whole option
    list). An install's reason is at the start of npm's error lines, so those come first; a
    build's is the compiler's output before npm's own lines, so the last lines are kept."""
    kept = [
        line.rstrip() for line in output.splitlines() if not line.startswith(NPM_WARNING_PREFIXES)
    ]
    usage = next((i for i, line in enumerate(kept) if _npm_text(line) == "Usage:"), None)
    if usage is not None:
        end = usage
        while end > 0 and not _npm_text(kept[end - 1]):
            end -= 1  # the blank lines before "Usage:"
        while end > 0 and _npm_text(kept[end - 1]):
            end -= 1  # the command's one-line summary ("Clean install a project")
        kept = kept[:end] if end > 0 else kept[:usage]
    lines: list[str] = []
    for line in kept:
        if _npm_text(line) and (not lines or lines[-1] != line):
            lines.append(line)
    if install:
        first = next((i for i, line in enumerate(lines) if line.startswith(NPM_ERROR_PREFIXES)), 0)
        return lines[first : first + INSTALL_ERROR_LINES]
    return lines[-ERROR_LINES:]


def _declares_dependencies(package: dict[str, Any]) -> bool:
    """Whether `npm install` would put anything under node_modules/: a dependency, or a
    workspace (linked there, with the workspaces' own dependencies)."""
    if any(isinstance(package.get(key), dict) and package[key] for key in DEPENDENCY_FIELDS):
        return True
    workspaces = package.get("workspaces")
    return isinstance(workspaces, list | dict) and bool(workspaces)


def _engines(package: dict[str, Any] | None) -> str | None:
    engines = package.get("engines") if package else None
    node = engines.get("node") if isinstance(engines, dict) else None
    return node if isinstance(node, str) and node.strip() else None


def _shown(version: tuple[int, int, int]) -> str:
    return "v" + ".".join(map(str, version))


class NodeRuntime(Runtime):
    family: ClassVar[str] = "node"
    endpoint_url_readers: ClassVar[str] = (
        "the AWS SDK for JavaScript v3, and v2 through cfn-debug's --require hook"
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.package_root = self._package_root()
        self._node: Path | None = None
        self._version: tuple[int, int, int] | None = None

    def _package_root(self) -> Path:
        """The directory of the package.json above the code directory (the code directory
        itself for `cfn init`'s CodeUri ./), up to the project directory."""
        here = self.spec.code_dir
        project = self.project_dir.resolve()
        while True:
            if (here / "package.json").is_file():
                return here
            if here == project or here.parent == here:
                return self.spec.code_dir
            here = here.parent

    # --- the toolchain ---

    @property
    def node(self) -> Path:
        if self._node is None:
            self._node = find_node(self.options.node)
        return self._node

    def check(self) -> None:
        node = self.node
        version = node_version(node)
        if version is None:
            raise EndpointError("cannot tell its version (`node --version` failed)", path=node)
        self._version = version
        if version < MINIMUM_NODE:
            raise EndpointError(
                f"is Node.js {_shown(version)}; cfn-debug runs Node handlers on Node.js "
                f"{_shown(MINIMUM_NODE)} or newer (name another with --node PATH)",
                path=node,
            )
        self._check_engines(version)

    def _check_engines(self, version: tuple[int, int, int]) -> None:
        """The handler library's engines range (the project's when the library is not
        installed yet) must hold ``version``."""
        library = self.package_root / "node_modules" / HANDLER_LIBRARY / "package.json"
        project = self.package_root / "package.json"
        for path in (library, project):
            wanted = _engines(read_json_object(path))
            if wanted is None:
                continue
            if not satisfies(version, wanted):
                raise EndpointError(
                    f"needs Node.js {wanted} (engines.node), and {self.node} is "
                    f"{_shown(version)}: install a newer Node.js or name one with --node PATH",
                    path=path,
                )
            return

    def describe(self) -> str:
        version = self._version or node_version(self.node)
        declared = self.spec.runtime
        local = f"nodejs{version[0]}.x" if version else None
        named = f"; the template names {declared}" if declared and declared != local else ""
        return f"node {_shown(version) if version else '?'} ({self.node}{named})"

    # --- building ---

    def _package(self) -> dict[str, Any]:
        return read_json_object(self.package_root / "package.json") or {}

    def output_dir(self) -> Path:
        """The directory the handler module is built into: the first part of ``Handler``'s
        module path ("dist" for dist/handlers.entrypoint), under the code directory."""
        module = self.spec.handler.rsplit("/", 1)[0] if "/" in self.spec.handler else ""
        first = module.split("/", 1)[0]
        return self.spec.code_dir / first if first else self.spec.code_dir

    def source_dir(self) -> Path:
        src = self.package_root / "src"
        return src if src.is_dir() else self.spec.code_dir

    def build_files(self) -> list[Path]:
        """The package's tsconfig*.json, package.json (the build script) and lockfile."""
        root = self.package_root
        configs = sorted(root.glob("tsconfig*.json"))
        return [*configs, root / "package.json", root / "package-lock.json"]

    def _build_inputs(self) -> tuple[int, str]:
        """The signature of what the build reads: src/ (unless it is the code directory,
        which holds the output too) and build_files()."""
        src = self.source_dir()
        sources = builds.source_files(src) if src != self.spec.code_dir else []
        return signature([*sources, *self.build_files()])

    def _needs_install(self) -> bool:
        if not (self.package_root / "package.json").is_file():
            return False
        modules = self.package_root / "node_modules"
        if not modules.is_dir():
            # npm creates no node_modules/ for a package that depends on nothing: installing
            # again at every start would cost a second each time and change nothing. A
            # package.json that does not parse goes to npm, which says where it is broken.
            package = read_json_object(self.package_root / "package.json")
            return package is None or _declares_dependencies(package)
        try:
            installed = (modules / NPM_MARKER).stat().st_mtime
        except OSError:
            return False  # installed by another tool (yarn, pnpm): theirs to keep fresh
        for name in ("package.json", "package-lock.json"):
            try:
                if (self.package_root / name).stat().st_mtime > installed:
                    return True
            except OSError:
                continue
        return False

    def _needs_build(self) -> bool:
        scripts = self._package().get("scripts")
        if not isinstance(scripts, dict) or "build" not in scripts:
            return False
        output = self.output_dir()
        if output == self.spec.code_dir or not output.is_dir():
            return True
        if failed_build_marker(self.package_root).exists():
            return True
        built, _ = signature(builds.source_files(output))
        if built == 0:
            return True
        newest, inputs = self._build_inputs()
        if newest <= built:
            return False
        with contextlib.suppress(OSError):
            if build_stamp(self.package_root).read_text() == inputs:
                return False  # built from these very inputs: the build left dist/ as it was
        return True

    def prepare(self) -> None:
        check_build_files(self.build_files())
        if not (self._needs_install() or self._needs_build()):
            return
        with build_lock(self.package_root):
            install = self._needs_install()
            build = self._needs_build()
            if install:
                lock = (self.package_root / "package-lock.json").is_file()
                self._run(["ci"] if lock else ["install"], "installing the dependencies of")
                self._run_install_check()
            if build:
                self._build()

    def _build(self) -> None:
        """``npm run build``, remembering a failure so the next start builds again, and a
        success's inputs."""
        marker = failed_build_marker(self.package_root)
        stamp = build_stamp(self.package_root)
        _, inputs = self._build_inputs()  # as they were when the build read them
        with contextlib.suppress(OSError):
            stamp.unlink(missing_ok=True)
        try:
            self._run(["run", "build"], "building")
        except BuildFailed:
            with contextlib.suppress(OSError):  # state dir not writable: not remembered
                marker.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                marker.touch()
            raise
        with contextlib.suppress(OSError):
            marker.unlink(missing_ok=True)
            stamp.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            stamp.write_text(inputs)

    def _run_install_check(self) -> None:
        if self._version is not None:
            self._check_engines(self._version)

    def _npm(self) -> str:
        beside = self.node.parent / "npm"
        if beside.is_file():
            return str(beside)
        found = shutil.which("npm")
        if found is None:
            raise EndpointError(
                f"the project needs building (node_modules or {self.output_dir().name}/ is "
                "missing or stale) and no `npm` is on PATH: install npm, or build it yourself",
                path=self.package_root,
            )
        return found

    def _run(self, args: list[str], what: str) -> None:
        command = [self._npm(), *args]
        shown = "npm " + " ".join(args)
        report = self.options.progress
        if report is not None:
            report(EnvProgress("build", f"{what} {self.package_root.name} ({shown}) ..."))
        env = dict(os.environ)
        env["PATH"] = f"{self.node.parent}{os.pathsep}{env.get('PATH', '')}"
        env.setdefault("npm_config_update_notifier", "false")
        env.setdefault("npm_config_fund", "false")
        env.setdefault("npm_config_audit", "false")
        started = time.monotonic()
        try:
            process = subprocess.Popen(
                command,
                cwd=self.package_root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                errors="replace",
                **proctree.own_group(),
            )
        except OSError as error:
            raise EndpointError(f"cannot run {shown}: {error}", path=self.package_root) from None
        try:
            output, _ = process.communicate(timeout=builds.BUILD_LIMIT_S)
        except subprocess.TimeoutExpired:
            # a build that never ends ("tsc --watch" as the build script, a source that is a
            # FIFO): its whole tree goes, and it counts as a failed build
            proctree.kill_tree(process.pid)
            output, _ = process.communicate()
            tail = [line for line in output.splitlines() if line.strip()][-ERROR_LINES:]
            raise BuildFailed(
                f"{shown} gave up after {builds.BUILD_LIMIT_S:.0f} s (does the build script "
                "end? a watch mode never does)",
                path=self.package_root,
                output=tail,
            ) from None
        except BaseException:
            proctree.kill_tree(process.pid)
            process.wait()
            raise
        if process.returncode != 0:
            tail = npm_failure_lines(output, install=args[0] != "run")
            raise BuildFailed(
                f"{shown} failed (exit {process.returncode}): " + " | ".join(tail),
                path=self.package_root,
                output=tail,
            )
        if report is not None:
            took = time.monotonic() - started
            report(EnvProgress("build", f"{shown} done in {took:.1f} s"))

    # --- the process ---

    def node_args(self) -> list[str]:
        """Arguments to node itself, before the runtime's script (a debugger's --inspect)."""
        args: list[str] = []
        if self.options.debug_port is not None:
            args.append(f"--inspect=127.0.0.1:{self.options.debug_port}")
        return args

    def launch(self, env: dict[str, str]) -> Launch:
        argv = [str(self.node), *self.node_args(), "--require", str(HOOKS_JS), str(RUNTIME_JS)]
        return Launch(argv, dict(env), self.spec.code_dir)
