"""The fork server program: import what every handler of a project shares once, then fork workers.

Started by the endpoint (endpoint/forkserver.py) as ``python -u forkserver_main.py FD MODULE...``
in the project's interpreter, with FD one end of a SOCK_SEQPACKET socket pair. It answers ``ready``
at once, imports the MODULEs one by one (botocore, boto3, cloudformation-cli-python-lib and the
project's dependencies; never the project's own handler modules) while serving spawns between two
imports, answers ``preloaded``, and serves on, one JSON message per packet:

    -> {"op": "spawn", "id": N, "handler": "mod.attr", "env": {...}, "cwd": "..."}  + 1 fd (output)
       (with "argv": [...], the worker is that program, exec'd: another runtime's worker)
    <- {"op": "spawned", "id": N, "pid": P}   or   {"op": "failed", "id": N, "error": "..."}
    -> {"op": "kill", "pid": P}               the worker and every process it started
    <- {"op": "exit", "pid": P, "code": C}    a worker ended (C as subprocess's returncode)

Each spawn forks a worker that becomes what ``python -u worker_main.py HANDLER`` would be: its own
process group in the endpoint's session, no controlling terminal (the fork server gave it up),
stdout and stderr on the output pipe it was sent, stdin on /dev/null,
the Lambda environment it was sent (TZ applied), cwd and sys.path[0] the code directory, signal
dispositions and the random seed fresh, and SIGKILL when the fork server dies (PR_SET_PDEATHSIG).

The program stays single-threaded (forking after threads exist is unsafe); if importing the shared
modules started a thread anyway, each worker is exec'd fresh instead of forked (correct, not fast).

Processes: every worker is a child subreaper, so whatever the handler starts stays in the
worker's tree, double-forked setsid daemons included; a kill request kills that whole tree. The
fork server is a child subreaper too: what a worker that died on its own leaves behind comes to it
and is killed then (any child of the fork server that is not a worker). When the endpoint's
process ends in any way (kill -9 included), its end of the socket closes: the fork server then
kills every process below it and exits. A worker whose fork server dies gets SIGKILL
(PR_SET_PDEATHSIG).

Like worker_main.py, this file imports nothing from cfn_debug: the project's interpreter may not
have it installed. A forked worker starts with the fork server's modules, so what the child side
uses is imported at the top only when a worker started as a program has it as well (random and
traceback: worker_main.py imports them, random through http.client's email package);
importlib.metadata and boto3 are used only when the project's modules need them.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import gc
import importlib
import io
import json
import os
import random
import selectors
import signal
import socket
import sys
import threading
import time
import traceback
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [HERE] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]
import proctree  # noqa: E402
import worker_main  # noqa: E402

worker_main.load_debug_hook()  # and pdb with it: shared by every worker forked from here

# The fork server's own directory is not on the workers' path (worker_main removes it too).
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
MAX_MESSAGE = 1 << 20
#: Modules that read the environment when imported: a worker imports them again under its own.
FRESH_IN_WORKER = ("awslambdaric.bootstrap",)
_LIBC: Any = None


def _prctl(option: int, value: int) -> bool:
    global _LIBC
    try:
        if _LIBC is None:
            _LIBC = ctypes.CDLL(None, use_errno=True)
        return int(_LIBC.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def module_names(names: list[str]) -> list[str]:
    """MODULE arguments as they are, and ``dist:NAME`` ones as the top-level modules that this
    interpreter's installed distribution NAME provides (none for a distribution whose module of
    the same name is imported already)."""
    wanted = {_normalise(name[5:]) for name in names if name.startswith("dist:")}
    modules = [name for name in names if not name.startswith("dist:")]
    # a distribution named as a module already imported (cloudformation-cli-python-lib, whose
    # module the shared list preloads): no walk of every installed distribution's files for it
    wanted = {dist for dist in wanted if dist.replace("-", "_") not in sys.modules}
    if wanted:
        # lazy: the workers forked from here share its modules (and Python < 3.10 lacks it)
        try:
            from importlib.metadata import packages_distributions

            provided = packages_distributions()
        except Exception:
            provided = {}
        for module, dists in sorted(provided.items()):
            usable = module.isidentifier() and not module.startswith("_")
            if usable and any(_normalise(dist) in wanted for dist in dists):
                modules.append(module)
    return list(dict.fromkeys(modules))


def _normalise(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def shadowed(code_dir: str, before: set[str]) -> bool:
    """Whether the code directory holds a top-level module the fork server imported (a `sam
    build` output vendors the dependencies): the worker must then import it from there, fresh."""
    try:
        entries = os.listdir(code_dir)
    except OSError:
        return False
    for entry in entries:
        name = entry.split(".", 1)[0]
        if name in sys.modules and name not in before:
            return True
    return False


def preload(modules: list[str]) -> list[str]:
    """Import each module that imports; the ones that did."""
    loaded = []
    for name in modules:
        try:
            importlib.import_module(name)
        except BaseException:  # a dependency that fails or exits at import is the worker's problem
            continue
        loaded.append(name)
    return loaded


def warm_up(loaded: list[str]) -> None:
    """Pay once, here, what a handler's first AWS session pays in every fresh worker: botocore's
    lazy imports, its first-use initialisations and its data files in the page cache. Nothing is
    kept (each worker builds its own sessions) and nothing is sent anywhere."""
    boto3_session = sys.modules.get("boto3.session")  # boto3 imports it: there when boto3 is
    if boto3_session is None:
        return
    try:
        session = boto3_session.Session(
            aws_access_key_id="AKIAWARMUPWARMUPWARM",
            aws_secret_access_key="warm-up-not-a-secret",
            aws_session_token="warm-up",
            region_name="us-east-1",
        )
        session.client("sts")
    except Exception:
        return


# --- the child side: become a worker ------------------------------------------------------------


def _fresh_stdio() -> None:
    """sys.stdin/stdout/stderr on fds 0-2 as ``python -u`` opens them (write-through text)."""
    encoding = sys.stdout.encoding if sys.stdout is not None else "utf-8"

    def writer(fd: int, errors: str) -> io.TextIOWrapper:
        raw = io.FileIO(fd, "w", closefd=False)
        return io.TextIOWrapper(
            raw, encoding=encoding, errors=errors, line_buffering=False, write_through=True
        )

    sys.stdout = sys.__stdout__ = writer(1, "strict")
    sys.stderr = sys.__stderr__ = writer(2, "backslashreplace")
    stdin = io.FileIO(0, "r", closefd=False)
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(stdin, encoding=encoding)


def become_worker(
    request: dict[str, Any], output_fd: int, server_pid: int, keep: list[int]
) -> None:
    """In the forked child: set up as a fresh worker process and run the handler; never returns."""
    code = 1
    try:
        os.setpgid(0, 0)  # in the endpoint's session: see worker_main.leave_terminal
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        _prctl(PR_SET_CHILD_SUBREAPER, 1)  # orphans of what the handler starts stay in its tree
        if os.getppid() != server_pid:  # the fork server died before the prctl took
            os._exit(1)
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as the interpreter sets it at start
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        for fd in keep:
            with contextlib.suppress(OSError):
                os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(output_fd, 1)
        os.dup2(output_fd, 2)
        os.close(output_fd)
        os.environ.clear()
        os.environ.update(request["env"])
        time.tzset()
        for name in FRESH_IN_WORKER:
            if sys.modules.pop(name, None) is not None:
                parent, _, child = name.rpartition(".")
                with contextlib.suppress(AttributeError, KeyError):
                    delattr(sys.modules[parent], child)
        sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
        os.chdir(request["cwd"])
        _fresh_stdio()
        random.seed()  # not the fork server's sequence
        main_path = os.path.join(HERE, "worker_main.py")
        sys.argv = [main_path, request["handler"]]
        try:
            code = worker_main.main(sys.argv)
        except SystemExit as done:
            code = _exit_code(done)
        except BaseException:
            traceback.print_exc()
            code = 1
        code = _run_atexit(code)
    finally:
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _exit_code(done: SystemExit) -> int:
    if done.code is None:
        return 0
    if isinstance(done.code, int):
        return done.code
    with contextlib.suppress(BaseException):
        print(done.code, file=sys.stderr)
    return 1


def _run_atexit(code: int) -> int:
    """What the interpreter does at a normal exit: the atexit handlers, then the code."""
    try:
        atexit._run_exitfuncs()
    except SystemExit as done:
        return _exit_code(done)
    return code


def exec_worker(request: dict[str, Any], output_fd: int, keep: list[int]) -> None:
    """In the forked child, when forking a warm interpreter is unsafe or the worker is another
    program (a spawn with "argv": a Node, Go or Java worker): exec it, with the same process
    group, death signal, subreaper and descriptors a forked worker gets."""
    try:
        os.setpgid(0, 0)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        _prctl(PR_SET_CHILD_SUBREAPER, 1)  # kept across execve
        for fd in keep:
            with contextlib.suppress(OSError):
                os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(output_fd, 1)
        os.dup2(output_fd, 2)
        os.chdir(request["cwd"])
        for sig in (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        argv = request.get("argv")
        if not argv:
            main_path = os.path.join(HERE, "worker_main.py")
            argv = [sys.executable, "-u", main_path, request["handler"]]
        os.execve(argv[0], argv, request["env"])
    finally:
        os._exit(127)


# --- the server loop ----------------------------------------------------------------------------


class Server:
    def __init__(self, control: socket.socket, before: set[str]) -> None:
        self.control = control
        self.before = before  # the modules a bare interpreter has
        self.workers: set[int] = set()
        self.pid = os.getpid()
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        self.selector = selectors.DefaultSelector()

    def send(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):
            self.control.send(json.dumps(message).encode())

    def spawn(self, request: dict[str, Any], fds: list[int]) -> None:
        if len(fds) != 1:
            for fd in fds:
                os.close(fd)
            self.send({"op": "failed", "id": request.get("id"), "error": "expected one fd"})
            return
        output_fd = fds[0]
        keep = [self.control.fileno(), self.wake_r, self.wake_w, self.selector.fileno()]
        forkable = threading.active_count() == 1  # an import may have started a thread
        try:
            pid = os.fork()
        except OSError as error:
            os.close(output_fd)
            self.send({"op": "failed", "id": request.get("id"), "error": str(error)})
            return
        if pid == 0:
            code_dir = request["env"].get("LAMBDA_TASK_ROOT") or request["cwd"]
            if forkable and not request.get("argv") and not shadowed(code_dir, self.before):
                become_worker(request, output_fd, self.pid, keep)
            exec_worker(request, output_fd, keep)
        os.close(output_fd)
        self.workers.add(pid)
        self.send({"op": "spawned", "id": request.get("id"), "pid": pid})

    def kill(self, pid: int) -> None:
        if pid in self.workers:
            proctree.kill_tree(pid)

    def reap(self) -> None:
        ended = False
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if pid in self.workers:
                self.workers.discard(pid)
                ended = True
                # What it left behind in its session or group goes with it.
                proctree.kill_tree(pid, include_root=False)
                self.send({"op": "exit", "pid": pid, "code": os.waitstatus_to_exitcode(status)})
        if ended:
            self.kill_orphans()

    def kill_orphans(self) -> None:
        """Kill what a dead worker left: a live worker is a child subreaper, so its descendants
        never come to us; any child of ours that is not a worker was left by a dead one."""
        for pid, (ppid, *_rest) in proctree.table().items():
            if ppid == self.pid and pid not in self.workers:
                proctree.kill_tree(pid)

    def shutdown(self) -> None:
        """Kill every worker and everything they started (all our descendants), then exit."""
        for _ in range(3):
            if not proctree.kill_tree(self.pid, include_root=False):
                break
            time.sleep(0.01)
            self.reap()

    def start(self) -> None:
        """Signal handling and the selector: from here on spawns can be served."""
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(self.wake_w)
        self.selector.register(self.control, selectors.EVENT_READ, "control")
        self.selector.register(self.wake_r, selectors.EVENT_READ, "wake")

    def serve(self) -> None:
        while self.step(1.0):
            pass

    def step(self, timeout: float) -> bool:
        """Serve what has arrived within ``timeout``; False once the endpoint is gone."""
        for key, _ in self.selector.select(timeout=timeout):
            if key.data == "wake":
                with contextlib.suppress(OSError):
                    while os.read(self.wake_r, 512):
                        pass
                continue
            try:
                data, fds, _flags, _addr = socket.recv_fds(self.control, MAX_MESSAGE, 4)
            except OSError:
                data, fds = b"", []
            if not data:
                self.shutdown()
                return False
            try:
                request = json.loads(data)
            except ValueError:
                for fd in fds:
                    os.close(fd)
                continue
            if request.get("op") == "spawn":
                self.spawn(request, fds)
            elif request.get("op") == "kill":
                self.kill(int(request.get("pid", 0)))
        self.reap()
        return True


def main(argv: list[str]) -> int:
    """Answer ``ready`` at once, then import the shared modules one by one, serving any spawn
    asked for in between (a worker forked half-way imports the rest itself, as a fresh one would):
    the first worker of a session never waits for the whole preload. ``preloaded`` follows."""
    control = socket.socket(fileno=int(argv[1]))
    # Ctrl-C in the terminal is the endpoint's business: it closes the socket when it is done.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    worker_main.leave_terminal()  # the workers forked from here have none either
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    started = time.monotonic()
    before = {name.split(".", 1)[0] for name in sys.modules}
    server = Server(control, before)
    server.start()
    server.send({"op": "ready", "pid": server.pid})
    loaded: list[str] = []
    plain = [name for name in argv[2:] if not name.startswith("dist:")]
    dists = [name for name in argv[2:] if name.startswith("dist:")]
    # pdb: what breakpoint() needs in a worker (see debughook), imported once here
    for batch in ([*plain, "pdb"], dists):
        for name in module_names(batch):
            loaded += preload([name])
            if not server.step(0):
                return 0
    warm_up(loaded)

    gc.collect()
    gc.freeze()  # keep the shared objects' pages shared: the collector never writes to them
    server.send(
        {
            "op": "preloaded",
            "modules": loaded,
            "forkable": threading.active_count() == 1,
            "preload_s": round(time.monotonic() - started, 4),
        }
    )
    server.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
