"""Fixtures of the Go (provided) and Java runtime tests: the toolchains they need, the go-note and
java-note fixture projects copied out of the repository (built there: the Go binary by the runtime
itself into the session's state directory, the Java jar with javac and jar here), and the CLI.

A test whose toolchain is missing is skipped with the reason, never passed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from support.cli import run_cli

PROJECTS = Path(__file__).resolve().parents[1] / "projects"
GO_NOTE = PROJECTS / "go-note"
JAVA_NOTE = PROJECTS / "java-note"
REPO = Path(__file__).resolve().parents[3]
JAR_NAME = "cfndebug-fixture-javanote-handler-1.0-SNAPSHOT.jar"

GO = shutil.which("go")
JAVA = shutil.which("java")
JAVAC = shutil.which("javac")
JAR = shutil.which("jar")

needs_go = pytest.mark.skipif(
    GO is None,
    reason="`go` is not on PATH: the Go fixture is built with Go (apt-get install golang-go)",
)
needs_jdk = pytest.mark.skipif(
    None in (JAVA, JAVAC, JAR),
    reason="java, javac and jar are not all on PATH: the Java fixture is compiled with a JDK "
    "(apt-get install default-jdk-headless)",
)


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without the machine's AWS_* variables, wide and colourless; `mvn` is
    never used (it cannot reach Maven Central here): the Java fixture's jar is built by javac."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return {**env, "NO_COLOR": "1", "COLUMNS": "200", "CFN_DEBUG_MVN": "/nonexistent", **extra}


def cfn_debug(
    *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=env or clean_env(), timeout=timeout, cwd=REPO)


def copy_project(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("bin", "target"))
    return target


def build_jar(project: Path) -> Path:
    """Compile the Java fixture's classes with javac and pack them with jar into target/, as
    `mvn package` would lay it out."""
    classes = project / "target" / "classes"
    classes.mkdir(parents=True, exist_ok=True)
    sources = sorted(str(p) for p in (project / "src" / "main" / "java").rglob("*.java"))
    subprocess.run([JAVAC, "-d", str(classes), *sources], check=True, capture_output=True)
    jar = project / "target" / JAR_NAME
    subprocess.run([JAR, "cf", str(jar), "-C", str(classes), "."], check=True, capture_output=True)
    return jar


@pytest.fixture(scope="session")
def go_note(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """go-note, copied out of the repository once per session (the runtime builds it on first
    use, into the session's state directory, shared by every test on this copy)."""
    if GO is None:
        pytest.skip("`go` is not on PATH: the Go fixture is built with Go")
    return copy_project(GO_NOTE, tmp_path_factory.mktemp("go") / "go-note")


@pytest.fixture(scope="session")
def java_note(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """java-note, copied out of the repository and compiled once per session."""
    if None in (JAVA, JAVAC, JAR):
        pytest.skip("java, javac and jar are not all on PATH: the Java fixture needs a JDK")
    project = copy_project(JAVA_NOTE, tmp_path_factory.mktemp("java") / "java-note")
    build_jar(project)
    return project


@pytest.fixture
def note_store(tmp_path: Path) -> dict[str, dict[str, str]]:
    """--env-vars that keep both fixtures' notes in this test's own folder."""
    store = str(tmp_path / "notes")
    return {"Parameters": {"GO_NOTE_STORE": store, "JAVA_NOTE_STORE": store}}
