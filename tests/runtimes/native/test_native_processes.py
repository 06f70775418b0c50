"""kill -9 of `cfn-debug serve` takes the Go binary and the Java runtime's shim with the JVM it
is running: nothing a worker started outlives cfn-debug."""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from support.ports import free_port as _free_port

from .conftest import REPO, clean_env
from .support import event, gone, processes_mentioning

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def _serve(project: Path, port: int, tmp_path: Path) -> subprocess.Popen[bytes]:
    env_vars = tmp_path / "env.json"
    store = str(tmp_path / "notes")
    env_vars.write_text(
        json.dumps({"Parameters": {"GO_NOTE_STORE": store, "JAVA_NOTE_STORE": store}})
    )
    command = [sys.executable, "-m", "cfn_debug.cli", "serve", str(project), "--port", str(port)]
    return subprocess.Popen(
        [*command, "--env-vars", str(env_vars)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=clean_env(),
        cwd=REPO,
    )


def _wait_until(predicate, what: str, timeout: float = 120.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)
    return value


def _post(url: str, body: dict) -> None:
    with contextlib.suppress(httpx.HTTPError):  # serve is killed under it
        httpx.post(f"{url}/2015-03-31/functions/TestEntrypoint/invocations", json=body, timeout=60)


@pytest.mark.parametrize("runtime", ["go", "java"])
def test_kill_9_of_serve_leaves_no_worker_nor_jvm(
    runtime: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    source = request.getfixturevalue("go_note" if runtime == "go" else "java_note")
    project = tmp_path / runtime
    shutil.copytree(source, project)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = _serve(project, port, tmp_path)
    try:
        if runtime == "go":
            _wait_until(lambda: _answers(url), "serve to answer")
            httpx.post(
                f"{url}/2015-03-31/functions/TestEntrypoint/invocations",
                json=event(project, "list.json"),
                timeout=60,
            )
            workers = _wait_until(lambda: _go_workers(project), "a warm bootstrap")
        else:
            hang = event(project, "list.json", typeConfiguration={"Fault": "Hang"})
            _wait_until(lambda: _answers(url), "serve to answer")
            threading.Thread(target=_post, args=(url, hang), daemon=True).start()
            marker = str(project / "target")  # on the JVM's class path
            workers = _wait_until(
                lambda: [p for p in processes_mentioning(marker) if _is_jvm(p)], "the JVM"
            )
        assert workers
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        if runtime == "go":
            assert _wait_until(lambda: not _go_workers(project), "the bootstrap to go", 15)
        else:
            assert gone(marker, within_s=15.0)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _answers(url: str) -> bool:
    try:
        httpx.get(url, timeout=2)
    except httpx.HTTPError:
        return False
    return True


def _is_jvm(pid: int) -> bool:
    try:
        return b"java" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
    except OSError:
        return False


def _go_workers(project: Path) -> list[int]:
    """The bootstrap processes built for this copy (cfn-debug's cache names it by its folder)."""
    from cfn_debug.endpoint.runtimes import builds

    return processes_mentioning(str(builds.cache_dir("provided", project) / "bootstrap"))
