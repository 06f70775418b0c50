"""A scenario whose create meets a resource this session's own run made (AlreadyExists) says so,
deletes it and goes on, instead of ending blocked with no hint."""

from __future__ import annotations

import asyncio
from pathlib import Path

from cfn_debug.chain import ChainOptions
from cfn_debug.records import RunEnded
from cfn_debug.scenarios import Outcome
from cfn_debug.workspace import Workspace
from conftest import fast_options, run_scenarios

NOTE = Path(__file__).parent / "projects" / "note"


def test_a_resource_the_session_created_is_named_and_cleaned_up(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    workspace = Workspace.open(NOTE, env_vars={"Parameters": {"CORPUS_STATE": str(state)}})
    try:
        create = next(
            e for e in workspace.events if e.path and e.path.name == "inputs_1_create.json"
        )

        async def run_create() -> str | None:
            async for event in workspace.run(create, ChainOptions(max_delay_s=0)):
                if isinstance(event, RunEnded):
                    return event.run.final_status
            return None

        assert asyncio.run(run_create()) == "SUCCESS"
        results = run_scenarios(
            workspace, fast_options(generate=False, unique=False), ("create-read",)
        )
    finally:
        workspace.close()
    result = results["create-read"]
    assert result.outcome is Outcome.PASSED, (result.outcome, result.notes)
    assert any("created earlier in this session" in note for note in result.notes)
    assert not list((state / "buckets" / "team-notes").iterdir())
