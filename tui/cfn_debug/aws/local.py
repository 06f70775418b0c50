"""The local AWS: moto's server in a child process on 127.0.0.1, on a free port, for one session.

``LocalAws().start()`` returns once it answers; ``stop()`` (also called at interpreter exit)
ends it. The child watches its stdin and ends when cfn-debug does, however cfn-debug ends. It runs
in a private temporary directory (mode 0700, removed by ``stop``), never in the user's project:
whatever moto writes to its working directory stays out of it.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import IO, Any

from cfn_debug.errors import CfnDebugError

START_TIMEOUT_S = 60.0
#: Credentials the requests and the workers carry against the local AWS: moto accepts any, and
#: these say where they belong when they show up in a log.
LOCAL_CREDENTIALS: dict[str, str] = {
    "accessKeyId": "AKIACFNDEBUGLOCALAWS",
    "secretAccessKey": "cfn-debug-local-aws-secret",
    "sessionToken": "cfn-debug-local-aws-session",
}
LOCAL_ACCOUNT = "123456789012"  # moto's default account


class LocalAwsError(CfnDebugError):
    """The local AWS could not start (moto missing, no port, a crash at start)."""


class LocalAws:
    def __init__(self) -> None:
        self.url = ""
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._workdir: str | None = None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self, timeout_s: float = START_TIMEOUT_S) -> str:
        """Start moto's server; its URL. Raises LocalAwsError when it cannot."""
        self.launch()
        return self.wait_ready(timeout_s)

    def launch(self) -> None:
        """Spawn the server without waiting for it (``wait_ready()`` waits): the caller can do
        its own work while the child starts."""
        if self._process is not None:
            return
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        self._workdir = tempfile.mkdtemp(prefix="cfn-debug-local-aws-")
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "cfn_debug.aws.moto_main"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env=env,
                cwd=self._workdir,
                start_new_session=True,  # a Ctrl-C in the terminal is cfn-debug's to handle
            )
        except OSError as error:
            raise LocalAwsError(
                f"cannot start the local AWS: {error}", field="--local-aws"
            ) from None
        self._process = process
        atexit.register(self.stop)

    def wait_ready(self, timeout_s: float = START_TIMEOUT_S) -> str:
        """The URL, once the launched server listens. Raises LocalAwsError when it cannot."""
        if self.url:
            return self.url
        process = self._process
        if process is None:
            raise LocalAwsError("the local AWS was not launched", field="--local-aws")
        answer = _first_line(process, timeout_s)
        try:
            data: Any = json.loads(answer) if answer else None
        except ValueError:
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("port"), int):
            reason = data.get("error") if isinstance(data, dict) else None
            self.stop()
            raise LocalAwsError(
                reason or f"the local AWS (moto's server) did not start: {self._last_error()}",
                field="--local-aws",
            )
        self.port = int(data["port"])
        self.url = f"http://127.0.0.1:{self.port}"
        return self.url

    def _last_error(self) -> str:
        if self._stderr is None:
            return "no output"
        try:
            self._stderr.seek(0)
            lines = self._stderr.read().decode("utf-8", "replace").strip().splitlines()
        except (OSError, ValueError):
            return "no output"
        return lines[-1] if lines else "no output"

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            try:
                if process.stdin is not None:
                    process.stdin.close()  # the child's signal to stop
                process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        workdir, self._workdir = self._workdir, None
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
        atexit.unregister(self.stop)

    def __enter__(self) -> LocalAws:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


def _first_line(process: subprocess.Popen[bytes], timeout_s: float) -> str:
    """The child's first stdout line, or "" when it exits or stays silent for ``timeout_s``."""
    result: list[bytes] = []

    def read() -> None:
        assert process.stdout is not None
        result.append(process.stdout.readline())

    reader = threading.Thread(target=read, name="cfn-debug-local-aws-start", daemon=True)
    reader.start()
    deadline = time.monotonic() + timeout_s
    while reader.is_alive() and time.monotonic() < deadline:
        reader.join(0.05)
    return result[0].decode("utf-8", "replace").strip() if result else ""
