"""The handler's Python environment (issue 10 item 6): the project's requirements.txt is honoured.

Tries: a project whose requirements.txt names a package cfn-debug does not install (termcolor),
served by the real endpoint with the real pip building the environment from the package index.
Must hold: the handler imports it; a second start reuses the cached environment; a project whose
requirements cfn-debug already satisfies runs on cfn-debug's own interpreter (no build at all);
--python PATH is used as given and a broken one is a one-line error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import httpx
import pytest

from cfn_debug.endpoint.pyenv import EnvProgress, interpreter_for, unsatisfied
from cfn_debug.endpoint.server import EmbeddedEndpoint
from cfn_debug.errors import EndpointError
from support.ports import free_port as _free_port

from .conftest import PROJECTS, invoke_path

NEEDS_DEPS = PROJECTS / "needs_deps"
DEMO = Path(__file__).resolve().parents[2] / "tui" / "cfn_debug" / "demo"


def test_the_fixture_package_is_not_installed_with_cfn_debug() -> None:
    with pytest.raises(metadata.PackageNotFoundError):
        metadata.version("termcolor")
    assert unsatisfied((NEEDS_DEPS / "requirements.txt").read_bytes()) == ["termcolor>=2.3"]


def test_satisfied_requirements_use_cfn_debugs_own_interpreter() -> None:
    seen: list[EnvProgress] = []
    assert interpreter_for(DEMO, progress=seen.append) == Path(sys.executable)
    assert [event.stage for event in seen] == ["check"]


@pytest.mark.slow
def test_a_project_needing_a_missing_package_runs_after_its_environment_is_built() -> None:
    seen: list[EnvProgress] = []
    with EmbeddedEndpoint(NEEDS_DEPS, on_env_progress=seen.append) as endpoint:
        answer = httpx.post(endpoint.url + invoke_path("Colour"), json={}, timeout=60)
    assert answer.status_code == 200, answer.text
    assert answer.json()["resourceModel"]["Module"] == "termcolor"
    stages = [event.stage for event in seen]
    assert stages[-1] in ("ready", "cached")
    if stages[-1] == "ready":
        assert any("termcolor" in event.message for event in seen if event.stage == "install")
    # The second start finds the environment built.
    again: list[EnvProgress] = []
    python = interpreter_for(NEEDS_DEPS, progress=again.append)
    assert again[-1].stage == "cached"
    assert python == endpoint.python


def test_python_option_is_used_as_given() -> None:
    assert interpreter_for(NEEDS_DEPS, python=sys.executable) == Path(sys.executable).absolute()


def test_a_broken_python_option_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(EndpointError, match="no such interpreter"):
        interpreter_for(NEEDS_DEPS, python=tmp_path / "nope")
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(EndpointError, match="not a working Python 3"):
        interpreter_for(NEEDS_DEPS, python=fake)


REPO = Path(__file__).resolve().parents[2]
READ_EVENT = REPO / "sample_events" / "read.json"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfn_debug.cli", "run", str(READ_EVENT), "--no-journal", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
        check=False,
    )


def test_a_missing_module_is_an_exit_2_error_naming_it_not_a_finding() -> None:
    # cfn-debug's own interpreter lacks termcolor: the handler cannot even be imported.
    done = _run("--project", str(NEEDS_DEPS), "--python", sys.executable, "--json")
    assert done.returncode == 2, done.stdout + done.stderr
    document = json.loads(done.stdout)
    [run] = document["runs"]
    assert run["end_reason"] == "error"
    assert not [f for f in run.get("findings", []) if f.get("level") == "MUST"]
    step = run["steps"][0]
    message = step["result"]["error_message"]
    assert "no module 'termcolor'" in message and "requirements.txt" in message
    assert "pip install termcolor" in message
    printed = _run("--project", str(NEEDS_DEPS), "--python", sys.executable)
    assert printed.returncode == 2
    assert "no module 'termcolor'" in " ".join(printed.stdout.split())


@pytest.mark.slow
def test_run_builds_the_environment_with_progress_and_the_handler_runs() -> None:
    done = _run("--project", str(NEEDS_DEPS), "--json")
    assert done.returncode != 2, done.stdout + done.stderr
    [run] = json.loads(done.stdout)["runs"]
    progress = run["steps"][0]["result"]["progress"]
    assert progress["resourceModel"]["Module"] == "termcolor"
    assert "environment" in done.stderr  # the build (or the cached one) was said


def test_a_failed_build_is_a_one_line_error_with_pips_words(tmp_path: Path) -> None:
    project = tmp_path / "broken"
    project.mkdir()
    (project / "requirements.txt").write_text("./no-such-dir\n")  # pip refuses it, offline
    with pytest.raises(EndpointError) as error:
        interpreter_for(project)
    message = str(error.value)
    assert "installing the requirements failed" in message and "--python" in message
    assert "no-such-dir" in message
    assert "\n" not in message  # printed as one line, not with literal \n escapes


def test_serve_with_a_missing_python_exits_2_with_one_line() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cfn_debug.cli",
            "serve",
            str(NEEDS_DEPS),
            "--port",
            str(_free_port()),
            "--python",
            "/nonexistent/python",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "cfn-debug: error: /nonexistent/python: --python: no such interpreter"
    ]
