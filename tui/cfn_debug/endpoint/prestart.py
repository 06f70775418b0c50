"""The fork servers of a project's embedded endpoint, started before the endpoint itself.

A fork server imports what every worker shares (boto3, cloudformation-cli-python-lib, the
project's requirements) once; a worker forked before that is done imports it all itself, and the
first invocation waits for it. ``Prestart(project_dir)`` (None: the project discover_project
finds, the current directory or the bundled demo) starts, in a background thread, the fork
server of each Python function of the project, so that it preloads while the command imports
its own modules, loads the schema and starts the local AWS. The endpoint started later finds it
running (fork servers are shared by environment, see forkserver.acquire) and ``release()`` then
gives up the prestart's hold; a fork server nobody took ends with it.

Only what is known without a check or a build is started (the interpreter cfn-debug runs with,
its requirements already found satisfied): anything else, and any error, is left to the endpoint,
which reports it as it always does.
"""

from __future__ import annotations

import threading
from pathlib import Path

from cfn_debug.endpoint import forkserver
from cfn_debug.endpoint.pyenv import ready_interpreter
from cfn_debug.endpoint.runtimes import family_of, project_language
from cfn_debug.endpoint.template import RPDK_CONFIG, TEMPLATE_NAMES, load_functions
from cfn_debug.locations import DEMO_DIR


class Prestart:
    """The fork servers started ahead for one project; ``release()`` when the endpoint is up
    (or will not be)."""

    def __init__(self, project_dir: Path | None) -> None:
        self._held: list[tuple[str, forkserver.ForkServer]] = []
        self._lock = threading.Lock()
        self._released = False
        self._thread = threading.Thread(
            target=self._start, args=(project_dir,), name="cfn-debug-prestart", daemon=True
        )
        self._thread.start()

    def _start(self, given: Path | None) -> None:
        try:
            project_dir = _project_root(given)
            python = ready_interpreter(project_dir)
            if python is None:
                return
            language = project_language(project_dir)
            code_dirs = {
                spec.code_dir
                for spec in load_functions(project_dir).values()
                if family_of(spec.runtime, language) == "python"
            }
        except Exception:  # the endpoint, started later, says what is wrong
            return
        for code_dir in sorted(code_dirs):
            with self._lock:
                if self._released:
                    return
            held = forkserver.acquire(str(python), code_dir)
            if held is None:
                continue
            with self._lock:
                if not self._released:
                    self._held.append(held)
                    continue
            forkserver.release(*held)  # released meanwhile: nobody wants it
            return

    def release(self) -> None:
        """Give up the fork servers started here: the endpoint holds the ones it uses."""
        with self._lock:
            self._released = True
            held, self._held = self._held, []
        for key, server in held:
            forkserver.release(key, server)


def _project_root(given: Path | None) -> Path:
    """The directory discover_project reads: the one given, else the current directory when it
    holds a project, else the bundled demo."""
    if given is not None:
        return given.expanduser().resolve()
    cwd = Path.cwd()
    if (cwd / RPDK_CONFIG).is_file() or any((cwd / name).is_file() for name in TEMPLATE_NAMES):
        return cwd.resolve()
    return DEMO_DIR
