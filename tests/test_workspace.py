"""The Workspace facade: project + schema + invoker, choosing function and shape per event."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cfn_debug.chain import ChainOptions
from cfn_debug.errors import CfnDebugError, SchemaError
from cfn_debug.events import Shape
from cfn_debug.records import EndReason, RunEnded
from cfn_debug.workspace import Workspace
from invoke.lambda_stub import Behaviour, LambdaStub, serve_resource, widget_resource

SCHEMA = {
    "typeName": "Test::Cfn::Widget",
    "description": "a widget",
    "properties": {"Name": {"type": "string"}, "WidgetId": {"type": "string"}},
    "primaryIdentifier": ["/properties/WidgetId"],
    "readOnlyProperties": ["/properties/WidgetId"],
    "additionalProperties": False,
    "handlers": {"create": {"permissions": []}},
}


def make_project(root: Path) -> Path:
    (root / "sam-tests").mkdir(parents=True)
    (root / ".rpdk-config").write_text(
        json.dumps(
            {
                "typeName": "Test::Cfn::Widget",
                "entrypoint": "widget.handlers.resource",
                "testEntrypoint": "widget.handlers.test_entrypoint",
            }
        )
    )
    (root / "test-cfn-widget.json").write_text(json.dumps(SCHEMA))
    (root / "sam-tests" / "create.json").write_text(
        json.dumps({"action": "CREATE", "request": {"desiredResourceState": {"Name": "w"}}})
    )
    return root


async def run_all(workspace: Workspace, index: int = 0) -> Any:
    ended = None
    async for event in workspace.run(workspace.events[index], ChainOptions()):
        if isinstance(event, RunEnded):
            ended = event.run
    return ended


async def test_open_against_a_local_endpoint_url(tmp_path) -> None:
    root = make_project(tmp_path / "p")
    behaviour = Behaviour(in_progress_steps=1)
    with LambdaStub() as stub:
        serve_resource(stub, widget_resource(behaviour))
        workspace = Workspace.open(root, endpoint=stub.url, region="eu-central-1")
        try:
            assert workspace.schema is not None
            assert workspace.schema.type_name == "Test::Cfn::Widget"
            assert [e.name for e in workspace.events] == ["sam-tests/create"]
            assert workspace.endpoint_label == stub.url
            assert workspace.function_for(workspace.events[0]) == ("TestEntrypoint", Shape.SAM)
            run = await run_all(workspace)
        finally:
            await workspace.aclose()
    assert run.end_reason is EndReason.TERMINAL and run.final_status == "SUCCESS"
    assert run.endpoint == stub.url
    assert stub.received[0].payload["region"] == "eu-central-1"
    assert len(run.steps) == 2


async def test_function_name_picks_the_type_function_and_its_shape(tmp_path) -> None:
    root = make_project(tmp_path / "p")
    with LambdaStub() as stub:
        serve_resource(stub, widget_resource(Behaviour(in_progress_steps=0)))
        workspace = Workspace.open(root, endpoint=stub.url, function_name="TypeFunction")
        try:
            assert workspace.function_for(workspace.events[0]) == (
                "TypeFunction",
                Shape.HANDLER_REQUEST,
            )
            run = await run_all(workspace)
        finally:
            workspace.close()
    assert run.final_status == "SUCCESS"
    sent = stub.received[0].payload
    assert sent["resourceType"] == "Test::Cfn::Widget" and "requestData" in sent


def test_a_function_the_template_does_not_know_gets_the_event_as_written(tmp_path) -> None:
    root = make_project(tmp_path / "p")
    with LambdaStub() as stub:
        workspace = Workspace.open(root, endpoint=stub.url, function_name="function")
        try:
            event = workspace.events[0]
            assert event.shape is Shape.SAM
            assert workspace.function_for(event) == ("function", Shape.SAM)
        finally:
            workspace.close()


def test_bad_options_and_a_broken_schema_are_typed_errors(tmp_path) -> None:
    root = make_project(tmp_path / "p")
    with pytest.raises(CfnDebugError) as caught:
        Workspace.open(root, endpoint="aws")
    assert caught.value.field == "--function-name"
    with pytest.raises(CfnDebugError) as caught:
        Workspace.open(root, endpoint="localhost:3001")
    assert caught.value.field == "--endpoint"
    (root / "test-cfn-widget.json").write_text('{"typeName": "Test::Cfn::Widget", }')
    with pytest.raises(SchemaError) as caught:
        Workspace.open(root, endpoint="http://127.0.0.1:1")
    assert caught.value.path == str(root.resolve() / "test-cfn-widget.json")


async def test_embedded_endpoint_runs_the_bundled_demo(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    state = tmp_path / "state"
    workspace = Workspace.open(None, env_vars={"Parameters": {"CFN_DEBUG_DEMO_STATE": str(state)}})
    try:
        assert workspace.project.is_demo
        assert workspace.endpoint_label.startswith("embedded http://127.0.0.1:")
        create = next(e for e in workspace.events if e.name == "sample_events/create")
        assert workspace.function_for(create) == ("TestEntrypoint", Shape.SAM)
        ended = None
        async for event in workspace.run(create, ChainOptions(max_delay_s=0)):
            if isinstance(event, RunEnded):
                ended = event.run
    finally:
        await workspace.aclose()
    assert ended is not None
    assert ended.end_reason is EndReason.TERMINAL, ended.steps[-1].result
    assert ended.final_status == "SUCCESS"
    assert ended.must_failures == []
    assert any(step.result.logs for step in ended.steps)
    assert workspace.embedded is None  # stopped
