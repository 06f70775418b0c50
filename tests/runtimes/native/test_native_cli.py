"""`cfn-debug run`, `scenario all` and watch mode on the Go and Java fixtures, end to end: the
real CLI process, the embedded endpoint, the runtime's build, the real handler code. Each
fixture's planted contract fault is found with the rule id the Python demo's same fault gets."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from support.lines import Lines

from .conftest import (
    GO_NOTE,
    JAR,
    JAR_NAME,
    JAVA_NOTE,
    JAVAC,
    REPO,
    build_jar,
    cfn_debug,
    clean_env,
    copy_project,
    needs_jdk,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

#: Each runtime's fixture, its planted fault event, and the demo's event with the same fault.
FAULTS = {
    "go": ("fault-write-only-on-create.json", "fault-write-only-on-read.json"),
    "java": ("fault-missing-primary-identifier.json", "fault-missing-primary-identifier.json"),
}
WAIT_S = 120.0


@pytest.fixture(params=["go", "java"])
def project(request: pytest.FixtureRequest) -> Path:
    return request.getfixturevalue("go_note" if request.param == "go" else "java_note")


def _runtime(project: Path) -> str:
    return "go" if (project / "go.mod").is_file() else "java"


def _env_vars(tmp_path: Path) -> str:
    store = str(tmp_path / "notes")
    path = tmp_path / "env.json"
    path.write_text(json.dumps({"Parameters": {"GO_NOTE_STORE": store, "JAVA_NOTE_STORE": store}}))
    return str(path)


def _run(project: Path, tmp_path: Path, *events: str, extra: tuple[str, ...] = ()) -> Any:
    done = cfn_debug(
        "run", "--project", str(project), "--max-delay", "0", "--json", "--no-journal",
        "--env-vars", _env_vars(tmp_path), *extra,
        *(str(project / "sam-tests" / name) for name in events),
    )  # fmt: skip
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def _rules(run: dict[str, Any]) -> set[str]:
    found = {f["rule_id"] for step in run["steps"] for f in step["findings"]}
    return found | {f["rule_id"] for f in run["chain_findings"]}


@pytest.fixture(scope="module")
def demo_rules() -> dict[str, set[str]]:
    """The rules the Python demo's faults are found with, for the same faults in Go and Java."""
    out: dict[str, set[str]] = {}
    for runtime, (_, demo_event) in FAULTS.items():
        done = cfn_debug(
            "run", "--max-delay", "0", "--json", "--no-journal",
            str(REPO / "sample_events" / demo_event),
        )  # fmt: skip
        out[runtime] = {
            f["rule_id"] for run in json.loads(done.stdout)["runs"] for s in run["steps"]
            for f in s["findings"] if f["level"] == "MUST"
        }  # fmt: skip
    return out


def test_run_replays_the_chain_and_finds_the_planted_fault_as_in_python(
    project: Path, tmp_path: Path, demo_rules: dict[str, set[str]]
) -> None:
    runtime = _runtime(project)
    fault, _ = FAULTS[runtime]
    code, report, stderr = _run(project, tmp_path, "create.json", fault, extra=("--logs",))
    assert code == 1, stderr
    assert report["errors"] == []
    create, faulty = report["runs"]
    statuses = [step["result"]["progress"]["status"] for step in create["steps"]]
    assert statuses[:2] == ["IN_PROGRESS", "SUCCESS"], statuses  # the callback replayed
    assert create["steps"][-1]["origin"] == "read-back"
    assert _rules(create) == set(), create["steps"]
    assert any("invoking" in line or "received the CREATE" in line
               for line in create["steps"][0]["result"]["logs"])  # fmt: skip
    if runtime == "java":  # and the console says it beside each step's duration
        console = cfn_debug(
            "run", "--project", str(project), "--max-delay", "0", "--no-journal",
            "--env-vars", _env_vars(tmp_path), str(project / "sam-tests" / "list.json"),
        )  # fmt: skip
        assert "JVM start" in console.stdout, console.stdout
    note = create["steps"][0]["result"]["aws_calls_note"]
    assert note.startswith("AWS calls: not recorded for this runtime"), note
    expected = demo_rules[runtime]
    assert expected and expected <= _rules(faulty), (expected, _rules(faulty))
    if runtime == "java":
        starts = [step["result"]["runtime_start_s"] for step in create["steps"]]
        assert all(start and start > 0 for start in starts), starts


