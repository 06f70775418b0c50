"""The dashboard on the TypeScript fixture: the real app through Pilot, the real embedded endpoint
running the Node handlers, and moto's real server."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.helpers import project_config, run_event, screen_text
from cfn_debug.app.app import CfnDebugApp

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

SIZE = (140, 45)


async def test_the_dashboard_runs_the_typescript_type(ts_note_built: Path, tmp_path: Path) -> None:
    app = CfnDebugApp(project_config(ts_note_built, tmp_path, "--local-aws"))
    async with app.run_test(size=SIZE) as pilot:
        await run_event(pilot, "inputs_1_create")
        run = app.main.view.run
        assert run is not None and run.final_status == "SUCCESS"
        step = app.main.view.steps[0]
        assert any(call.operation == "PutItem" for call in step.aws_calls)
        assert any("putting note contract-note" in line for line in step.result.logs)
        await run_event(pilot, "fault-delete-returns-model")
        step = app.main.view.steps[0]
        assert {f.rule_id for f in step.findings} == {"delete-success-no-model"}
        assert "delete-success-no-model" in screen_text(app)
