"""The dashboard on the bundled demo hook (`cfn-debug --demo hook`), the real app via Pilot: hook
events are listed by invocation point, a refusal shows as the hook's verdict (no finding), a
planted fault as a MUST finding with its contract sentence, apart from the verdict."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from app.helpers import project_config, run_event, screen_text, status_prompt
from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.widgets.timeline import Timeline
from cfn_debug.demo_hook import DEMO_HOOK_DIR


@pytest.mark.slow
async def test_the_demo_hook_shows_verdicts_apart_from_findings(tmp_path: Path) -> None:
    app = CfnDebugApp(project_config(DEMO_HOOK_DIR, tmp_path))
    async with app.run_test(size=(160, 50)) as pilot:
        await run_event(pilot, "pre-create-unencrypted")
        assert app.main.view.run is not None and app.main.view.run.verdict == "refused"
        assert app.main.view.run.findings == []
        assert "Hook verdict: refused" in str(status_prompt(app))
        assert "verdict: refused" in str(app.query_one(Timeline).border_title)

        await run_event(pilot, "fault-no-message")
        run = app.main.view.run
        assert run is not None and run.verdict == "refused"
        assert [(f.rule_id, f.level.value) for f in run.findings] == [
            ("hook-failed-message", "MUST")
        ]
        assert "FAILED events should have a message" in screen_text(app)
        assert "(hook)" in screen_text(app)  # the header names the hook
        assert app.query(Static)  # the screen is whole