def test_scenario_all_passes_on_a_correct_handler(project: Path, tmp_path: Path) -> None:
    # The default, one scenario at a time: both fixtures refuse a second note with the same
    # Title (AlreadyExists) though Title is neither an identifier nor createOnly, so scenarios
    # played at once (--jobs 2) block each other: the default must not.
    done = cfn_debug(
        "scenario", "--project", str(project), "--max-delay", "0", "--json",
        "--env-vars", _env_vars(tmp_path),
    )  # fmt: skip
    report = json.loads(done.stdout)
    assert done.returncode == 0, (done.stderr, json.dumps(report)[:4000])


#: What each fixture's save changes: the planted fault's code, fixed.
FIXES = {
    "go": (
        "cmd/resource/resource.go",
        'if planted == "WriteOnlyOnCreate" {',
        'if planted == "WriteOnlyOnCreate" && false {',
    ),
    "java": (
        "src/main/java/software/cfndebug/javanote/NoteHandlers.java",
        'if ("MissingPrimaryIdentifier".equals(fault)) {',
        'if ("MissingPrimaryIdentifier".equals(fault) && false) {',
    ),
}


@pytest.mark.parametrize("runtime", ["go", "java"])
def test_watch_mode_rebuilds_on_save_and_the_fault_is_fixed(
    runtime: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A copy of the fixture, watched; the fix saved; the runtime rebuilds (Go: go build; Java:
    the project's build, here a javac+jar stand-in for mvn, which cannot reach Maven Central)."""
    request.getfixturevalue("go_note" if runtime == "go" else "java_note")  # skips without tools
    project = copy_project(GO_NOTE if runtime == "go" else JAVA_NOTE, tmp_path / runtime)
    env = clean_env()
    if runtime == "java":
        build_jar(project)
        env["CFN_DEBUG_MVN"] = str(_fake_mvn(tmp_path))
    fault, _ = FAULTS[runtime]
    command = [
        sys.executable, "-m", "cfn_debug.cli", "run", "--watch", "--project", str(project),
        "--max-delay", "0", "--no-read-back", "--env-vars", _env_vars(tmp_path),
        str(project / "sam-tests" / fault),
    ]  # fmt: skip
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        cwd=REPO, start_new_session=True,
    )  # fmt: skip
    try:
        out = Lines(proc, wait_s=WAIT_S)
        out.until("watching")
        name, before, after = FIXES[runtime]
        path = project / name
        time.sleep(1.1)  # a save the build tools see as newer than their output
        path.write_text(path.read_text().replace(before, after))
        assert "fixed" in out.until("vs previous run")
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=WAIT_S) == 130
        stderr = proc.stderr.read() if proc.stderr else ""
        assert "Traceback" not in stderr, stderr
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _fake_mvn(folder: Path) -> Path:
    """An `mvn` that builds the Java fixture as `mvn package` would lay it out, with javac and jar
    (Maven itself needs Maven Central for its build plugins)."""
    script = folder / "mvn"
    script.write_text(
        "#!/bin/sh\nset -e\nmkdir -p target/classes\n"
        f"{JAVAC} -d target/classes $(find src/main/java -name '*.java')\n"
        f"{JAR} cf target/{JAR_NAME} -C target/classes .\n"
    )
    script.chmod(0o755)
    return script


@needs_jdk
def test_no_jar_and_an_offline_maven_is_a_one_line_exit_2(tmp_path: Path) -> None:
    project = copy_project(JAVA_NOTE, tmp_path / "java-note")
    fake = tmp_path / "mvn"
    fake.write_text("#!/bin/sh\necho '[ERROR] Plugin resolution failed: no central'\nexit 1\n")
    fake.chmod(0o755)
    done = cfn_debug(
        "run", "--project", str(project), "--no-journal", str(project / "sam-tests" / "list.json"),
        env=clean_env(CFN_DEBUG_MVN=str(fake)),
    )  # fmt: skip
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "mvn package failed (exit status 1): Plugin resolution failed" in done.stderr


def test_local_aws_reaches_the_handler_process(project: Path, tmp_path: Path) -> None:
    code, report, stderr = _run(project, tmp_path, "list.json", extra=("--local-aws", "--logs"))
    assert code == 0, stderr
    lines = report["runs"][0]["steps"][0]["result"]["logs"]
    assert any("AWS_ENDPOINT_URL=http://127.0.0.1:" in line and "credentials=true" in line
               for line in lines), lines  # fmt: skip
