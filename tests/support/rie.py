"""The AWS Lambda Runtime Interface Emulator (RIE), for side-by-side tests against our endpoint.

``find_rie_binary()`` locates the emulator binary; ``start_rie()`` runs one Python handler under it
(the bootstrap is ``python -m awslambdaric MODULE.ATTR``, as in AWS's Python base image) on a free
loopback port and yields its URL. Its single function is called ``function``::

    with start_rie(code_dir, "app.handler", timeout_s=3) as url:
        httpx.post(f"{url}/2015-03-31/functions/function/invocations", json={...})
"""

from __future__ import annotations

import importlib.util
import os
import platform
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from support.ports import free_port

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".cache" / "rie"
RIE_FUNCTION = "function"


def _arch() -> str:
    machine = platform.machine().lower()
    return "arm64" if machine in ("arm64", "aarch64") else "x86_64"


def _binary_name() -> str:
    return f"aws-lambda-rie-{_arch()}"


def _usable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_rie_binary() -> Path | None:
    """The RIE binary: $CFN_DEBUG_RIE, the installed samcli's local/rapid/, <repo>/.cache/rie/,
    else extracted from `pip download aws-sam-cli` into .cache; None when none can be had."""
    if not sys.platform.startswith("linux"):
        return None  # the emulator is a Linux binary
    configured = os.environ.get("CFN_DEBUG_RIE")
    if configured:
        return Path(configured) if _usable(Path(configured)) else None
    spec = importlib.util.find_spec("samcli")
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            candidate = Path(location) / "local" / "rapid" / _binary_name()
            if _usable(candidate):
                return candidate
    cached = CACHE / _binary_name()
    if _usable(cached):
        return cached
    return _download_into_cache()


def _download_into_cache() -> Path | None:
    wheel_dir = CACHE / "wheel"
    try:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "aws-sam-cli",
                "-d",
                str(wheel_dir),
            ],
            check=True,
            capture_output=True,
            timeout=300,
        )
        member = f"samcli/local/rapid/{_binary_name()}"
        for wheel in sorted(wheel_dir.glob("aws_sam_cli-*.whl"), reverse=True):
            with zipfile.ZipFile(wheel) as archive:
                if member not in archive.namelist():
                    continue
                target = CACHE / _binary_name()
                with archive.open(member) as source, open(target, "wb") as sink:
                    shutil.copyfileobj(source, sink)
                target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
                return target
    except (OSError, subprocess.SubprocessError, zipfile.BadZipFile):
        return None
    return None


def _wait_listening(port: int, process: subprocess.Popen[bytes], limit_s: float = 10.0) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the emulator exited with status {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"the emulator did not listen on 127.0.0.1:{port} within {limit_s} s")


@contextmanager
def start_rie(
    code_dir: Path,
    handler: str,
    *,
    timeout_s: int = 30,
    env: dict[str, str] | None = None,
) -> Iterator[str]:
    """Run ``handler`` (MODULE.ATTR in ``code_dir``) under the RIE; yields its base URL.

    Raises RuntimeError when there is no emulator binary (tests call find_rie_binary() first and
    skip). The emulator and its runtime are killed on exit.
    """
    binary = find_rie_binary()
    if binary is None:
        raise RuntimeError("no AWS Lambda Runtime Interface Emulator binary available")
    port = free_port()
    process_env = {
        key: os.environ[key] for key in ("PATH", "HOME", "LANG", "TMPDIR") if key in os.environ
    }
    process_env.update(
        {
            "PYTHONPATH": str(code_dir),
            "LAMBDA_TASK_ROOT": str(code_dir),
            "AWS_LAMBDA_FUNCTION_TIMEOUT": str(timeout_s),
            "AWS_REGION": "us-east-1",
            "AWS_DEFAULT_REGION": "us-east-1",
            "TZ": ":UTC",
            **(env or {}),
        }
    )
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [
                str(binary),
                "--runtime-interface-emulator-address",
                f"127.0.0.1:{port}",
                sys.executable,
                "-m",
                "awslambdaric",
                handler,
            ],
            cwd=code_dir,
            env=process_env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            _wait_listening(port, process)
            yield f"http://127.0.0.1:{port}"
        finally:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, 9)
            process.wait(timeout=10)
