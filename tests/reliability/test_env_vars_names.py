"""--env-vars with a name or value no process environment can hold (a NUL, an '=' in a name, an
empty name) is a one-line error naming the variable and the file, in `run` and `serve` (serve
answered "Runtime exited" at the first invoke)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reliability.support import HOSTILE, REPO, child_env, sam_event, write_json
from support.ports import free_port

CASES = [
    ({"Parameters": {"BAD\u0000NAME": "v"}}, "Parameters.BAD\\x00NAME"),
    ({"Parameters": {"A=B": "v"}}, "Parameters.A=B"),
    ({"Hostile": {"": "v"}}, "Hostile."),
    ({"Parameters": {"OK": "nul\u0000value"}}, "Parameters.OK"),
]


@pytest.mark.parametrize(("content", "named"), CASES)
def test_run_names_the_variable_and_the_file(tmp_path: Path, content: dict, named: str) -> None:
    env_file = tmp_path / "env.json"
    env_file.write_text(json.dumps(content))
    event = write_json(tmp_path / "e.json", sam_event("e", Mode="ok"))
    done = subprocess.run(
        [
            sys.executable, "-m", "cfn_debug.cli", "run", str(event), "--project", str(HOSTILE),
            "--function-name", "Hostile", "--env-vars", str(env_file), "--no-read-back",
        ],
        capture_output=True, text=True, env=child_env(), cwd=REPO, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, (done.stdout[-1000:], done.stderr[-1000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(env_file) in lines[0] and named in lines[0], lines[0]


def test_serve_refuses_the_file_before_serving(tmp_path: Path) -> None:
    env_file = tmp_path / "env.json"
    env_file.write_text(json.dumps(CASES[1][0]))
    done = subprocess.run(
        [
            sys.executable, "-m", "cfn_debug.cli", "serve", str(HOSTILE),
            "--port", str(free_port()), "--env-vars", str(env_file),
        ],
        capture_output=True, text=True, env=child_env(), cwd=REPO, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, (done.stdout[-1000:], done.stderr[-1000:])
    assert str(env_file) in done.stderr and "Parameters.A=B" in done.stderr, done.stderr
