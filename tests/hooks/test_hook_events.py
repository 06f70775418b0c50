"""Hook projects, events and settings as cfn-debug reads them: the CLI's input naming, both wire
shapes of a hook request, the CLI's type configuration format, generated target models, and
one-line errors naming the file and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfn_debug.errors import CfnDebugError
from cfn_debug.events import Shape
from cfn_debug.hooks.events import (
    EXPECT_ALLOWED,
    EXPECT_REFUSED,
    input_kind,
    parse_hook_event,
)
from cfn_debug.hooks.payload import build_hook_payload
from cfn_debug.hooks.project import find_hook_events, hook_settings, is_hook_project
from cfn_debug.hooks.schema import hook_model_from_configuration, hook_schema_from, load_hook_schema

PROJECTS = Path(__file__).parent / "projects"
BUCKET = PROJECTS / "bucket-check"


def test_input_names_follow_the_cli() -> None:
    assert input_kind("inputs_1_pre_create.json") == (1, "pre_create")
    assert input_kind("inputs_2_invalid_pre_update.json") == (2, "invalid_pre_update")
    assert input_kind("inputs_3_invalid.json") == (3, "invalid")
    assert input_kind("inputs_1_create.json") is None


def test_the_fixture_is_a_hook_project_and_its_inputs_carry_expectations() -> None:
    schema_path = BUCKET / "cfndebug-test-bucketcheck.json"
    assert is_hook_project(json.loads((BUCKET / ".rpdk-config").read_text()), schema_path)
    schema = load_hook_schema(schema_path)
    assert schema.points == ["CREATE_PRE_PROVISION", "UPDATE_PRE_PROVISION", "DELETE_PRE_PROVISION"]
    assert schema.has_wildcards("DELETE_PRE_PROVISION")
    events, errors = find_hook_events(BUCKET, schema)
    assert errors == []
    by_name = {e.name: e for e in events}
    create = by_name["inputs/inputs_1_pre_create AWS::S3::Bucket"]
    assert create.expect == EXPECT_ALLOWED
    # inputs_N_invalid serves every point without its own invalid file (the CLI's fallback)
    assert by_name["inputs/inputs_1_invalid pre_update AWS::S3::Bucket"].expect == EXPECT_REFUSED
    assert by_name["inputs/inputs_1_invalid_pre_delete AWS::S3::Bucket"].expect == EXPECT_REFUSED
    assert "inputs/inputs_1_invalid pre_delete AWS::S3::Bucket" not in by_name
    # the wildcard's other type gets generated models, with no expectation
    generated = [e for e in events if e.name.startswith("generated/")]
    assert generated and all(e.expect is None for e in generated)
    assert {e.target_name for e in generated} == {"AWS::S3::BucketPolicy"}


def test_both_wire_shapes_are_built_as_the_cli_and_the_library_take_them() -> None:
    event = parse_hook_event(
        json.loads((BUCKET / "sample_events" / "pre-create-unencrypted.json").read_text()),
        name="e",
    )
    assert event.shape is Shape.HANDLER_REQUEST and event.hook_model == {
        "RequireVersioning": "false"
    }
    lambda_request = build_hook_payload(
        event,
        Shape.HANDLER_REQUEST,
        hook_type_name="A::B::C",
        hook_model={"x": "1"},
        token="t",
        callback_context={"n": 1},
        invocation=2,
    )
    assert lambda_request["requestContext"] == {"invocation": 2, "callbackContext": {"n": 1}}
    assert isinstance(lambda_request["requestData"]["callerCredentials"], str)  # JSON text
    assert "region" not in lambda_request  # a hook request carries none
    assert lambda_request["requestData"]["targetLogicalId"] == "LogsBucket"
    test_event = build_hook_payload(
        event,
        Shape.SAM,
        hook_type_name="A::B::C",
        hook_model={"x": "1"},
        token="t",
        callback_context=None,
        invocation=1,
    )
    # exactly the keys the library's HookTestEvent takes (any other is refused)
    assert set(test_event) == {
        "credentials",
        "actionInvocationPoint",
        "request",
        "callbackContext",
        "typeConfiguration",
        "region",
    }
    assert test_event["request"]["targetModel"] == {"resourceProperties": {"BucketName": "logs"}}
    lambda_hook = build_hook_payload(
        event,
        Shape.HANDLER_REQUEST,
        hook_type_name="A::B::C",
        hook_model=None,
        token="t",
        callback_context=None,
        invocation=1,
        lambda_hook=True,
    )
    assert "callerCredentials" not in lambda_hook["requestData"]


def test_settings_come_from_properties_of_the_cli_format() -> None:
    cli = {
        "CloudFormationConfiguration": {
            "HookConfiguration": {
                "TargetStacks": "ALL",
                "FailureMode": "FAIL",
                "Properties": {"RequireVersioning": "true"},
            }
        }
    }
    assert hook_model_from_configuration(cli) == {"RequireVersioning": "true"}
    assert hook_model_from_configuration({"RequireVersioning": "true"}) == {
        "RequireVersioning": "true"
    }
    with pytest.raises(CfnDebugError, match="HookConfiguration"):
        hook_model_from_configuration({"CloudFormationConfiguration": {}})
    schema = load_hook_schema(BUCKET / "cfndebug-test-bucketcheck.json")
    defaults = (
        hook_settings(schema, None)
        if not Path("~/.cfn-cli/typeConfiguration.json").expanduser().exists()
        else None
    )
    if defaults is not None:
        assert defaults.model == {"RequireVersioning": "false"}
    assert hook_settings(schema, json.dumps(cli)).model == {"RequireVersioning": "true"}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"actionInvocationPoint": "CREATE", "requestData": {}}, "actionInvocationPoint"),
        (
            {"actionInvocationPoint": "CREATE_PRE_PROVISION", "requestData": {}},
            "requestData/targetName",
        ),
        (
            {
                "actionInvocationPoint": "CREATE_PRE_PROVISION",
                "requestData": {"targetName": "A::B::C", "targetModel": []},
            },
            "requestData/targetModel",
        ),
    ],
)
def test_a_bad_request_file_is_one_line_naming_the_field(data: dict, field: str) -> None:
    with pytest.raises(CfnDebugError) as caught:
        parse_hook_event(data, name="x", path=Path("sample_events/x.json"))
    assert caught.value.field == field and "\n" not in str(caught.value)


def test_a_bad_hook_schema_names_the_field() -> None:
    with pytest.raises(CfnDebugError) as caught:
        hook_schema_from(
            {"typeName": "A::B::C", "handlers": {"preCreate": {"targetNames": "AWS::S3::Bucket"}}},
            None,
        )
    assert caught.value.field == "handlers/preCreate/targetNames"


def test_generated_target_models_are_valid_against_the_target_schema() -> None:
    pytest.importorskip("cfnlint")
    from cfn_debug.hooks.targets import generated_models, target_schema
    from cfn_debug.schema import schema_from_dict

    for type_name in ("AWS::S3::Bucket", "AWS::DynamoDB::Table", "AWS::SQS::Queue"):
        schema = schema_from_dict(target_schema(type_name), strict=False)
        for label, model in generated_models(type_name).items():
            assert schema.input_errors(model) == [], (type_name, label)
    assert generated_models("AWS::S3::Bucket")["full"]["BucketEncryption"]


def test_the_schema_command_reads_a_hook_schema(tmp_path: Path) -> None:
    from cfn_debug.schema.command import check_schema_file

    report = check_schema_file(BUCKET / "cfndebug-test-bucketcheck.json")
    assert report.loaded and report.type_name == "CfnDebug::Test::BucketCheck"
    assert report.notes == []
    broken = tmp_path / "hook.json"
    broken.write_text(
        json.dumps(
            {
                "typeName": "A::B::Hook",
                "handlers": {"preCreate": {"targetNames": ["AWS::S3::Buckets"], "permissions": []}},
            }
        )
    )
    report = check_schema_file(broken)
    assert [(n.pointer, n.level) for n in report.notes] == [
        ("/handlers/preCreate/targetNames/0", "warning")
    ]
