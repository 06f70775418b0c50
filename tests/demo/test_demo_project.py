"""The demo project's files and the sample events: valid, consistent, accepted by the library."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from cfndebug_demo_widget.handlers import FAULTS
from cfndebug_demo_widget.models import ResourceModel, TypeConfigurationModel
from cloudformation_cli_python_lib.utils import Credentials, UnmodelledRequest
from cloudformation_cli_python_lib.utils import TestEvent as SamTestEvent
from demo_support import DEMO_DIR, SAMPLE_EVENTS, SCHEMA_PATH, load_event, via_test_entrypoint

EVENT_FILES = sorted(p.name for p in SAMPLE_EVENTS.glob("*.json"))
GOOD_EVENTS = {
    "create.json": ("CREATE", "IN_PROGRESS"),
    "read.json": ("READ", "SUCCESS"),
    "update.json": ("UPDATE", "SUCCESS"),
    "delete.json": ("DELETE", "IN_PROGRESS"),
    "list.json": ("LIST", "SUCCESS"),
}


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


def test_there_is_one_event_per_action_and_one_per_fault() -> None:
    expected = set(GOOD_EVENTS) | {f"fault-{_kebab(f)}.json" for f in FAULTS}
    assert set(EVENT_FILES) == expected


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # rpdk's use of jsonschema.RefResolver
def test_the_schema_is_a_valid_resource_schema() -> None:
    from rpdk.core.data_loaders import load_resource_spec

    with SCHEMA_PATH.open(encoding="utf-8") as handle:
        spec = load_resource_spec(handle)
    assert spec["typeName"] == "CfnDebug::Demo::Widget"
    assert spec["typeConfiguration"]["properties"]["Fault"]["enum"] == list(FAULTS)


def test_the_schema_and_the_generated_models_agree() -> None:
    schema = _schema()
    assert set(ResourceModel.__dataclass_fields__) == set(schema["properties"])
    config = schema["typeConfiguration"]["properties"]
    assert set(TypeConfigurationModel.__dataclass_fields__) == set(config)


def test_rpdk_config_and_template_describe_the_demo() -> None:
    config = json.loads((DEMO_DIR / ".rpdk-config").read_text(encoding="utf-8"))
    assert config["typeName"] == _schema()["typeName"]
    assert config["entrypoint"] == "cfndebug_demo_widget.handlers.resource"
    assert config["testEntrypoint"] == "cfndebug_demo_widget.handlers.test_entrypoint"

    template = yaml.safe_load((DEMO_DIR / "template.yml").read_text(encoding="utf-8"))
    assert template["Globals"]["Function"]["Timeout"] == 60
    functions = template["Resources"]
    assert functions["TypeFunction"]["Properties"]["Handler"] == config["entrypoint"]
    assert functions["TestEntrypoint"]["Properties"]["Handler"] == config["testEntrypoint"]
    for function in functions.values():
        assert function["Type"] == "AWS::Serverless::Function"
        assert function["Properties"]["CodeUri"] == "build/"
        assert function["Properties"]["Runtime"] == config["runtime"]
        assert function["Properties"]["Environment"]["Variables"] == {"CFN_DEBUG_DEMO_STATE": ""}


def test_the_handler_package_does_not_import_cfn_debug() -> None:
    for path in (DEMO_DIR / "src" / "cfndebug_demo_widget").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import)\s+cfn_debug\b", text, re.M), path.name


@pytest.mark.parametrize("name", EVENT_FILES)
def test_each_sample_event_is_accepted_by_the_library(name: str) -> None:
    event = load_event(name)
    # What the library's test_entrypoint does before calling a handler: these raise on any key
    # it does not know (and then the whole invoke comes back FAILED InternalFailure).
    parsed = SamTestEvent(**event)
    Credentials(**parsed.credentials)
    UnmodelledRequest(**parsed.request).to_modelled(ResourceModel, TypeConfigurationModel)
    assert event["callbackContext"] is None
    assert all("fake" in value.lower() for value in event["credentials"].values())


@pytest.mark.parametrize("name", EVENT_FILES)
def test_each_sample_event_is_valid_input(name: str) -> None:
    """The contract's input assumption: requests are valid against the schema."""
    schema = _schema()
    request = load_event(name)["request"]
    resource_schema = {k: v for k, v in schema.items() if k != "typeConfiguration"}
    for key in ("desiredResourceState", "previousResourceState"):
        if key in request:
            model = request[key]
            # Read, update and delete requests name a widget; only create needs the Name.
            checked = dict(resource_schema, required=[]) if "WidgetId" in model else schema
            jsonschema.validate(model, checked)
    config_schema = {**schema["typeConfiguration"], "definitions": schema["definitions"]}
    jsonschema.validate(request.get("typeConfiguration", {}), config_schema)


@pytest.mark.parametrize("name", sorted(GOOD_EVENTS))
def test_good_events_start_as_documented(name: str) -> None:
    action, status = GOOD_EVENTS[name]
    event = load_event(name)
    assert event["action"] == action
    response = via_test_entrypoint(event)
    assert response["status"] == status, response
    assert "errorCode" not in response


@pytest.mark.parametrize("name", [n for n in EVENT_FILES if n.startswith("fault-")])
def test_each_fault_event_runs_its_fault(name: str) -> None:
    event = load_event(name)
    fault = event["request"]["typeConfiguration"]["Fault"]
    assert name == f"fault-{_kebab(fault)}.json"
    if fault == "SlowRead":
        event["request"]["typeConfiguration"]["ReadDelaySeconds"] = 0
    response = via_test_entrypoint(event)
    assert response.get("errorCode") != "InvalidTypeConfiguration"
    assert "(TypeError)" not in response.get("message", "")  # the library's parse rejection


def test_sample_events_readme_has_a_row_per_file() -> None:
    readme = (SAMPLE_EVENTS / "README.md").read_text(encoding="utf-8")
    rows = [line for line in readme.splitlines() if line.startswith("| `")]
    listed = [re.match(r"\| `([^`]+)`", row).group(1) for row in rows]  # type: ignore[union-attr]
    assert sorted(listed) == EVENT_FILES


def test_demo_readme_documents_every_fault() -> None:
    readme = (DEMO_DIR / "README.md").read_text(encoding="utf-8")
    for fault in FAULTS:
        assert f"`{fault}`" in readme, fault


def test_the_package_knows_where_the_demo_lives() -> None:
    from cfn_debug import demo

    assert SCHEMA_PATH.resolve() == demo.SCHEMA_FILE
    assert demo.sample_events_dir() == SAMPLE_EVENTS.resolve()
    assert Path(demo.PROJECT_DIR, ".rpdk-config").is_file()
