"""The dashboard sends inputs_N_update as an update of what inputs_N_create made, as `run` and
`cfn test` do: the table-item fixture's identifier (ItemId) is named by the handler, so the
update file cannot hold it; before, the dashboard sent the file as written (no identifier) and
judged the handler on a request cfn-debug built. Real moto server, real handler."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.config import AppConfig

from .helpers import project_config, run_event

TABLE_ITEM = Path(__file__).resolve().parents[1] / "trial" / "projects" / "table-item"


def config(tmp_path: Path) -> AppConfig:
    return project_config(TABLE_ITEM, tmp_path, "--local-aws")


@pytest.mark.slow
async def test_the_update_input_updates_what_the_create_input_made(tmp_path: Path) -> None:
    app = CfnDebugApp(config(tmp_path))
    async with app.run_test(size=(160, 48)) as pilot:
        await run_event(pilot, "inputs_1_create")
        create = app.main.view.run
        assert create is not None and create.final_status == "SUCCESS", create
        made = create.steps[0].result.progress["resourceModel"]
        await run_event(pilot, "inputs_1_update")
        update = app.main.view.run
        assert update is not None
        sent = update.steps[0].request["request"]
        assert sent["desiredResourceState"]["ItemId"] == made["ItemId"]
        assert sent["desiredResourceState"]["Body"] == "updated by the contract tests"
        assert sent["previousResourceState"] == made
        assert update.final_status == "SUCCESS"
        assert [f.rule_id for s in update.steps for f in s.findings] == []
