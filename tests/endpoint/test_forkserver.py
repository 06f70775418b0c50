"""Workers forked from a fork server: they look like fresh worker processes from inside, they come
from one fork server per environment (interpreter + requirements.txt) that imported the project's
dependencies, a source change forks a new worker from the same server, and a change of
requirements.txt or of the interpreter builds a new server."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

from cfn_debug.endpoint import worker_main
from cfn_debug.endpoint.forkserver import DISABLE_ENV
from cfn_debug.endpoint.pool import FunctionPool, function_arn, lambda_environment
from cfn_debug.endpoint.server import EmbeddedEndpoint
from cfn_debug.endpoint.template import load_functions
from cfn_debug.endpoint.worker import Invocation
from endpoint.conftest import BOOTSTRAPS, PROJECTS, invoke_path

pytestmark = pytest.mark.timeout(120)

FORKED = PROJECTS / "forked"


def _introspect(endpoint: EmbeddedEndpoint) -> dict:
    response = httpx.post(f"{endpoint.url}{invoke_path('Introspect')}", json={}, timeout=30)
    assert "x-amz-function-error" not in response.headers, response.text
    return response.json()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _wait_preloaded(endpoint: EmbeddedEndpoint, function: str) -> None:
    """Until the function's fork server has imported everything (a worker forked earlier
    imports the rest itself, correct but not what these tests look at)."""
    pool = endpoint.pool(function)
    assert pool is not None and pool._forks is not None
    assert pool._forks[1].preloaded.wait(60)


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "plain"])
@pytest.mark.parametrize("bootstrap", BOOTSTRAPS)
def test_a_worker_looks_like_a_fresh_worker_process_from_inside(
    bootstrap: str, forked: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What `python -u worker_main.py HANDLER` gives (measured so before the fork server), forked
    or not: process group leader in the endpoint's session (not a session of its own: a session is
    a scheduler group on Linux) without a controlling terminal, the function's TZ applied, fresh
    signal dispositions and mask, stdin on /dev/null, one thread, write-through stdout/stderr on
    fds 1/2, the code directory as cwd and sys.path[0], no bytecode written."""
    if not forked:
        monkeypatch.setenv(DISABLE_ENV, "0")
    env_vars = {"Parameters": {"CFN_DEBUG_BOOTSTRAP": bootstrap}}
    with EmbeddedEndpoint(FORKED, env_vars=env_vars) as endpoint:
        facts = _introspect(endpoint)
        if forked:
            assert facts["ppid"] != os.getpid()  # from the fork server
        else:
            assert facts["ppid"] == os.getpid()
    code_dir = str((FORKED / "src").resolve())
    for varying in ("pid", "ppid", "random", "yaml_loaded"):
        facts.pop(varying)
    assert facts == {
        "argv0": "worker_main.py",
        "blocked": [],
        "cwd": code_dir,
        "dont_write_bytecode": True,
        "group_leader": True,
        "local_zone": "JST",  # the template's TZ: Asia/Tokyo
        "session": os.getsid(0),
        "session_leader": False,
        "signals": {
            "SIGCHLD": "default",
            "SIGHUP": "default",
            "SIGINT": "default_int_handler",
            "SIGPIPE": "ignore",
            "SIGTERM": "default",
        },
        "stderr": [2, "backslashreplace"],
        "stdin_is_null": True,
        "stdout": [1, True, "utf-8"],
        "sys_path_0": code_dir,
        "terminal": 0,
        "threads": 1,
    }


def test_a_worker_gives_up_the_terminal_and_keeps_its_session() -> None:
    """leave_terminal() in a process that has a controlling terminal (a pty) but does not lead
    its session: no terminal afterwards, the same session."""
    import pty

    script = (
        "import os, sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "import worker_main\n"
        "def tty():\n"
        "    with open('/proc/self/stat', 'rb') as stat:\n"
        "        return int(stat.read().rsplit(b')', 1)[1].split()[4])\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os.setpgid(0, 0)\n"
        "    before, session = tty(), os.getsid(0)\n"
        "    worker_main.leave_terminal()\n"
        "    print('RESULT', before != 0, tty(), os.getsid(0) == session, flush=True)\n"
        "    os._exit(0)\n"
        "os.waitpid(pid, 0)\n"
    )
    here = str(Path(worker_main.__file__).parent)
    child, fd = pty.fork()  # the child leads a new session whose controlling terminal is the pty
    if child == 0:
        os.execv(sys.executable, [sys.executable, "-c", script, here])
    output = b""
    with contextlib.suppress(OSError):
        while chunk := os.read(fd, 1024):
            output += chunk
    os.close(fd)
    os.waitpid(child, 0)
    assert b"RESULT True 0 True" in output, output


def test_workers_come_from_one_fork_server_that_imported_the_requirements(
    project_copy,
) -> None:
    """The worker's parent is the fork server (not the endpoint's process), which imported the
    requirements' PyYAML before forking; a source change forks a new worker from the same server
    with a fresh random seed, and the new code runs."""
    project = project_copy("forked")
    handler = project / "src" / "introspect.py"
    with EmbeddedEndpoint(project) as endpoint:
        _wait_preloaded(endpoint, "Introspect")
        first = _introspect(endpoint)
        assert first["ppid"] != os.getpid()
        assert first["yaml_loaded"] is True
        assert _introspect(endpoint)["pid"] == first["pid"]  # warm
        handler.write_text(handler.read_text() + "\n# saved again\n", encoding="utf-8")
        os.utime(handler, ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))
        second = _introspect(endpoint)
        assert second["pid"] != first["pid"]
        assert second["ppid"] == first["ppid"]  # the same fork server
        assert second["random"] != first["random"]


