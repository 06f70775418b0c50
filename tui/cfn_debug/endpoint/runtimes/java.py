"""Java (``java8.al2``, ``java11``, ``java17``, ``java21``): the Java plugin's executable entry
point, one JVM per invocation, as the plugin's executable mode runs it.

The worker's process is java_shim.py (cfn-debug's interpreter): it takes each invocation from
the worker's Runtime API and runs ``java -cp <jar> <executableEntrypoint> <HandlerRequest>`` in a
private working directory and ``java.io.tmpdir`` (see java_shim). The entry point is the
``executableEntrypoint`` of ``.rpdk-config`` (the plugin's ``cfn generate`` writes it), the jar is
the function's CodeUri when it names one, else the project's ``target/*.jar`` (the shaded one,
not ``original-*``). A missing jar is built with ``mvn -B package -DskipTests`` where Maven is
installed (a jar older than one of the build's inputs too: the sources and resources under
``src/``, and ``build_files()``: pom.xml, lombok.config and the type's schema, which the plugin's
pom generates code from and packs into the jar; watch mode rebuilds so); Maven needs its
repository (Maven Central), and a build that cannot reach it fails with Maven's own last lines.

cfn-debug's launcher class (java_launcher/, compiled once with the JDK's ``javac`` into the state
directory) runs the entry point and says when the JVM reached main, so the JVM's start is shown
apart from the handler's time and not counted against the 60 s limit. Without ``javac`` the
entry point runs directly and the start is not told apart.

A payload above Linux's one-argument cap (128 KiB) is sent as the plugin's wrapper also reads
it: ``{"__COMPRESSED__": base64(gzip(HandlerRequest))}``; one still above it is refused (HTTP 413,
an infrastructure error, not a finding on the handler).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import ClassVar

from cfn_debug.endpoint.pyenv import EnvProgress
from cfn_debug.endpoint.runtimes import builds
from cfn_debug.endpoint.runtimes.base import (
    Launch,
    Runtime,
    RuntimeOptions,
    build_cache_dir,
    build_lock,
    check_build_files,
    rpdk_config,
    signature,
)
from cfn_debug.endpoint.runtimes.handler_request import RequestRefused, as_handler_request
from cfn_debug.endpoint.template import FunctionSpec
from cfn_debug.errors import EndpointError

RUNTIMES = ("java8", "java8.al2", "java11", "java17", "java21")
SHIM = Path(__file__).with_name("java_shim.py")
LAUNCHER_SOURCE = Path(__file__).parent / "java_launcher" / "CfnDebugLauncher.java"
LAUNCHER_CLASS = "CfnDebugLauncher"
#: Flags for a JVM that lives for one invocation: start fast, write nothing outside its dirs.
JVM_ARGS = ("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Xshare:auto")
#: Linux caps one argument at 32 pages (its NUL included).
MAX_ARGUMENT = 32 * 4096 - 1
#: The files under src/ that go into the jar (sources and resources; log4j2.xml is one).
SOURCE_SUFFIXES = (".java", ".json", ".properties", ".xml")


class JavaRuntime(Runtime):
    family: ClassVar[str] = "java"
    endpoint_url_readers: ClassVar[str] = "the AWS SDK for Java 2.x, not 1.x"
    writes_sentinel: ClassVar[bool] = True  # java_shim writes it

    def __init__(self, spec: FunctionSpec, project_dir: Path, options: RuntimeOptions) -> None:
        super().__init__(spec, project_dir, options)
        self.spec = spec
        self.project_dir = Path(project_dir)
        self.options = options
        self.runtime = spec.runtime or "java17"
        self.java = _java()
        self.mvn = builds.find_tool("mvn", "CFN_DEBUG_MVN")
        self.entrypoint = _executable_entrypoint(self.project_dir)
        self._jar: Path | None = None
        self._launcher: Path | None = None

    @property
    def aws_calls_note(self) -> str:  # type: ignore[override]
        return f"AWS calls: not recorded for this runtime ({self.runtime})"

    # --- the seam ---

    def check(self) -> None:
        config = self.project_dir / ".rpdk-config"
        if self.entrypoint is None:
            raise EndpointError(
                f"{self.spec.name}: {config} has no executableEntrypoint: expected the Java "
                "plugin's executable handler class (Java plugin 2.0.3 or later writes it with "
                "`cfn generate`)"
            )
        if self.java is None:
            raise EndpointError(
                f"{self.spec.name}: runtime {self.runtime} needs `java`, which is not installed "
                "(set JAVA_HOME, or install a JDK, e.g. apt-get install default-jdk-headless)"
            )
        if self._find_jar() is None and self.mvn is None:
            raise EndpointError(
                f"{self.spec.name}: no jar in {self.project_dir / 'target'} and `mvn` is not "
                "installed to build it: run `mvn package` in the project"
            )

    def prepare(self) -> None:
        check_build_files(self.build_files())
        self._jar = self._current_jar()
        if self._launcher is None:
            self._launcher = _launcher_dir(self.java, self.options)

    def launch(self, env: dict[str, str]) -> Launch:
        jar = self._jar or self._current_jar()
        work = builds.cache_dir("java", self.project_dir) / "work"
        work.mkdir(exist_ok=True, mode=0o700)
        _sweep(work)
        class_path = str(jar) if self._launcher is None else f"{self._launcher}{os.pathsep}{jar}"
        config = {
            "java": self.java,
            "jvm_args": list(JVM_ARGS),
            "class_path": class_path,
            "main": self.entrypoint,
            "launcher": LAUNCHER_CLASS if self._launcher is not None else None,
            "work": str(work),
        }
        env = {**env, "LAMBDA_TASK_ROOT": str(jar.parent), "_HANDLER": self.spec.handler}
        argv = [sys.executable, "-u", str(SHIM), json.dumps(config)]
        return Launch(argv=argv, env=env, cwd=work)

    def source_dir(self) -> Path:
        src = self.project_dir / "src"
        return src if src.is_dir() else self.project_dir

    def build_files(self) -> list[Path]:
        """pom.xml, lombok.config and the schema (`cfn init`'s file name for the typeName)."""
        files = [self.project_dir / "pom.xml", self.project_dir / "lombok.config"]
        type_name = _type_name(self.project_dir)
        if type_name:  # as cfn_debug.project.schema_file_name names it
            files.append(self.project_dir / (type_name.lower().replace("::", "-") + ".json"))
        return files

    def describe(self) -> str:
        jar = self._jar or self._find_jar()
        shown = jar.name if jar is not None else "target/*.jar"
        return f"{self.runtime} {self.entrypoint} ({shown})"

    def adapt_request(self, body: bytes) -> bytes:
        """A HandlerRequest (a sam-style event is converted: the executable entry point takes
        nothing else), compressed as the plugin's wrapper reads it when it is too long for one
        command-line argument; refused when even that is."""
        body = as_handler_request(body, _type_name(self.project_dir))
        if len(body) <= MAX_ARGUMENT:
            return body
        packed = base64.b64encode(gzip.compress(body, compresslevel=6)).decode("ascii")
        wrapped = json.dumps({"__COMPRESSED__": packed}).encode()
        if len(wrapped) <= MAX_ARGUMENT:
            return wrapped
        raise RequestRefused(
            413,
            "RequestTooLargeException",
            f"the HandlerRequest is {len(body):,} bytes ({len(wrapped):,} gzip-compressed); the "
            f"Java plugin's executable entry point takes it as one command-line argument, which "
            f"Linux caps at {MAX_ARGUMENT:,} bytes",
        )

    # --- the jar ---

    def _find_jar(self) -> Path | None:
        named = self.spec.code_dir
        if named.suffix == ".jar":
            return named if named.is_file() else None
        jars = [
            path
            for path in (self.project_dir / "target").glob("*.jar")
            if not path.name.startswith("original-") and path.is_file()
        ]
        return max(jars, key=lambda p: p.stat().st_mtime_ns) if jars else None

    def _stale(self, jar: Path) -> bool:
        files = builds.source_files(self.project_dir / "src", SOURCE_SUFFIXES)
        newest, _ = signature([*files, *self.build_files()])
        try:
            return jar.stat().st_mtime_ns < newest
        except OSError:
            return True

    def _current_jar(self) -> Path:
        jar = self._find_jar()
        if jar is not None and (self.mvn is None or not self._stale(jar)):
            return jar
        if self.mvn is None:
            self.check()  # raises: no jar and nothing to build it with
        report = self.options.progress or (lambda _event: None)
        report(EnvProgress("build", f"building {self.project_dir.name} (mvn package)..."))
        started = time.monotonic()
        with build_lock(self.project_dir):
            builds.run_build(
                [str(self.mvn), "-B", "-q", "package", "-DskipTests"],
                self.project_dir,
                dict(os.environ),
                f"{self.spec.name}: mvn package",
                hint=" (Maven needs its repository, usually Maven Central, to build)",
            )
        jar = self._find_jar()
        if jar is None:
            raise EndpointError(
                f"{self.spec.name}: mvn package ended without a jar in "
                f"{self.project_dir / 'target'}"
            )
        report(EnvProgress("build", f"built in {time.monotonic() - started:.1f} s: {jar}"))
        return jar


def _sweep(work: Path) -> None:
    """Remove the JVM directories a killed worker left (named jvm-<its pid>-...)."""
    for folder in work.glob("jvm-*-*"):
        try:
            pid = int(folder.name.split("-")[1])
        except ValueError:
            continue
        if not Path(f"/proc/{pid}").exists():
            shutil.rmtree(folder, ignore_errors=True)


def _java() -> str | None:
    """``$JAVA_HOME/bin/java`` when set, else ``java`` from PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and os.access(Path(home) / "bin" / "java", os.X_OK):
        return str(Path(home) / "bin" / "java")
    return builds.find_tool("java")


def _executable_entrypoint(project_dir: Path) -> str | None:
    entry = rpdk_config(project_dir).get("executableEntrypoint")
    return entry if isinstance(entry, str) and entry else None


def _type_name(project_dir: Path) -> str | None:
    name = rpdk_config(project_dir).get("typeName")
    return name if isinstance(name, str) else None


def _launcher_dir(java: str | None, options: RuntimeOptions) -> Path | None:
    """The folder holding cfn-debug's compiled launcher class (compiled once per JDK, with the
    ``javac`` beside ``java`` or on PATH); None without a javac or when it will not compile."""
    if java is None:
        return None
    beside = Path(java).resolve().parent / "javac"
    javac = str(beside) if os.access(beside, os.X_OK) else builds.find_tool("javac")
    if javac is None:
        return None
    source = LAUNCHER_SOURCE.read_bytes()
    key = hashlib.sha256(source + str(Path(javac).resolve()).encode()).hexdigest()[:16]
    folder = build_cache_dir() / "java-launcher" / key
    if (folder / f"{LAUNCHER_CLASS}.class").is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    with build_lock(folder):
        if (folder / f"{LAUNCHER_CLASS}.class").is_file():
            return folder
        for release in (["--release", "8"], []):
            done = subprocess.run(
                [javac, *release, "-d", str(folder), str(LAUNCHER_SOURCE)],
                capture_output=True,
                timeout=120,
                check=False,
            )
            if done.returncode == 0:
                return folder
    if options.progress is not None:
        options.progress(
            EnvProgress("build", "cfn-debug's Java launcher did not compile: JVM start not shown")
        )
    return None
