"""The Python interpreter a project's handlers run with, and the cached environment behind it.

``interpreter_for(project_dir)`` answers which interpreter the embedded endpoint's workers use:

- ``--python PATH`` (the user's own interpreter or virtual environment): used as it is;
- no ``requirements.txt``, or one whose every requirement cfn-debug's own interpreter already
  satisfies (the demo, most projects in a developer's venv): cfn-debug's own interpreter;
- otherwise a virtual environment built once per project and cached under the state directory
  (``$XDG_STATE_HOME/cfn-debug/envs``), keyed by the interpreter's version and path, the
  requirements file's path and bytes and every file it names (``-r``, ``-c``, local packages:
  see reqkey.py), so a change to any of them or a new Python builds a new one.

Decision: the environment also sees cfn-debug's own site-packages, at lower priority than its
own (a ``.pth`` file that appends them after the venv's site-packages). So only what is missing
is installed (seconds instead of minutes: boto3, cloudformation-cli-python-lib and awslambdaric
are already there), while a version the requirements pin differently is installed into the venv
and wins. The cost: a module that cfn-debug has but the requirements do not name still imports
locally, where Lambda would fail; the requirements file remains the source of truth for deploys.

Building reports progress through a callback (``EnvProgress`` records) so the dashboard and the
headless commands can show it; a failed build is an ``EndpointError`` (exit 2) with pip's last
lines.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import venv
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from cfn_debug.endpoint.reqkey import requirements_key
from cfn_debug.errors import EndpointError
from cfn_debug.locations import env_root

REQUIREMENTS = "requirements.txt"
READY_MARKER = "cfn-debug-env.json"
BASE_PTH = "_cfn_debug_base.pth"
#: pip's last lines kept for the error message of a failed build.
ERROR_LINES = 12


@dataclass(frozen=True)
class EnvProgress:
    """One step of building a project's environment: ``stage`` and a one-line ``message``.

    Stages: "check" (reading the requirements), "cached" (an environment built before is used),
    "create" (making the venv), "install" (one line of pip's output), "ready" (done).
    """

    stage: str
    message: str


ProgressCallback = Callable[[EnvProgress], None]


def interpreter_for(
    project_dir: Path,
    requirements: Path | None = None,
    *,
    python: str | Path | None = None,
    progress: ProgressCallback | None = None,
) -> Path:
    """The interpreter the project's workers run with (see the module docstring)."""
    report = progress or (lambda _event: None)
    if python is not None:
        return check_python(python)
    requirements = requirements or Path(project_dir) / REQUIREMENTS
    if not requirements.is_file():
        return Path(sys.executable)
    try:
        content = requirements.read_bytes()
    except OSError as error:
        raise EndpointError(f"cannot read: {error.strerror or error}", path=requirements) from None
    report(EnvProgress("check", f"checking {requirements}"))
    marker = _satisfied_marker(content)
    if marker.is_file():
        return Path(sys.executable)
    missing = unsatisfied(content)
    if not missing:
        with contextlib.suppress(OSError):
            marker.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            marker.touch()
        return Path(sys.executable)
    env_dir = env_dir_for(Path(project_dir), requirements)
    return build_env(env_dir, requirements, missing, report)


def ready_interpreter(project_dir: Path) -> Path | None:
    """The interpreter ``interpreter_for(project_dir)`` answers when it needs neither a check nor
    a build (no requirements.txt, or one already found satisfied); None otherwise."""
    requirements = Path(project_dir) / REQUIREMENTS
    if not requirements.exists():
        return Path(sys.executable)
    try:
        content = requirements.read_bytes()
    except OSError:
        return None
    return Path(sys.executable) if _satisfied_marker(content).is_file() else None


def check_python(python: str | Path) -> Path:
    """``--python PATH``: an interpreter that runs; a venv directory names its bin/python."""
    path = Path(python).expanduser()
    if path.is_dir():
        candidates = [path / "bin" / "python", path / "Scripts" / "python.exe"]
        path = next((c for c in candidates if c.exists()), candidates[0])
    if not path.exists():
        raise EndpointError("no such interpreter", path=str(path), field="--python")
    try:
        done = subprocess.run(
            [str(path), "-c", "import sys; print(sys.version_info[0])"],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise EndpointError(f"cannot run it: {error}", path=str(path), field="--python") from None
    if done.returncode != 0 or done.stdout.strip() != b"3":
        raise EndpointError("is not a working Python 3", path=str(path), field="--python")
    return path.absolute()


def unsatisfied(content: bytes) -> list[str]:
    """The requirement lines that cfn-debug's own interpreter does not satisfy.

    A line this function cannot judge (an option such as ``-e .``, a URL, a nested ``-r``) counts
    as unsatisfied: pip decides.
    """
    # lazy: packaging (~80 ms of imports) only when a requirements.txt is read
    from packaging.requirements import InvalidRequirement, Requirement

    missing: list[str] = []
    for raw in content.decode("utf-8", errors="replace").splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            missing.append(line)
            continue
        if requirement.url or (requirement.marker and not requirement.marker.evaluate()):
            if requirement.url:
                missing.append(line)
            continue
        try:
            version = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            missing.append(line)
            continue
        if requirement.specifier and not requirement.specifier.contains(version, prereleases=True):
            missing.append(line)
    return missing


def _satisfied_marker(content: bytes) -> Path:
    """A file that says "cfn-debug's own interpreter satisfies these requirements".

    Keyed by the requirements, the interpreter and the modification times of the directories on
    its path (installing or removing a package changes its site-packages directory), so the check
    (importing packaging and reading every installed distribution, 100+ ms) runs once.
    """
    key = hashlib.sha256(content)
    key.update(f"\0{sys.version}\0{sys.executable}".encode())
    for entry in sys.path:
        with contextlib.suppress(OSError):
            key.update(f"\0{entry}:{os.stat(entry or '.').st_mtime_ns}".encode())
    return env_root() / "satisfied" / key.hexdigest()[:32]


def env_dir_for(project_dir: Path, requirements: Path) -> Path:
    """The cache directory of an environment: the same interpreter, requirements file (its path
    and bytes) and files it names (reqkey.py) share one; the folder name only labels it."""
    digest = requirements_key(requirements, f"{sys.version}\0{sys.executable}")
    name = project_dir.resolve().name or "project"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:40]
    return env_root() / f"{safe}-{digest[:16]}"


def venv_python(env_dir: Path) -> Path:
    if os.name == "nt":
        return env_dir / "Scripts" / "python.exe"
    return env_dir / "bin" / "python"


def build_env(
    env_dir: Path, requirements: Path, missing: list[str], report: ProgressCallback
) -> Path:
    """Build (once; later calls reuse it) the venv for ``requirements`` at ``env_dir``."""
    python = venv_python(env_dir)
    env_dir.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    with _build_lock(env_dir):
        if (env_dir / READY_MARKER).is_file() and python.exists():
            report(EnvProgress("cached", f"using the environment built before: {env_dir}"))
            return python
        shutil.rmtree(env_dir, ignore_errors=True)  # a build that stopped half-way
        report(EnvProgress("create", f"creating {env_dir}"))

        venv.EnvBuilder(with_pip=not _host_has_pip(), symlinks=os.name != "nt").create(env_dir)
        _link_host_site_packages(python)
        report(EnvProgress("install", f"installing {', '.join(missing)}"))
        _pip_install(python, requirements, report)
        (env_dir / READY_MARKER).write_text(
            json.dumps({"requirements": str(requirements), "python": sys.version}),
            encoding="utf-8",
        )
    report(EnvProgress("ready", f"environment ready: {env_dir}"))
    return python


@contextlib.contextmanager
def _build_lock(env_dir: Path) -> Iterator[None]:
    """One build per environment at a time, across processes (two `run`s starting together)."""
    lock_path = env_dir.with_name(env_dir.name + ".lock")
    with open(lock_path, "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _host_site_dirs() -> list[str]:
    paths = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
    paths.append(sysconfig.get_paths()["platlib"])
    if site.ENABLE_USER_SITE:  # cfn-debug installed with `pip install --user`
        paths.append(site.getusersitepackages())
    seen: list[str] = []
    for path in paths:
        if path not in seen and Path(path).is_dir():
            seen.append(path)
    return seen


def _link_host_site_packages(python: Path) -> None:
    """A .pth in the venv that appends cfn-debug's site-packages after the venv's own.

    ``site.addsitedir`` (not a bare path line) so that the .pth files there (editable installs,
    namespace packages) are processed too.
    """
    done = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    target = Path(done.stdout.strip())
    target.mkdir(parents=True, exist_ok=True)
    lines = [f"import site; site.addsitedir({path!r})" for path in _host_site_dirs()]
    (target / BASE_PTH).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _host_has_pip() -> bool:
    """Whether cfn-debug's own pip can install into another interpreter (``--python``: 22.3+);
    otherwise the venv gets a pip of its own (ensurepip, slower)."""
    try:
        major, minor = (int(part) for part in metadata.version("pip").split(".")[:2])
    except (metadata.PackageNotFoundError, ValueError):
        return False
    return (major, minor) >= (22, 3)


def _pip_install(python: Path, requirements: Path, report: ProgressCallback) -> None:
    if _host_has_pip():
        command = [sys.executable, "-m", "pip", "--python", str(python)]
    else:
        command = [str(python), "-m", "pip"]
    command += [
        "install",
        "--disable-pip-version-check",
        "--no-input",
        "--progress-bar",
        "off",
        "-r",
        str(requirements.resolve()),
    ]
    env = {**os.environ, "PIP_REQUIRE_VIRTUALENV": "0", "PYTHONUNBUFFERED": "1"}
    env.pop("PIP_USER", None)
    tail: list[str] = []
    try:
        process = subprocess.Popen(
            command,
            cwd=requirements.parent,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
    except OSError as error:
        raise EndpointError(f"cannot run pip: {error}", path=requirements) from None
    assert process.stdout is not None
    with process:
        for line in process.stdout:
            line = line.rstrip()
            if not line:
                continue
            tail = [*tail[-(ERROR_LINES - 1) :], line]
            report(EnvProgress("install", line))
    if process.returncode != 0:
        detail = " | ".join(tail)  # one line: the CLI prints errors on one line
        raise EndpointError(
            f"installing the requirements failed (pip exit {process.returncode}); "
            f"fix the file or give an interpreter that has them with --python; pip said: {detail}",
            path=requirements,
        )
