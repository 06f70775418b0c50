"""The dashboard on the Go and on the Java fixture: the real app through Pilot, the real embedded
endpoint running the built binary or one JVM per invocation: the fixture's planted fault found and
on screen, and its step saying its AWS calls are not recorded (the chain's replay is
test_native_cli's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.helpers import project_config, run_event, screen_text
from cfn_debug.app.app import CfnDebugApp

from ..conftest import build_with_the_runtime

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

SIZE = (140, 45)
#: Each fixture's planted fault and the rule it is found with (as the Python demo's same fault).
FAULTS = {
    "go": ("fault-write-only-on-create", "write-only-not-returned"),
    "java": ("fault-missing-primary-identifier", "primary-identifier-present"),
}


@pytest.mark.parametrize("runtime", ["go", "java"])
async def test_the_dashboard_runs_the_compiled_type(
    runtime: str,
    request: pytest.FixtureRequest,
    note_store: dict[str, dict[str, str]],
    tmp_path: Path,
) -> None:
    project: Path = request.getfixturevalue("go_note" if runtime == "go" else "java_note")
    build_with_the_runtime(project)  # the Go build (or the Java launcher) before the clock runs
    config = project_config(project, tmp_path)
    config.env_vars = note_store
    app = CfnDebugApp(config)
    fault, rule = FAULTS[runtime]
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, fault)
        run = app.main.view.run
        assert run is not None and run.steps, screen_text(app)
        found = {f.rule_id for step in app.main.view.steps for f in step.findings}
        assert rule in found, found
        assert rule in screen_text(app)
        first = app.main.view.steps[0].result
        assert first is not None and first.aws_calls_note
        assert first.aws_calls_note.startswith("AWS calls: not recorded for this runtime")
