"""What every runtime of the embedded endpoint provides: how a worker process is built and started.

A runtime module (python.py, node.py, ...) holds everything specific to one language: checking its
toolchain, building the project's code when it is missing or stale, and the command line and
environment of a worker process that speaks the Lambda Runtime API at AWS_LAMBDA_RUNTIME_API.
Everything else (the Runtime API listener, log capture, timeouts, memory, process trees, the
invoke API) is the worker's and the endpoint's, the same for every runtime.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import stat
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from cfn_debug.errors import EndpointError
from cfn_debug.filesafe import file_kind, read_text
from cfn_debug.locations import runtimes_dir

if TYPE_CHECKING:
    from cfn_debug.endpoint.pyenv import ProgressCallback
    from cfn_debug.endpoint.template import FunctionSpec


class BuildFailed(EndpointError):
    """The project's install or build command failed: exit 2 when the endpoint starts; once it
    runs (watch mode rebuilds on save) the invocation's init error, with ``output`` (the
    command's last lines) as its log."""

    def __init__(self, message: str, *, path: str | Path | None = None, output: list[str]):
        super().__init__(message, path=path)
        self.output = output


@dataclass(frozen=True)
class RuntimeOptions:
    """The choices of one endpoint that runtimes read (from the command line)."""

    python: str | Path | None = None  # --python: the interpreter of Python workers
    node: str | None = None  # --node: the node executable of Node workers
    debug_port: int | None = None  # a debugger's port (Node: --inspect=127.0.0.1:PORT)
    progress: ProgressCallback | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Launch:
    """One worker process: its command line (argv[0] an absolute path), its whole environment,
    and its working directory."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path


class Runtime(ABC):
    """One function's runtime. The endpoint calls ``check`` once when it starts, then, for each
    worker it starts, ``prepare`` and ``launch``."""

    #: "python", "node", "provided" or "java": the key of the dispatch table.
    family: ClassVar[str]
    #: None when the worker records the handler's AWS calls (aws_recorder's records on fd 1);
    #: otherwise what the step's AWS calls say instead.
    aws_calls_note: ClassVar[str | None] = None
    #: Which AWS SDKs of this runtime's language read AWS_ENDPOINT_URL (and so reach the local
    #: AWS or --aws-endpoint-url), said in the AWS line.
    endpoint_url_readers: ClassVar[str] = ""
    #: Whether the worker writes worker_main.SENTINEL + request id before each answer; without
    #: it an invocation's log ends at its answer, once the pipe is read.
    writes_sentinel: ClassVar[bool] = True
    #: Whether workers may be forked from the Python fork server (Python only); others are
    #: started through it as new programs (see forkserver.ForkServer.spawn).
    forks_python: ClassVar[bool] = False

    def __init__(self, spec: FunctionSpec, project_dir: Path, options: RuntimeOptions) -> None:
        self.spec = spec
        self.project_dir = Path(project_dir)
        self.options = options

    def check(self) -> None:  # noqa: B027 - most runtimes need no check
        """The toolchain is there and new enough; an EndpointError (exit 2) otherwise."""

    def prepare(self) -> None:  # noqa: B027 - most runtimes need no build
        """Build what is missing or older than its sources; cheap when nothing changed. Called
        before every worker start."""

    @abstractmethod
    def launch(self, env: dict[str, str]) -> Launch:
        """The worker process for ``env`` (the Lambda environment, AWS_LAMBDA_RUNTIME_API
        included): the runtime adds to it and drops nothing."""

    def adapt_request(self, body: bytes) -> bytes:
        """The invocation's payload as this runtime's handlers take it (the Go and Java plugins
        take only HandlerRequests: they convert sam-style events); may raise
        handler_request.RequestRefused, which the endpoint answers as an HTTP error."""
        return body

    def source_dir(self) -> Path:
        """The sources whose change makes the warm workers stale."""
        return self.spec.code_dir

    def build_files(self) -> list[Path]:
        """The build's inputs outside ``source_dir()`` (its configuration: tsconfig.json,
        pom.xml, ...; they need not exist): a change to one rebuilds the code at the next worker
        start and, as a source change does, retires the warm workers and re-runs in watch mode."""
        return []

    def describe(self) -> str:
        """A few words naming the runtime and its toolchain, e.g. "node v20.11.1"."""
        return self.spec.runtime or self.family


def signature(files: Iterable[str | Path]) -> tuple[int, str]:
    """(newest mtime in ns, digest of every file's path, mtime and size): the digest changes on
    any save, rename or removal; the mtime compares with a build output's."""
    digest = hashlib.sha256()
    newest = 0
    for path in files:
        try:
            info = os.stat(path)
        except OSError:
            continue
        newest = max(newest, info.st_mtime_ns)
        digest.update(f"{path}\0{info.st_mtime_ns}\0{info.st_size}\n".encode())
    return newest, digest.hexdigest()[:32]


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in the regular file at ``path``; None when there is none (missing, not a
    regular file: a FIFO is not waited on, unreadable, not JSON or not an object)."""
    try:
        data = json.loads(read_text(path))
    except (OSError, ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    return data if isinstance(data, dict) else None


def rpdk_config(project_dir: Path) -> dict[str, Any]:
    """The project's ``.rpdk-config`` as read ({} without a readable one: project discovery
    reports what is wrong with it)."""
    return read_json_object(Path(project_dir) / ".rpdk-config") or {}


def check_build_files(files: Iterable[Path]) -> None:
    """Refuse a build input that exists but is not a regular file (a directory named
    tsconfig.json, a FIFO named pom.xml: the build tool would fail obscurely or wait on it
    forever); missing ones and dangling links are the build tool's to report."""
    for path in files:
        try:
            mode = path.stat().st_mode
        except OSError:
            continue
        if stat.S_ISREG(mode):
            continue
        raise EndpointError(
            f"expected a regular file (an input of the project's build), found {file_kind(mode)}",
            path=path,
        )


def build_cache_dir() -> Path:
    """Where runtimes keep what is theirs (build locks, version checks): never the project."""
    return runtimes_dir()


def project_key(project_dir: Path) -> str:
    """A short name for a project directory in runtimes' own files (its resolved path, hashed:
    any bytes a file name may hold)."""
    return hashlib.sha256(os.fsencode(Path(project_dir).resolve())).hexdigest()[:24]


def state_directory(path: Path) -> Path:
    """``path`` (a directory of cfn-debug's own state) created if missing; a one-line error
    naming it when it cannot be (the state directory is read-only, or a file is in the way)."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as error:
        raise EndpointError(
            f"cannot create this directory of cfn-debug's state: {error.strerror} (it must be "
            "writable: set XDG_STATE_HOME to move it)",
            path=error.filename or path,
        ) from None
    return path


@contextlib.contextmanager
def build_lock(project_dir: Path) -> Iterator[None]:
    """One build of a project at a time, across threads and processes (the functions of one
    project share its build; two `cfn-debug run`s may start together)."""
    lock = state_directory(build_cache_dir() / "locks") / f"{project_key(project_dir)}.lock"
    try:
        handle = open(lock, "a+b")  # noqa: SIM115 (closed by the with below)
    except OSError as error:
        raise EndpointError(
            f"cannot create the build lock: {error.strerror} (cfn-debug's state directory must be "
            "writable: set XDG_STATE_HOME to move it)",
            path=lock,
        ) from None
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
