"""Which cached environment a project's handlers get: one per interpreter, requirements file and
every file it names (``-r``, ``-c``, local packages and their contents), never one per folder
name. The real ``interpreter_for``; only the build itself (a venv and pip, minutes) is replaced
by a recorder of the directory it would build in."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from cfn_debug.endpoint import pyenv


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[Path]:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    chosen: list[Path] = []

    def record(env_dir: Path, *_args: object) -> Path:
        chosen.append(env_dir)
        return Path(sys.executable)

    monkeypatch.setattr(pyenv, "build_env", record)
    return chosen


def checkout(root: Path, package_text: str, *, extra: str = "") -> Path:
    """A project folder named ``project`` with requirements naming a local package and a -r."""
    project = root / "project"
    (project / "pkg" / "mypkg").mkdir(parents=True)
    (project / "pkg" / "mypkg" / "__init__.py").write_text(package_text)
    (project / "more.txt").write_text("cfn-debug-no-such-dist-xyz==1.0\n" + extra)
    (project / "requirements.txt").write_text("-e ./pkg\n-r more.txt\n")
    return project


def env_of(project: Path, built: list[Path]) -> Path:
    pyenv.interpreter_for(project)
    return built[-1]


def test_two_checkouts_with_the_same_folder_name_get_their_own_environments(
    tmp_path: Path, built: list[Path]
) -> None:
    first = checkout(tmp_path / "a", "VALUE = 'a'\n")
    second = checkout(tmp_path / "b", "VALUE = 'b'\n")
    assert (first / "requirements.txt").read_bytes() == (second / "requirements.txt").read_bytes()
    assert env_of(first, built) != env_of(second, built)
    assert env_of(first, built) == env_of(first, built)  # the same checkout reuses its own


def test_a_change_to_a_file_named_by_r_or_a_local_package_builds_again(
    tmp_path: Path, built: list[Path]
) -> None:
    project = checkout(tmp_path, "VALUE = 1\n")
    before = env_of(project, built)
    (project / "more.txt").write_text("cfn-debug-no-such-dist-xyz==2.0\n")
    after_r = env_of(project, built)
    assert after_r != before
    source = project / "pkg" / "mypkg" / "__init__.py"
    source.write_text("VALUE = 22\n")
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 10**9))
    assert env_of(project, built) != after_r


def test_a_constraints_file_counts(tmp_path: Path, built: list[Path]) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "requirements.txt").write_text("cfn-debug-no-such-dist-xyz\n-c pins.txt\n")
    (project / "pins.txt").write_text("cfn-debug-no-such-dist-xyz==1\n")
    before = env_of(project, built)
    (project / "pins.txt").write_text("cfn-debug-no-such-dist-xyz==2\n")
    assert env_of(project, built) != before
