"""Project discovery: settings, schema file, events from every known place, the bundled demo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfn_debug.errors import EventError, ProjectError
from cfn_debug.events import load_event
from cfn_debug.project import DEMO_DIR, InputsChain, discover_project, schema_file_name
from cfn_debug.records import Action, InvokeResult, OutcomeKind, RunRecord, Step
from cfn_debug.schema import load_schema

REPO = Path(__file__).resolve().parents[1]


def make_project(root: Path, *, type_name: str = "Org::Svc::Thing") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / ".rpdk-config").write_text(
        json.dumps(
            {
                "typeName": type_name,
                "language": "python311",
                "entrypoint": "org_svc_thing.handlers.resource",
                "testEntrypoint": "org_svc_thing.handlers.test_entrypoint",
            }
        )
    )
    (root / schema_file_name(type_name)).write_text(json.dumps({"typeName": type_name}))
    (root / "other.json").write_text(json.dumps({"typeName": "Not::The::One"}))
    (root / "sam-tests").mkdir()
    (root / "sam-tests" / "create.json").write_text(
        json.dumps({"action": "CREATE", "request": {"desiredResourceState": {"A": 1}}})
    )
    (root / "sam-tests" / "broken.json").write_text('{"action": "CREATE", "request": ')
    (root / "inputs").mkdir()
    for kind, model in (("create", {"A": 1}), ("update", {"A": 2}), ("invalid", {"A": "x"})):
        (root / "inputs" / f"inputs_1_{kind}.json").write_text(json.dumps(model))
    (root / "inputs" / "notes.json").write_text("{}")
    return root


def test_rpdk_project_settings_schema_and_events(tmp_path) -> None:
    project = discover_project(make_project(tmp_path / "p"))
    assert project.type_name == "Org::Svc::Thing"
    assert project.test_entrypoint == "org_svc_thing.handlers.test_entrypoint"
    assert project.schema_path == tmp_path / "p" / "org-svc-thing.json"
    assert project.functions == {} and not project.is_demo
    by_name = {e.name: e for e in project.events}
    assert sorted(by_name) == [
        "inputs/inputs_1_create",
        "inputs/inputs_1_invalid",
        "inputs/inputs_1_update",
        "sam-tests/create",
    ]
    update = by_name["inputs/inputs_1_update"].normalized
    assert update.action is Action.UPDATE
    assert (update.desired, update.previous) == ({"A": 2}, {"A": 1})
    assert by_name["inputs/inputs_1_invalid"].action is Action.CREATE
    assert [type(e) for e in project.event_errors] == [EventError]
    assert "broken.json" in str(project.event_errors[0])


def test_single_schema_file_is_found_without_rpdk_config(tmp_path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "template.yml").write_text("Resources: {}\n")
    (root / "thing.json").write_text(json.dumps({"typeName": "A1::B2::C3"}))
    (root / "package.json").write_text("{}")
    project = discover_project(root, schema_path=None)
    assert project.schema_path == root / "thing.json"
    # a template without functions is kept as the reason there is nothing to serve
    assert project.functions == {}
    assert project.functions_error is not None
    assert "AWS::Serverless::Function" in str(project.functions_error)
    (root / "second.json").write_text(json.dumps({"typeName": "A1::B2::D4"}))
    assert discover_project(root).schema_path is None  # ambiguous: --schema must say which


def test_schema_override_and_errors(tmp_path) -> None:
    root = make_project(tmp_path / "p")
    assert discover_project(root, schema_path=root / "other.json").schema_path == (
        root / "other.json"
    )
    with pytest.raises(ProjectError) as caught:
        discover_project(root, schema_path=root / "missing.json")
    assert caught.value.field == "--schema"
    with pytest.raises(ProjectError, match="no such directory"):
        discover_project(tmp_path / "nowhere")
    (root / ".rpdk-config").write_text('{"typeName": 3}')
    with pytest.raises(ProjectError) as caught:
        discover_project(root)
    assert caught.value.field == "typeName"
    (root / ".rpdk-config").write_text('{\n  "typeName": \n}')
    with pytest.raises(ProjectError, match="line 3, column 1"):
        discover_project(root)


def test_cwd_project_else_the_bundled_demo(tmp_path, monkeypatch) -> None:
    root = make_project(tmp_path / "p")
    monkeypatch.chdir(root)
    assert discover_project(None).root == root.resolve()
    monkeypatch.chdir(tmp_path)
    demo = discover_project(None)
    assert demo.is_demo and demo.root == DEMO_DIR
    assert demo.type_name == "CfnDebug::Demo::Widget"
    assert demo.schema_path == DEMO_DIR / "cfndebug-demo-widget.json"
    assert {"TypeFunction", "TestEntrypoint"} <= set(demo.functions)
    names = {e.name for e in demo.events}
    # a source checkout keeps the demo's events at the repository root
    expected = {f"sample_events/{p.stem}" for p in (REPO / "sample_events").glob("*.json")}
    assert expected and expected <= names
    assert "example_inputs/inputs_1_update" in names
    assert demo.event_errors == []


RANDOM_ID = Path(__file__).parent / "trial" / "projects" / "random-id"


def _created(model: dict[str, object]) -> RunRecord:
    """A create's run that ended SUCCESS returning ``model`` (what the chain records)."""
    result = InvokeResult(
        OutcomeKind.PROGRESS, 0.01, progress={"status": "SUCCESS", "resourceModel": model}
    )
    step = Step(0, Action.CREATE, "F", {}, result, "2026-01-01T00:00:00+00:00", 60.0)
    return RunRecord(
        "r1", "inputs_1_create", None, Action.CREATE, "F", "u", "t0", [step],
        final_status="SUCCESS",
    )  # fmt: skip


def test_an_update_is_not_sent_when_its_create_named_no_identifier(tmp_path: Path) -> None:
    """The primary identifier (Id) is readOnly: only the create's answer can have it. A create
    that answered SUCCESS without it left the update nothing to address: sent anyway, the request
    cfn-debug built was blamed on the handler (MUST input-identifier-present)."""
    schema = load_schema(RANDOM_ID / "cfndebug-fixture-randomid.json")
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    files = {}
    for kind, model in (("create", {"Value": "a"}), ("update", {"Value": "b"})):
        files[kind] = inputs / f"inputs_1_{kind}.json"
        files[kind].write_text(json.dumps(model))
    create, update = (load_event(files[k]) for k in ("create", "update"))

    chain = InputsChain(schema)
    chain.record(create, _created({"Value": "a"}))
    assert chain.skip_reason(update) == (
        "skipped: inputs_1_create returned no primary identifier "
        "(its primary-identifier-present says so)"
    )
    files["update"].write_text(json.dumps({"Id": "written-by-hand", "Value": "b"}))
    assert chain.skip_reason(load_event(files["update"])) is None  # it names its resource

    chain.record(create, _created({"Id": "id-1", "Value": "a"}))
    assert chain.skip_reason(update) is None
    assert chain.prepare(update).normalized.desired == {"Id": "id-1", "Value": "b"}
