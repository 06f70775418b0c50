"""The endpoint's side of the fork server (see forkserver_main.py for the program itself).

One fork server per project environment: the interpreter the workers run in and the project's
``requirements.txt``. It imports what every handler shares once; each worker is then a fork of it,
which turns a cold start of a library handler from a quarter second into a few milliseconds plus
the import of the project's own modules. A change of the interpreter or of ``requirements.txt``
gives a new key, so the pool asks for a new fork server and the old one ends with its last user.

``ForkedProcess`` is what the worker holds instead of a ``subprocess.Popen``: a pid, the read end of
the output pipe, ``poll``/``wait`` fed by the fork server's exit reports, and ``kill``, which has
the fork server kill the worker and every process it started.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from cfn_debug.endpoint import proctree

FORKSERVER_MAIN = Path(__file__).with_name("forkserver_main.py")
#: What every handler on the Python library shares: imported once, before any fork. Not
#: awslambdaric: its C client's state does not survive a fork (a forked worker then fails "Failed
#: to get next"), a handler can tell which bootstrap runs it by its presence in sys.modules, and
#: its own modules take about 3 ms to import in the worker (their stdlib needs are preloaded).
SHARED_MODULES = (
    "json",
    "logging",
    "threading",
    "enum",
    "re",
    "decimal",
    "uuid",
    "datetime",
    "dataclasses",
    "typing",
    "traceback",
    "http.client",
    "botocore.session",
    "botocore.client",
    "botocore.loaders",
    "botocore.credentials",
    "botocore.endpoint",
    "botocore.parsers",
    "botocore.serialize",
    "botocore.regions",
    "boto3",
    "boto3.session",
    "cloudformation_cli_python_lib",
    "cloudformation_cli_python_lib.resource",
)
#: How long the fork server may take to import the shared modules before a spawn gives up.
READY_LIMIT_S = 60.0
SPAWN_LIMIT_S = 30.0
REQUIREMENTS = "requirements.txt"
#: CFN_DEBUG_FORKSERVER=0 starts every worker as a fresh process (slower cold starts).
DISABLE_ENV = "CFN_DEBUG_FORKSERVER"


class ForkServerError(RuntimeError):
    """The fork server could not start or answer; the caller falls back to a plain process."""


def worker_python() -> str:
    """The interpreter workers run in when the endpoint is not told otherwise."""
    return sys.executable


def requirements_files(code_dir: Path) -> list[Path]:
    """The ``requirements.txt`` of a function: in its code directory, or in the project root
    above it (a `cfn init` project keeps it beside template.yml, the code under src/ or build/)."""
    found = [code_dir / REQUIREMENTS]
    parent = code_dir.parent
    markers = ("template.yml", "template.yaml", ".rpdk-config")
    if any((parent / marker).exists() for marker in markers):
        found.append(parent / REQUIREMENTS)
    return [path for path in found if path.is_file()]


def environment_key(python: str, code_dir: Path) -> str:
    """What a fork server depends on: the interpreter (path, size and mtime of the file and of the
    link to it, as a venv has it) and the requirements' contents. A change of either gives
    another key."""
    digest = hashlib.sha256()
    interpreter = Path(python)
    for path in (interpreter, *requirements_files(code_dir)):
        try:
            infos = [path.stat(), path.lstat()] if path is interpreter else [path.stat()]
            for info in infos:
                digest.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
            if path.name == REQUIREMENTS:
                digest.update(path.read_bytes())
        except OSError:
            digest.update(f"{path}\0missing\0".encode())
    return digest.hexdigest()


def requirement_names(code_dir: Path) -> list[str]:
    """The distribution names the requirements files list (no versions, markers or options)."""
    names: list[str] = []
    for path in requirements_files(code_dir):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for raw in text.splitlines():
            line = raw.split("#", 1)[0].strip()
            if not line or line.startswith(("-", ".", "/")) or "://" in line:
                continue
            name = line
            for stop in "[<>=!~;@ ":
                name = name.split(stop, 1)[0]
            if name:
                names.append(name)
    return names


@dataclass
class _Pending:
    done: threading.Event
    process: ForkedProcess
    error: str | None = None


class ForkedProcess:
    """A worker forked by a fork server: enough of subprocess.Popen for the Worker."""

    def __init__(self, server: ForkServer, stdout: BinaryIO) -> None:
        self.server = server
        self.stdout = stdout
        self.pid = 0
        self.returncode: int | None = None
        self._exited = threading.Event()

    def _exit(self, code: int | None) -> None:
        if self.returncode is None:
            self.returncode = code
        self._exited.set()

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        if not self._exited.wait(timeout):
            raise subprocess.TimeoutExpired("worker", timeout or 0.0)
        return self.returncode

    def kill(self) -> None:
        """The worker and every process it started (its process group and descendants)."""
        if not self._exited.is_set():
            self.server.kill(self.pid)


class ForkServer:
    """One running fork server, its control socket, and the reader of its reports."""

    def __init__(self, python: str, modules: list[str]) -> None:
        self.python = python
        self.modules = modules
        self.ready = threading.Event()  # it serves spawns (it may still be importing)
        self.preloaded = threading.Event()  # it has imported everything it was asked to
        self.info: dict[str, Any] = {}
        self.users = 0
        self._sock: socket.socket | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._pending: dict[int, _Pending] = {}
        self._processes: dict[int, ForkedProcess] = {}
        self._next_id = 0
        self._lock = threading.Lock()
        self._dead = threading.Event()

    def start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._process = subprocess.Popen(
                [self.python, "-u", str(FORKSERVER_MAIN), str(theirs.fileno()), *self.modules],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                # Its own process group, so a Ctrl-C in the terminal is ours to handle, not its;
                # in our session (its workers too), not one of its own: see
                # worker_main.leave_terminal (a session is a scheduler group on Linux).
                **proctree.own_group(),
                env=_server_environment(),
            )
        except OSError as error:
            ours.close()
            raise ForkServerError(f"cannot start the fork server: {error}") from None
        finally:
            theirs.close()
        self._sock = ours
        threading.Thread(target=self._read, name="forkserver-reader", daemon=True).start()

    @property
    def alive(self) -> bool:
        return not self._dead.is_set()

    def _read(self) -> None:
        sock = self._sock
        assert sock is not None
        try:
            while True:
                data = sock.recv(1 << 16)
                if not data:
                    break
                self._dispatch(json.loads(data))
        except (OSError, ValueError):
            pass
        finally:
            self._dead.set()
            self.ready.set()
            self.preloaded.set()
            with self._lock:
                pending, self._pending = self._pending, {}
                processes, self._processes = self._processes, {}
            for entry in pending.values():
                entry.error = "the fork server ended"
                entry.done.set()
            for process in processes.values():
                process._exit(-9)  # the fork server's end kills its workers (PDEATHSIG)
            if self._process is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._process.wait(timeout=5)

    def _dispatch(self, message: dict[str, Any]) -> None:
        op = message.get("op")
        if op == "ready":
            self.info.update(message)
            self.ready.set()
        elif op == "preloaded":
            self.info.update(message)
            self.preloaded.set()
        elif op in ("spawned", "failed"):
            with self._lock:
                entry = self._pending.pop(int(message.get("id", -1)), None)
                if entry is not None and op == "spawned":
                    entry.process.pid = int(message["pid"])
                    self._processes[entry.process.pid] = entry.process
            if entry is not None:
                entry.error = message.get("error") if op == "failed" else None
                entry.done.set()
        elif op == "exit":
            with self._lock:
                process = self._processes.pop(int(message.get("pid", 0)), None)
            if process is not None:
                process._exit(int(message["code"]))

    def spawn(
        self, handler: str, env: dict[str, str], cwd: Path, argv: list[str] | None = None
    ) -> ForkedProcess:
        """Fork a worker running ``handler`` with ``env`` in ``cwd``; its output on a new pipe.
        With ``argv``, the worker is that program (exec'd in the forked child)."""
        if not self.ready.wait(READY_LIMIT_S) or self._dead.is_set() or self._sock is None:
            raise ForkServerError("the fork server is not running")
        read_end, write_end = os.pipe()
        process = ForkedProcess(self, os.fdopen(read_end, "rb"))
        entry = _Pending(threading.Event(), process)
        with self._lock:
            self._next_id += 1
            request_id = self._next_id
            self._pending[request_id] = entry
        message = {"op": "spawn", "id": request_id, "handler": handler, "env": env}
        message["cwd"] = str(cwd)
        if argv:
            message["argv"] = argv
        try:
            socket.send_fds(self._sock, [json.dumps(message).encode()], [write_end])
        except OSError as error:
            with self._lock:
                self._pending.pop(request_id, None)
            process.stdout.close()
            raise ForkServerError(f"the fork server is not answering: {error}") from None
        finally:
            os.close(write_end)
        if not entry.done.wait(SPAWN_LIMIT_S) or entry.error is not None:
            process.stdout.close()
            raise ForkServerError(f"the fork server could not start a worker: {entry.error}")
        return process

    def kill(self, pid: int) -> None:
        if self._sock is None or not pid:
            return
        with contextlib.suppress(OSError):
            self._sock.send(json.dumps({"op": "kill", "pid": pid}).encode())

    def close(self) -> None:
        """End the fork server: it kills every worker and what they started, then exits."""
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        if self._process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=5)


