"""Events: both shapes, errors naming file and field, and payloads a real handler takes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfn_debug.credentials import PLACEHOLDER_CREDENTIALS
from cfn_debug.errors import CfnDebugError, EventError
from cfn_debug.events import (
    PayloadDefaults,
    Shape,
    build_payload,
    convert,
    load_event,
    parse_event,
    resolve_credentials,
    shape_for_handler,
)
from cfn_debug.records import Action
from invoke.lambda_stub import Behaviour, widget_resource

SAM_EVENT = {
    "credentials": {
        "accessKeyId": "AKIAEXAMPLEEXAMPLE12",
        "secretAccessKey": "s",
        "sessionToken": "t",
    },
    "action": "CREATE",
    "request": {
        "clientRequestToken": "tok-1",
        "desiredResourceState": {"Name": "w", "Size": 2},
        "logicalResourceIdentifier": "MyWidget",
        "typeConfiguration": {"Fault": "none"},
    },
    "callbackContext": None,
    "region": "eu-west-2",
}


def write(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def test_sam_event_is_read_and_normalized(tmp_path) -> None:
    spec = load_event(write(tmp_path, "create.json", SAM_EVENT))
    assert (spec.name, spec.action, spec.shape) == ("create", Action.CREATE, Shape.SAM)
    norm = spec.normalized
    assert norm.desired == {"Name": "w", "Size": 2}
    assert norm.client_request_token == "tok-1"
    assert norm.type_configuration == {"Fault": "none"}
    assert norm.region == "eu-west-2"
    assert norm.logical_id == "MyWidget"


def test_conversion_round_trips_between_shapes() -> None:
    spec = parse_event(SAM_EVENT, name="e")
    handler_request = convert(spec, Shape.HANDLER_REQUEST)
    assert handler_request["bearerToken"] == "tok-1"
    assert handler_request["requestData"]["resourceProperties"] == {"Name": "w", "Size": 2}
    assert "providerCredentials" not in handler_request["requestData"]
    assert "providerLogGroupName" not in handler_request["requestData"]
    back = parse_event(handler_request, name="back")
    assert back.shape is Shape.HANDLER_REQUEST
    assert convert(back, Shape.SAM) == convert(spec, Shape.SAM)


def test_bad_action_names_file_field_and_choices(tmp_path) -> None:
    path = write(tmp_path, "x.json", {**SAM_EVENT, "action": "CRAETE"})
    with pytest.raises(EventError) as caught:
        load_event(path)
    assert str(caught.value) == (
        f'{path}: action: expected one of CREATE, READ, UPDATE, DELETE, LIST, got "CRAETE"'
    )


def test_json_syntax_error_has_line_and_column(tmp_path) -> None:
    path = write(tmp_path, "bad.json", '{\n  "action": "CREATE",\n  "request": {,}\n}')
    with pytest.raises(EventError) as caught:
        load_event(path)
    assert str(caught.value).startswith(f"{path}: invalid JSON at line 3, column 15")


@pytest.mark.parametrize(
    ("data", "field", "expected"),
    [
        ({**SAM_EVENT, "extra": 1}, "extra", "unknown key"),
        (
            {**SAM_EVENT, "request": {"desiredResourceStat": {}}},
            "request.desiredResourceStat",
            "unknown key",
        ),
        (
            {**SAM_EVENT, "request": {"desiredResourceState": [1]}},
            "request.desiredResourceState",
            "expected an object or null, got an array",
        ),
        ({**SAM_EVENT, "callbackContext": "x"}, "callbackContext", "expected an object or null"),
        (
            {**SAM_EVENT, "credentials": {"accessKeyId": "a"}},
            "credentials.secretAccessKey",
            "expected a string, got null",
        ),
        ({"action": "CREATE", "requestData": 3}, "requestData", "expected an object or null"),
    ],
)
def test_malformed_fields_are_named(data, field, expected) -> None:
    with pytest.raises(EventError) as caught:
        parse_event(data, name="e", path=Path("sample_events/e.json"))
    assert caught.value.field == field
    assert caught.value.path == "sample_events/e.json"
    assert expected in caught.value.detail


def test_neither_shape_is_explained() -> None:
    with pytest.raises(EventError, match=r"sam-style event .* or a CloudFormation HandlerRequest"):
        parse_event({"action": "CREATE"}, name="e")
    with pytest.raises(EventError, match="expected a JSON object"):
        parse_event([1, 2], name="e")


def test_cfn_invoke_request_file_takes_the_action_from_its_name(tmp_path) -> None:
    data = {"desiredResourceState": {"Name": "a"}, "previousResourceState": None}
    spec = load_event(write(tmp_path, "update_widget.json", data))
    assert spec.action is Action.UPDATE and spec.normalized.desired == {"Name": "a"}
    with pytest.raises(EventError) as caught:
        load_event(write(tmp_path, "request.json", data))
    assert caught.value.field == "action"


def test_payload_defaults_token_and_placeholder_credentials() -> None:
    spec = parse_event({"action": "CREATE", "request": {"desiredResourceState": {}}}, name="e")
    first = build_payload(spec.normalized, Shape.SAM)
    second = build_payload(spec.normalized, Shape.SAM)
    assert first["credentials"] == PLACEHOLDER_CREDENTIALS
    assert first["region"] == "us-east-1"
    assert first["request"]["clientRequestToken"] != second["request"]["clientRequestToken"]
    overridden = build_payload(
        spec.normalized,
        Shape.HANDLER_REQUEST,
        defaults=PayloadDefaults(region="ap-south-1", type_name="Test::Cfn::Thing"),
        client_request_token="fixed",
        callback_context={"n": 1},
    )
    assert overridden["region"] == "ap-south-1"
    assert overridden["resourceType"] == "Test::Cfn::Thing"
    assert overridden["bearerToken"] == "fixed"
    assert overridden["callbackContext"] == {"n": 1}


@pytest.mark.parametrize("shape", [Shape.SAM, Shape.HANDLER_REQUEST])
def test_real_library_handler_accepts_built_payloads(shape) -> None:
    behaviour = Behaviour(in_progress_steps=1)
    resource = widget_resource(behaviour)
    spec = parse_event(SAM_EVENT, name="e")
    payload = build_payload(
        spec.normalized, shape, callback_context={"done": 0}, client_request_token="tok-9"
    )
    entry = resource.test_entrypoint if shape is Shape.SAM else resource
    answer = entry(payload, None)
    assert answer["status"] == "IN_PROGRESS", answer
    assert answer["callbackContext"] == {"done": 1}
    assert behaviour.seen == [
        {"context": {"done": 0}, "desired": {"Name": "w", "Size": 2}, "token": "tok-9"}
    ]


def test_shape_follows_the_handler() -> None:
    assert shape_for_handler("TestEntrypoint", "pkg.handlers.test_entrypoint") is Shape.SAM
    assert shape_for_handler("TypeFunction", "pkg.handlers.resource") is Shape.HANDLER_REQUEST
    assert shape_for_handler("TestEntrypoint", None) is Shape.SAM
    assert shape_for_handler("arn:aws:lambda:us-east-1:1:function:x", None) is (
        Shape.HANDLER_REQUEST
    )


def test_profile_credentials_come_from_boto3s_chain(monkeypatch, tmp_path) -> None:
    creds = tmp_path / "credentials"
    creds.write_text(
        "[dev]\naws_access_key_id = AKIADEVDEVDEVDEVDEV1\naws_secret_access_key = devsecret\n"
        "aws_session_token = devtoken\n"
    )
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(creds))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    assert resolve_credentials("dev") == {
        "accessKeyId": "AKIADEVDEVDEVDEVDEV1",
        "secretAccessKey": "devsecret",
        "sessionToken": "devtoken",
    }
    assert resolve_credentials(None) is None
    with pytest.raises(CfnDebugError) as caught:
        resolve_credentials("nope")
    assert caught.value.field == "--profile"


@pytest.mark.parametrize(("language", "rejected"), [("python39", True), ("typescript", False)])
def test_unknown_sam_keys_are_rejected_only_for_the_python_library(
    tmp_path: Path, language: str, rejected: bool
) -> None:
    # the TypeScript plugin's TestEvent drops keys it does not know (class-transformer,
    # excludeExtraneousValues); cloudformation-cli-python-lib fails the event on them
    (tmp_path / ".rpdk-config").write_text(json.dumps({"language": language}))
    data = {**SAM_EVENT, "awsAccountId": "123456789012"}
    data["request"] = {**SAM_EVENT["request"], "someday": 1}
    (tmp_path / "sam-tests").mkdir()
    path = write(tmp_path / "sam-tests", "create.json", data)
    if rejected:
        with pytest.raises(EventError, match="unknown key"):
            load_event(path)
        return
    spec = load_event(path)
    assert spec.action is Action.CREATE and spec.normalized.desired == {"Name": "w", "Size": 2}
    payload = convert(spec, Shape.SAM)
    # the keys the library would drop are not sent at all
    assert set(payload) == {"credentials", "action", "request", "callbackContext", "region"}
    assert "someday" not in payload["request"]