def test_a_change_of_requirements_txt_builds_a_new_fork_server(project_copy) -> None:
    project = project_copy("forked")
    with EmbeddedEndpoint(project) as endpoint:
        first = _introspect(endpoint)
        old_server = first["ppid"]
        (project / "requirements.txt").write_text("PyYAML>=6.0\nhttpx\n", encoding="utf-8")
        endpoint.restart_workers()
        second = _introspect(endpoint)
        assert second["ppid"] not in (old_server, os.getpid())
        assert _wait_gone(old_server), "the old fork server is still running"
    assert _wait_gone(second["ppid"]), "the fork server outlived the endpoint"


def test_a_change_of_the_interpreter_builds_a_new_fork_server(tmp_path: Path) -> None:
    """The pool is given an interpreter (a venv's link to python): relinking it, as recreating a
    venv does, gives a new fork server at the next restart."""
    link = tmp_path / "python"
    link.symlink_to(sys.executable)
    spec = load_functions(FORKED)["Introspect"]
    pool = FunctionPool(spec, lambda_environment(spec), python=str(link))

    def introspect() -> dict:
        invocation = Invocation(str(uuid.uuid4()), b"{}", function_arn(spec.name), 10.0)
        pool.invoke(invocation)
        assert invocation.outcome == "response", invocation.payload
        return json.loads(invocation.payload)

    try:
        first = introspect()
        link.unlink()
        link.symlink_to(sys.executable)
        later = time.time_ns() + 10**9
        os.utime(link, ns=(later, later), follow_symlinks=False)
        pool.restart()
        second = introspect()
        assert second["ppid"] not in (first["ppid"], os.getpid())
        assert _wait_gone(first["ppid"]), "the old fork server is still running"
    finally:
        pool.close()


def test_a_code_directory_that_vendors_a_preloaded_module_gets_its_own_copy() -> None:
    """`sam build` output holds the dependencies beside the handler: the worker imports the
    vendored yaml from the code directory, as a fresh interpreter would, not the fork server's."""
    with EmbeddedEndpoint(PROJECTS / "vendored") as endpoint:
        response = httpx.post(f"{endpoint.url}{invoke_path('Vendored')}", json={}, timeout=30)
    body = response.json()
    assert body["vendored"] is True, body
    assert body["file"] == str((PROJECTS / "vendored" / "src" / "yaml" / "__init__.py").resolve())


def test_a_prewarmed_restart_starts_the_next_worker_before_any_invoke(project_copy) -> None:
    """Watch mode's restart: a function that has run gets its next worker started at once (it
    is idle, warm, running the saved code, before the re-run's invoke); one that never ran is
    left alone."""
    project = project_copy("forked")
    handler = project / "src" / "introspect.py"
    with EmbeddedEndpoint(project) as endpoint:
        first = _introspect(endpoint)
        pool = endpoint.pool("Introspect")
        assert pool is not None
        handler.write_text(handler.read_text() + "\nSAVED = True\n", encoding="utf-8")
        endpoint.restart_workers(prewarm=True)
        deadline = time.monotonic() + 30
        while not pool._idle and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(pool._idle) == 1, "no worker was started by the restart"
        prewarmed = pool._idle[0]
        assert prewarmed.pid not in (None, first["pid"])
        second = _introspect(endpoint)
        assert second["pid"] == prewarmed.pid  # the invoke took the prewarmed worker

    with EmbeddedEndpoint(project) as idle_endpoint:
        idle_endpoint.restart_workers(prewarm=True)
        time.sleep(0.2)
        untouched = idle_endpoint.pool("Introspect")
        assert untouched is not None and not untouched._all


def test_an_invoke_right_after_a_prewarmed_restart_waits_for_that_worker(project_copy) -> None:
    """The re-run's invoke comes a few ms after the save's restart, while the prewarmed worker
    is still starting (here held 0.3 s, as a busy CPU does): it runs on that worker, not on a
    second one forked beside it (two imports of the saved code at once, a later answer)."""
    project = project_copy("forked")
    handler = project / "src" / "introspect.py"
    with EmbeddedEndpoint(project) as endpoint:
        _wait_preloaded(endpoint, "Introspect")
        first = _introspect(endpoint)
        pool = endpoint.pool("Introspect")
        assert pool is not None
        check = pool._check_environment

        def slow_prewarm() -> object:
            if threading.current_thread().name.startswith("prewarm"):
                time.sleep(0.3)
            return check()

        pool._check_environment = slow_prewarm  # type: ignore[method-assign]
        handler.write_text(handler.read_text() + "\nSAVED = True\n", encoding="utf-8")
        endpoint.restart_workers(prewarm=True)
        second = _introspect(endpoint)  # at once: the prewarmed worker is still starting
        deadline = time.monotonic() + 10
        while (
            any(t.name.startswith("prewarm") for t in threading.enumerate())
            and time.monotonic() < deadline
        ):
            time.sleep(0.01)
        assert second["pid"] != first["pid"]
        assert len(pool._all) == 1, f"{len(pool._all)} workers after one invoke"
