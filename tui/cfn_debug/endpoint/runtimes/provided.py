"""Go and custom runtimes (``provided``, ``provided.al2``, ``provided.al2023``, ``go1.x``): the
project's built binary, which speaks the Lambda Runtime API itself.

The binary is ``bootstrap`` under the function's CodeUri (``go1.x``: the file the ``Handler``
names), run with ``AWS_LAMBDA_RUNTIME_API`` pointed at the worker's Runtime API: aws-lambda-go
(which the Go plugin's handlers are built on) starts its loop when that is set.

Which binary runs: the project's own when it is there and newer than every Go source; otherwise,
when the project has Go sources and ``go`` is installed, one cfn-debug builds as the Go plugin's
makebuild does (``go build -ldflags="-s -w" -tags=lambda.norpc``, GOOS=linux, CGO_ENABLED=0) into
its own cache (the state directory), never into the project, and without the network
(GOPROXY=off, GOTOOLCHAIN=local, ``-mod=vendor`` when the project vendors its modules): a project
whose modules are not in Go's module cache fails to build, with go's own words. The build is
redone when a source changes (watch mode: the replacement worker's prepare()). A project's binary
older than its sources with no ``go`` to rebuild it runs as it is, said once in the progress.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from pathlib import Path
from typing import ClassVar

from cfn_debug.endpoint.pyenv import EnvProgress
from cfn_debug.endpoint.runtimes import builds
from cfn_debug.endpoint.runtimes.base import (
    Launch,
    Runtime,
    RuntimeOptions,
    build_lock,
    rpdk_config,
    signature,
)
from cfn_debug.endpoint.runtimes.handler_request import as_handler_request
from cfn_debug.endpoint.template import FunctionSpec
from cfn_debug.errors import EndpointError

RUNTIMES = ("provided", "provided.al2", "provided.al2023", "go1.x")
#: The build's inputs under the module's root (vendor/modules.txt: the vendored modules' list).
GO_SUFFIXES = (".go", "go.mod", "go.sum", "go.work", "go.work.sum", "modules.txt")


class ProvidedRuntime(Runtime):
    family: ClassVar[str] = "provided"
    endpoint_url_readers: ClassVar[str] = "the AWS SDK for Go v2, not v1"
    writes_sentinel: ClassVar[bool] = False  # a plain aws-lambda-go binary

    def __init__(self, spec: FunctionSpec, project_dir: Path, options: RuntimeOptions) -> None:
        super().__init__(spec, project_dir, options)
        self.spec = spec
        self.project_dir = Path(project_dir)
        self.options = options
        self.runtime = spec.runtime or "provided"
        name = spec.handler if self.runtime == "go1.x" else "bootstrap"
        #: The binary the template names (it may not exist yet: CodeUri bin/ is a build output).
        self.binary = spec.code_dir / name
        self.go_root = _go_root(self.project_dir, spec.code_dir)
        self.go = builds.find_tool("go", "CFN_DEBUG_GO")
        self._chosen: Path | None = None
        self._said_stale = False

    @property
    def aws_calls_note(self) -> str:  # type: ignore[override]
        return f"AWS calls: not recorded for this runtime ({self.runtime})"

    # --- the seam ---

    def check(self) -> None:
        if self._usable(self.binary) and not self._stale():
            return
        if self.go_root is not None and self.go is not None:
            return  # prepare() builds it
        if self._usable(self.binary):
            return  # stale, but nothing to rebuild it with: prepare() says so
        shown = self._shown(self.binary)
        if self.go_root is None:
            raise EndpointError(
                f"{self.spec.name}: {shown} does not exist (runtime {self.runtime}): expected the "
                "built binary there (and no go.mod was found to build it from)"
            )
        raise EndpointError(
            f"{self.spec.name}: {shown} does not exist and `go` is not installed to build it: "
            "build it (`make build` in the project) or install Go (e.g. apt-get install golang-go)"
        )

    def prepare(self) -> None:
        self._chosen = self._binary()

    def launch(self, env: dict[str, str]) -> Launch:
        binary = self._chosen or self._binary()
        task_root = binary.parent
        env = {**env, "LAMBDA_TASK_ROOT": str(task_root), "_HANDLER": self.spec.handler}
        return Launch(argv=[str(binary)], env=env, cwd=task_root)

    def source_dir(self) -> Path:
        return self.go_root or self.spec.code_dir

    def describe(self) -> str:
        binary = self._chosen or self.binary
        return f"{self.runtime} {self._shown(binary)}"

    def adapt_request(self, body: bytes) -> bytes:
        """The Go plugin has no test entry point: a sam-style event goes as a HandlerRequest."""
        return as_handler_request(body, _type_name(self.project_dir))

    # --- which binary ---

    def _shown(self, path: Path) -> str:
        with contextlib.suppress(ValueError):
            return str(path.relative_to(self.project_dir))
        return str(path)

    @staticmethod
    def _usable(path: Path) -> bool:
        return path.is_file() and os.access(path, os.X_OK)

    def _sources(self) -> tuple[int, str]:
        if self.go_root is None:
            return 0, ""
        files = builds.source_files(self.go_root, GO_SUFFIXES, skip=[self.spec.code_dir])
        return signature(files)

    def _stale(self) -> bool:
        if self.go_root is None:
            return False
        newest, _ = self._sources()
        try:
            return self.binary.stat().st_mtime_ns < newest
        except OSError:
            return True

    def _binary(self) -> Path:
        """The binary to run now: the project's when current, else cfn-debug's build of it."""
        report = self.options.progress or (lambda _event: None)
        if self._usable(self.binary) and not self._stale():
            return self.binary
        if self.go_root is None or self.go is None:
            if self._usable(self.binary):
                if not self._said_stale:
                    self._said_stale = True
                    report(
                        EnvProgress(
                            "build",
                            f"{self._shown(self.binary)} is older than the Go sources and `go` "
                            "is not installed: running it as it is",
                        )
                    )
                return self.binary
            self.check()  # raises: nothing to run
        return self._build()

    def _build(self) -> Path:
        assert self.go_root is not None and self.go is not None
        report = self.options.progress or (lambda _event: None)
        cache = builds.cache_dir("provided", self.go_root)
        output = cache / "bootstrap"
        stamp = cache / "stamp.json"
        with build_lock(self.project_dir):
            _, digest = self._sources()
            with contextlib.suppress(OSError, ValueError):
                if json.loads(stamp.read_text()).get("sources") == digest and output.is_file():
                    return output
            package = _main_package(self.go_root)
            argv = [
                self.go,
                "build",
                "-ldflags=-s -w",
                "-tags=lambda.norpc",
                "-o",
                str(output) + ".new",
                package,
            ]
            shown = self._shown(self.go_root) if self.go_root != self.project_dir else "."
            report(EnvProgress("build", f"building {shown} (go build {package})..."))
            started = time.monotonic()
            builds.run_build(
                argv,
                self.go_root,
                _go_env(self.go_root, cache),
                f"{self.spec.name}: go build",
                hint=" (cfn-debug builds offline: GOPROXY=off; vendor the modules or put them "
                "in Go's module cache with `go mod download`)",
            )
            os.replace(str(output) + ".new", output)
            stamp.write_text(json.dumps({"sources": digest, "go": self._go_version()}))
            report(EnvProgress("build", f"built in {time.monotonic() - started:.1f} s: {output}"))
        return output

    def _go_version(self) -> str:
        if self.go is None:
            return ""
        try:
            done = subprocess.run(
                [self.go, "env", "GOVERSION"], capture_output=True, text=True, timeout=30
            )
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return done.stdout.strip()


def _go_root(project_dir: Path, code_dir: Path) -> Path | None:
    """The Go module the function is built from: the project's go.mod, else the nearest one
    above the code directory within the project."""
    if (project_dir / "go.mod").is_file():
        return project_dir
    folder = code_dir
    while folder != folder.parent and folder.is_relative_to(project_dir):
        if (folder / "go.mod").is_file():
            return folder
        folder = folder.parent
    return None


def _main_package(root: Path) -> str:
    """What the Go plugin's makebuild builds: cmd/ (its main.go); else the module's root."""
    if (root / "cmd" / "main.go").is_file():
        return "./cmd"
    return "."


def _go_env(root: Path, cache: Path) -> dict[str, str]:
    """The build's environment: offline, for Linux, without cgo, the local toolchain only."""
    env = dict(os.environ)
    env.update(
        {
            "GOOS": "linux",
            "CGO_ENABLED": "0",
            "GOPROXY": "off",
            "GOTOOLCHAIN": "local",
            "GOFLAGS": "-mod=vendor" if (root / "vendor" / "modules.txt").is_file() else "",
        }
    )
    env.pop("GOARCH", None)  # the host's: the binary runs here
    if not any(env.get(name) for name in ("GOCACHE", "HOME", "XDG_CACHE_HOME")):
        env["GOCACHE"] = str(cache / "go-build")
    return env


def _type_name(project_dir: Path) -> str | None:
    """The project's typeName (.rpdk-config), for the HandlerRequest's resourceType."""
    name = rpdk_config(project_dir).get("typeName")
    return name if isinstance(name, str) else None
