"""The warm workers of one function, and the environment they run in.

Concurrency policy: an invocation takes an idle warm worker; when every worker of the function is
busy a new one is spawned (as Lambda scales out to a new execution environment), up to
MAX_WORKERS_PER_FUNCTION; beyond that invocations queue for the next free worker. A worker that
timed out, crashed, failed to initialise, lost its log sentinel or predates a change to the
sources or to the build's configuration (the runtime's build_files: tsconfig.json, pom.xml) is
never reused.

Workers are forked from the fork server of the function's environment (interpreter and
requirements.txt; see forkserver.py) where one can run, else started as plain processes. The
environment is looked at whenever a worker is about to be started and on restart(): a changed
interpreter or requirements.txt retires the warm workers and starts a new fork server.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from cfn_debug.endpoint import forkserver
from cfn_debug.endpoint.forkserver import HOST_ESSENTIALS
from cfn_debug.endpoint.invocation import Invocation
from cfn_debug.endpoint.runtimes import Runtime, RuntimeOptions
from cfn_debug.endpoint.runtimes.base import signature
from cfn_debug.endpoint.runtimes.python import PythonRuntime
from cfn_debug.endpoint.sourcewatch import SourceWatch
from cfn_debug.endpoint.template import FunctionSpec
from cfn_debug.endpoint.worker import Worker

MAX_WORKERS_PER_FUNCTION = 8
REGION = "us-east-1"
ACCOUNT_ID = "123456789012"


def function_arn(name: str, region: str = REGION) -> str:
    return f"arn:aws:lambda:{region}:{ACCOUNT_ID}:function:{name}"


def lambda_environment(
    spec: FunctionSpec, overrides: dict[str, dict[str, str]] | None = None
) -> dict[str, str]:
    """The environment a handler sees in Lambda, plus the template's and --env-vars' variables.

    Precedence follows `sam local`: the template's value, else the shell's value of a variable
    the template declares, else the --env-vars file (``Parameters`` for every function, then the
    section named after the function). Unlike SAM, a variable from the file that the template
    does not declare is still set (SAM silently ignores it, a frequent surprise); a shell
    variable the template does not declare is not passed. The host's AWS credentials are not
    passed, and the shared credential/config files are hidden, so a handler cannot pick them up.
    """
    env = {key: os.environ[key] for key in HOST_ESSENTIALS if key in os.environ}
    region = spec.environment.get("AWS_REGION") or REGION
    env.update(
        {
            "AWS_REGION": region,
            "AWS_DEFAULT_REGION": region,
            "AWS_LAMBDA_FUNCTION_NAME": spec.name,
            "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
            "AWS_LAMBDA_FUNCTION_TIMEOUT": str(int(spec.timeout_s)),
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(spec.memory_mb),
            "AWS_LAMBDA_LOG_GROUP_NAME": f"/aws/lambda/{spec.name}",
            "AWS_LAMBDA_LOG_STREAM_NAME": "$LATEST",
            "AWS_SAM_LOCAL": "true",  # as `sam local` sets it; handlers may test it
            "AWS_EXECUTION_ENV": f"AWS_Lambda_{spec.runtime or 'python3'}",
            "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
            "AWS_CONFIG_FILE": os.devnull,
            "AWS_EC2_METADATA_DISABLED": "true",
            "LAMBDA_TASK_ROOT": str(spec.code_dir),
            "LAMBDA_RUNTIME_DIR": str(Path(__file__).parent),
            "_HANDLER": spec.handler,
            "TZ": ":UTC",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
        }
    )
    for name, value in spec.environment.items():
        # As `sam local`: a variable the template declares takes the shell's value when set.
        env[name] = os.environ.get(name, value)
    for section in ("Parameters", spec.name):
        env.update((overrides or {}).get(section, {}))
    return env


class FunctionPool:
    """The workers of one function: lease one per invocation, spawn on demand, retire the stale."""

    def __init__(
        self,
        spec: FunctionSpec,
        env: dict[str, str],
        *,
        max_workers: int = MAX_WORKERS_PER_FUNCTION,
        python: Path | str | None = None,
        fork: bool = True,
        runtime: Runtime | None = None,
    ) -> None:
        self.spec = spec
        self.env = env
        self.max_workers = max_workers
        # the interpreter Python workers run with (the project's, see pyenv.interpreter_for)
        self.python = str(python or forkserver.worker_python())
        if runtime is None:
            runtime = PythonRuntime(spec, spec.code_dir, RuntimeOptions())
            runtime.python = self.python
        #: How the function's workers are built and started (runtimes/: python, node, ...).
        self.runtime = runtime
        self._fork = fork
        self._forks: tuple[str, forkserver.ForkServer] | None = None
        if fork:
            self._forks = self._acquire_forks()
        self._idle: list[Worker] = []
        self._all: set[Worker] = set()
        self._generation = 0
        #: The code directory's signature, told by the kernel's change events where it can be.
        self._source = SourceWatch(runtime.source_dir())
        #: The build's configuration outside the sources (none for Python), stat()ed at each look.
        self._build_files = runtime.build_files()
        #: None until the first look (at the first invocation: no worker is idle before it).
        self._signature: tuple[tuple[int, int, int], str] | None = None
        self._cond = threading.Condition()
        self._closed = False
        self._used = False  # has run an invocation (restart(prewarm=True) replaces only those)
        #: Prewarmed workers still starting, and the leases waiting for one of them: a lease
        #: that finds no idle worker waits for a starting one instead of forking a second
        #: worker beside it (two imports of the saved code at once on a busy CPU: the re-run's
        #: first invocation then took ~150 ms instead of the prewarm's head start).
        self._prewarming = 0
        self._awaiting_prewarm = 0

    def invoke(self, invocation: Invocation) -> Worker:
        """Run ``invocation`` on a warm (or new) worker; returns the worker that ran it."""
        self._check_source()
        self._used = True
        worker = self._lease()
        try:
            worker.run(invocation)
        finally:
            self._release(worker, invocation)
        # A warm worker that had died while idle (an OOM killer, a kill) never saw the
        # invocation: run it on the next one (every idle worker may have been killed at once).
        attempts = self.max_workers
        while worker.lost_before_start(invocation) and attempts > 0:
            attempts -= 1
            invocation.reset()
            worker = self._lease()
            try:
                worker.run(invocation)
            finally:
                self._release(worker, invocation)
        return worker

    def _look(self) -> tuple[tuple[int, int, int], str]:
        """The signatures of the sources and of the build files."""
        built = signature(self._build_files)[1] if self._build_files else ""
        return self._source.signature(), built

    def _check_source(self) -> None:
        signature = self._look()
        with self._cond:
            if self._signature is None:
                self._signature = signature
            elif signature != self._signature:
                self._signature = signature
                self._retire_idle_locked()

    def restart(self, *, prewarm: bool = False) -> None:
        """Replace the warm workers: idle ones now, busy ones when they finish. ``prewarm``
        (watch mode, after a save) starts the replacement of a function that has run at once,
        so it imports the new code while the re-run is being prepared."""
        with self._cond:
            self._signature = self._look()
            self._retire_idle_locked()
            prewarm = prewarm and self._used and not self._closed
        self._check_environment()
        if prewarm:
            threading.Thread(target=self._prewarm, name=f"prewarm-{self.spec.name}").start()

    def _prewarm(self) -> None:
        """Start one worker and keep it idle (as warm workers are) for the next invocation."""
        with self._cond:
            if self._closed or self._idle or len(self._all) >= self.max_workers:
                return
            worker = Worker(self.spec, self.env, self._generation, runtime=self.runtime)
            self._all.add(worker)
            self._prewarming += 1
        try:
            worker.forks = self._check_environment()
            worker.start()
        except BaseException:
            with self._cond:
                self._prewarming -= 1
                self._all.discard(worker)
                self._cond.notify_all()
            worker.kill()
            return
        with self._cond:
            self._prewarming -= 1
            self._cond.notify_all()
            if not self._closed and worker.generation == self._generation:
                self._idle.append(worker)
                self._cond.notify_all()
                return
            self._all.discard(worker)
        worker.kill()

    def _check_environment(self) -> forkserver.ForkServer | None:
        """The fork server for the environment as it is now (a new one when the interpreter or
        requirements.txt changed, the warm workers then retired), None without one."""
        if not self._fork:
            return None
        with self._cond:
            if self._closed:
                return None
            current = self._forks
            if current is not None and current[1].alive:
                if not self.runtime.forks_python:
                    return current[1]  # the plain fork server: no environment to change
                key = forkserver.environment_key(self.python, self.spec.code_dir)
                if key == current[0]:
                    return current[1]
            fresh = self._acquire_forks()
            self._forks = fresh
            if current is not None:
                self._retire_idle_locked()
        if current is not None:
            forkserver.release(*current)
        return fresh[1] if fresh is not None else None

    def _acquire_forks(self) -> tuple[str, forkserver.ForkServer] | None:
        """The fork server of this function's environment (Python), or the one that starts
        other runtimes' programs."""
        if self.runtime.forks_python:
            return forkserver.acquire(self.python, self.spec.code_dir)
        return forkserver.acquire_plain()

    def _retire_idle_locked(self) -> None:
        self._generation += 1
        idle, self._idle = self._idle, []
        for worker in idle:
            self._all.discard(worker)
            threading.Thread(target=worker.kill, daemon=True).start()
        self._cond.notify_all()

    def _lease(self) -> Worker:
        with self._cond:
            while True:
                if self._closed:
                    raise RuntimeError("the endpoint is stopping")
                while self._idle:
                    worker = self._idle.pop()
                    if worker.usable() and worker.generation == self._generation:
                        return worker
                    self._all.discard(worker)
                    threading.Thread(target=worker.kill, daemon=True).start()
                if self._prewarming > self._awaiting_prewarm:
                    self._awaiting_prewarm += 1  # one of them is this lease's
                    try:
                        self._cond.wait()
                    finally:
                        self._awaiting_prewarm -= 1
                    continue
                if len(self._all) < self.max_workers:
                    worker = Worker(self.spec, self.env, self._generation, runtime=self.runtime)
                    self._all.add(worker)
                    break
                self._cond.wait()
        try:
            worker.forks = self._check_environment()
            if worker.generation != self._generation:  # the environment changed just now
                worker.generation = self._generation
            worker.start()
        except BaseException:
            with self._cond:
                self._all.discard(worker)
                self._cond.notify_all()
            worker.kill()
            raise
        return worker

    def _release(self, worker: Worker, invocation: Invocation) -> None:
        keep = (
            invocation.outcome in ("response", "error")
            and worker.usable()
            and invocation.logs_closed.is_set()
        )
        with self._cond:
            if keep and not self._closed and worker.generation == self._generation:
                self._idle.append(worker)
            else:
                self._all.discard(worker)
                keep = False
            self._cond.notify_all()
        if not keep:
            worker.kill()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            workers = list(self._all)
            self._all.clear()
            self._idle.clear()
            forks, self._forks = self._forks, None
            self._cond.notify_all()
        self._source.close()
        for worker in workers:
            worker.kill()
        if forks is not None:
            forkserver.release(*forks)