def _server_environment() -> dict[str, str]:
    """The fork server imports under the host essentials only (each worker gets its own env)."""
    from cfn_debug.endpoint.pool import HOST_ESSENTIALS

    env = {key: os.environ[key] for key in HOST_ESSENTIALS if key in os.environ}
    env.update(
        {
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
            "AWS_CONFIG_FILE": os.devnull,
            "AWS_EC2_METADATA_DISABLED": "true",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            "TZ": ":UTC",
        }
    )
    return env


# --- one fork server per environment, shared by the pools that need it -----------------------

_SERVERS: dict[str, ForkServer] = {}
_SERVERS_LOCK = threading.Lock()


def acquire(python: str, code_dir: Path) -> tuple[str, ForkServer] | None:
    """The running fork server for (interpreter, requirements) of ``code_dir``, started when
    there is none; None where fork servers cannot run (not Linux, or it failed to start)."""
    if not sys.platform.startswith("linux") or os.environ.get(DISABLE_ENV) == "0":
        return None
    key = environment_key(python, code_dir)
    with _SERVERS_LOCK:
        server = _SERVERS.get(key)
        if server is None or not server.alive:
            modules = [*SHARED_MODULES, *(f"dist:{name}" for name in requirement_names(code_dir))]
            server = ForkServer(python, list(dict.fromkeys(modules)))
            try:
                server.start()
            except ForkServerError:
                return None
            _SERVERS[key] = server
        server.users += 1
        return key, server


#: The key of the fork server that starts other programs (Node, Go, Java workers): it preloads
#: nothing and runs in cfn-debug's own interpreter.
PLAIN_KEY = "plain"


def acquire_plain() -> tuple[str, ForkServer] | None:
    """The fork server that exec's workers of other runtimes, so that they get what a Python
    worker gets (their own process group, SIGKILL when it dies, a kill of their whole tree);
    None where fork servers cannot run."""
    if not sys.platform.startswith("linux") or os.environ.get(DISABLE_ENV) == "0":
        return None
    with _SERVERS_LOCK:
        server = _SERVERS.get(PLAIN_KEY)
        if server is None or not server.alive:
            server = ForkServer(sys.executable, [])
            try:
                server.start()
            except ForkServerError:
                return None
            _SERVERS[PLAIN_KEY] = server
        server.users += 1
        return PLAIN_KEY, server


def release(key: str, server: ForkServer) -> None:
    """One user fewer; the fork server ends with its last user."""
    with _SERVERS_LOCK:
        server.users -= 1
        if server.users > 0:
            return
        if _SERVERS.get(key) is server:
            del _SERVERS[key]
    server.close()
