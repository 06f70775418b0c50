"""The Runtime API client of cfn-debug's Java runtime: one JVM per invocation, as the Java
plugin's executable entry point works.

Run by cfn-debug's own interpreter (standard library only) as the worker's process: it asks the
worker's Runtime API for an invocation, runs ``java ... <main class> <HandlerRequest JSON>`` in a
private working directory with a private ``java.io.tmpdir`` (the plugin's wrapper empties its
tmpdir and writes ``<uuid>.txt`` into its working directory; both are removed after), passes the
JVM's lines on as the invocation's log (stderr as it comes, stdout but for the response), and
answers with what the JVM printed between ``__CFN_RESOURCE_START_RESPONSE__`` and
``__CFN_RESOURCE_END_RESPONSE__``. Without them: Lambda's error shape, saying why.

With cfn-debug's launcher class on the class path (see java.py), the JVM says when it reached main:
the answer then carries the JVM's start (``Cfn-Debug-Runtime-Start-Ms``), which is not the
handler's time.

Usage: python java_shim.py CONFIG_JSON, where CONFIG_JSON holds java, jvm_args, class_path,
main (the entry point), launcher (a class name or null) and work (a directory for the JVMs).
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

START = b"__CFN_RESOURCE_START_RESPONSE__"
END = b"__CFN_RESOURCE_END_RESPONSE__"
MAIN_STARTED = b"__CFN_DEBUG_MAIN_STARTED__ "
MAIN_ENDED = b"__CFN_DEBUG_MAIN_ENDED__ "
#: Written before each answer (worker_main.SENTINEL): the end of the invocation's log.
SENTINEL = b"\x1e__cfn_debug_end__ "
#: Linux takes one argument of at most 32 pages, its NUL included.
MAX_ARGUMENT = 32 * 4096 - 1
RUNTIME_HEADER = "Cfn-Debug-Runtime-Start-Ms"


def _write(data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(1, view)
        view = view[written:]


def _error(message: str, error_type: str) -> bytes:
    return json.dumps({"errorMessage": message, "errorType": error_type}).encode()


class Shim:
    def __init__(self, config: dict[str, object], api: str) -> None:
        self.java = str(config["java"])
        self.jvm_args = [str(a) for a in config.get("jvm_args") or []]  # type: ignore[union-attr]
        self.class_path = str(config["class_path"])
        self.main = str(config["main"])
        launcher = config.get("launcher")
        self.launcher = str(launcher) if launcher else None
        self.work = str(config["work"])
        host, _, port = api.rpartition(":")
        self.connection = http.client.HTTPConnection(host, int(port))

    def serve(self) -> None:
        while True:
            self.connection.request("GET", "/2018-06-01/runtime/invocation/next")
            response = self.connection.getresponse()
            body = response.read()
            if response.status != 200:
                sys.exit(f"GET /runtime/invocation/next answered {response.status}")
            request_id = response.getheader("Lambda-Runtime-Aws-Request-Id") or ""
            kind, answer, headers = self.run(request_id, body)
            _write(SENTINEL + request_id.encode() + b"\n")
            headers["Content-Type"] = "application/json"
            path = f"/2018-06-01/runtime/invocation/{request_id}/{kind}"
            self.connection.request("POST", path, body=answer, headers=headers)
            self.connection.getresponse().read()

    def run(self, request_id: str, body: bytes) -> tuple[str, bytes, dict[str, str]]:
        """One JVM for one invocation: ("response" | "error", body, extra headers)."""
        if len(body) > MAX_ARGUMENT:
            message = (
                f"the HandlerRequest is {len(body):,} bytes; the Java plugin's executable entry "
                f"point takes it as one command-line argument, which Linux caps at "
                f"{MAX_ARGUMENT:,} bytes"
            )
            return "error", _error(message, "Runtime.ArgumentTooLong"), {}
        private = tempfile.mkdtemp(prefix=f"jvm-{os.getpid()}-", dir=self.work)
        tmp, cwd = os.path.join(private, "tmp"), os.path.join(private, "work")
        os.mkdir(tmp)
        os.mkdir(cwd)
        entry = [self.launcher, self.main] if self.launcher else [self.main]
        argv = [
            self.java,
            f"-Djava.io.tmpdir={tmp}",
            *self.jvm_args,
            "-cp",
            self.class_path,
            *entry,
            body.decode("utf-8", "replace"),
        ]
        try:
            spawned = time.time()
            try:
                process = subprocess.Popen(
                    argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE
                )
            except OSError as error:
                message = f"cannot run {self.java}: {error.strerror or error}"
                return "error", _error(message, "Runtime.JavaNotStarted"), {}
            response, started_ms = self._read(process)
            code = process.wait()
        finally:
            shutil.rmtree(private, ignore_errors=True)
        headers: dict[str, str] = {}
        if started_ms is not None:
            headers[RUNTIME_HEADER] = f"{max(started_ms - spawned * 1000, 0.0):.1f}"
        if response is not None:
            return "response", response, headers
        if code != 0:
            status = f"exit status {code}" if code > 0 else f"signal {-code}"
            message = f"RequestId: {request_id} Error: Runtime exited with error: {status}"
            return "error", _error(message, "Runtime.ExitError"), headers
        message = (
            f"the JVM ended (exit status 0) without printing a response between "
            f"{START.decode()} and {END.decode()}: is {self.main} the Java plugin's executable "
            "entry point (executableEntrypoint in .rpdk-config, written by `cfn generate`)?"
        )
        return "error", _error(message, "Runtime.NoResponse"), headers

    def _read(self, process: subprocess.Popen[bytes]) -> tuple[bytes | None, float | None]:
        """The JVM's stdout to its end: the response between the markers, the time main was
        reached (the launcher's line), every other line passed on as the invocation's log."""
        assert process.stdout is not None
        response: list[bytes] | None = None
        inside = False
        started_ms: float | None = None
        for line in process.stdout:
            bare = line.rstrip(b"\r\n")
            if self.launcher and bare.startswith(MAIN_STARTED) and started_ms is None:
                try:
                    started_ms = float(bare[len(MAIN_STARTED) :])
                except ValueError:
                    _write(line)
                continue
            if self.launcher and bare.startswith(MAIN_ENDED):
                continue
            if bare == START and not inside:
                inside, response = True, []
                continue
            if bare == END and inside:
                inside = False
                continue
            if inside and response is not None:
                response.append(line)
            else:
                _write(line)
        if response is None or inside:
            if inside and response:
                _write(b"".join(response))  # no end marker: not a response, show what it was
            return None, started_ms
        return b"".join(response).strip(), started_ms


def main() -> None:
    api = os.environ.get("AWS_LAMBDA_RUNTIME_API")
    if not api or len(sys.argv) != 2:
        sys.exit("usage: AWS_LAMBDA_RUNTIME_API=HOST:PORT java_shim.py CONFIG_JSON")
    Shim(json.loads(sys.argv[1]), api).serve()


if __name__ == "__main__":
    main()
