"""Reading a project's functions from template.yml / template.yaml / .rpdk-config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfn_debug.endpoint.template import FunctionSpec, load_functions
from cfn_debug.errors import ProjectError

from .conftest import BASIC


def _write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_fixture_template_with_globals_tags_and_build_fallback():
    functions = load_functions(BASIC)
    assert "EchoRole" not in functions  # not a function
    echo = functions["Echo"]
    assert echo == FunctionSpec(
        name="Echo",
        handler="handlers.echo",
        code_dir=(BASIC / "src").resolve(),
        timeout_s=5.0,
        memory_mb=128,
        runtime="python3.11",
        environment={"FROM_GLOBALS": "globals", "OVERRIDDEN": "globals"},
    )
    env = functions["Environment"]
    assert env.memory_mb == 512
    assert env.environment == {
        "FROM_GLOBALS": "globals",
        "OVERRIDDEN": "function",
        "FROM_SUB": "${AWS::Region}-thing",
    }
    assert functions["Sleep"].timeout_s == 1.0


def test_sam_defaults_and_template_yaml(tmp_path):
    (tmp_path / "code").mkdir()
    _write(
        tmp_path,
        "template.yaml",
        "Resources:\n  F:\n    Type: AWS::Serverless::Function\n"
        "    Properties:\n      Handler: app.h\n      CodeUri: code\n",
    )
    spec = load_functions(tmp_path)["F"]
    assert (spec.timeout_s, spec.memory_mb, spec.runtime, spec.environment) == (3.0, 128, None, {})
    assert spec.code_dir == (tmp_path / "code").resolve()


def test_timeout_and_memory_given_as_intrinsics_take_their_largest_branch(tmp_path):
    """A published type's template: ``MemorySize: !If [DebugMode, 1024, 512]`` in Globals (the
    tag dropped: a list), a long-form Fn::If timeout, and a Ref nothing here can resolve."""
    (tmp_path / "code").mkdir()
    _write(
        tmp_path,
        "template.yml",
        "Globals:\n  Function:\n    MemorySize: !If [DebugMode, 1024, 512]\n"
        "Resources:\n  F:\n    Type: AWS::Serverless::Function\n"
        "    Properties: {Handler: app.h, CodeUri: code, Timeout: {'Fn::If': [Slow, 900, 60]}}\n"
        "  G:\n    Type: AWS::Serverless::Function\n"
        "    Properties: {Handler: app.h, CodeUri: code, Timeout: {Ref: T}, MemorySize: [99999]}\n",
    )
    functions = load_functions(tmp_path)
    assert (functions["F"].timeout_s, functions["F"].memory_mb) == (900.0, 1024)
    # nothing in bounds: the contract's 60 s for the timeout, SAM's 128 MB for the memory
    assert (functions["G"].timeout_s, functions["G"].memory_mb) == (60.0, 128)


def test_an_existing_build_dir_is_used(tmp_path):
    (tmp_path / "build").mkdir()
    (tmp_path / "src").mkdir()
    _write(
        tmp_path,
        "template.yml",
        "Resources:\n  F:\n    Type: AWS::Serverless::Function\n"
        "    Properties: {Handler: app.h, CodeUri: build/}\n",
    )
    assert load_functions(tmp_path)["F"].code_dir == (tmp_path / "build").resolve()


def test_rpdk_config_entrypoints(tmp_path):
    (tmp_path / "src").mkdir()
    _write(
        tmp_path,
        ".rpdk-config",
        json.dumps(
            {
                "typeName": "A::B::C",
                "runtime": "python3.11",
                "entrypoint": "a_b_c.handlers.resource",
                "testEntrypoint": "a_b_c.handlers.test_entrypoint",
            }
        ),
    )
    functions = load_functions(tmp_path)
    assert functions["TypeFunction"].handler == "a_b_c.handlers.resource"
    assert functions["TestEntrypoint"].handler == "a_b_c.handlers.test_entrypoint"
    assert functions["TypeFunction"].code_dir == (tmp_path / "src").resolve()
    assert functions["TypeFunction"].runtime == "python3.11"


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        (
            "Resources:\n  F:\n    Type: AWS::Serverless::Function\n    Properties: {CodeUri: .}\n",
            "Resources.F.Properties.Handler",
            "expected a handler",
        ),
        (
            "Resources:\n  F:\n    Type: AWS::Serverless::Function\n"
            "    Properties: {Handler: a.b, Timeout: soon}\n",
            "Resources.F.Properties.Timeout",
            "expected a number",
        ),
        (
            "Resources:\n  F:\n    Type: AWS::Serverless::Function\n"
            "    Properties: {Handler: a.b, CodeUri: nowhere/}\n",
            "Resources.F.Properties.CodeUri",
            "does not exist",
        ),
        (
            "Resources:\n  F:\n    Type: AWS::Serverless::Function\n"
            "    Properties: {Handler: a.b, CodeUri: {Bucket: b, Key: k}}\n",
            "Resources.F.Properties.CodeUri",
            "expected a local directory",
        ),
        (
            "Resources:\n  F:\n    Type: AWS::Serverless::Function\n"
            "    Properties: {Handler: a.b, Environment: {Variables: [1]}}\n",
            "Resources.F.Properties.Environment.Variables",
            "expected a mapping",
        ),
        ("Resources:\n  R:\n    Type: AWS::S3::Bucket\n", "Resources", "no AWS::Serverless"),
        ("Globals: 3\nResources: {}\n", "Globals", "expected a mapping"),
        ("Resources: [\n", None, "expected YAML"),
    ],
)
def test_bad_templates_name_the_file_and_the_field(tmp_path, text, field, expected):
    path = _write(tmp_path, "template.yml", text)
    with pytest.raises(ProjectError) as error:
        load_functions(tmp_path)
    assert error.value.path == str(path)
    assert error.value.field == field
    assert expected in error.value.detail


def test_bad_rpdk_config(tmp_path):
    (tmp_path / "src").mkdir()
    path = _write(tmp_path, ".rpdk-config", json.dumps({"entrypoint": 3}))
    with pytest.raises(ProjectError) as error:
        load_functions(tmp_path)
    assert (error.value.path, error.value.field) == (str(path), "entrypoint")


def test_no_project_at_all(tmp_path):
    with pytest.raises(ProjectError) as error:
        load_functions(tmp_path)
    assert error.value.path == str(tmp_path)


def test_files_that_are_not_utf8_are_typed_errors(tmp_path):
    from cfn_debug.endpoint.env_vars import load_env_vars
    from cfn_debug.errors import EndpointError

    template = tmp_path / "template.yml"
    template.write_bytes(b"Resources: \xff\n")
    with pytest.raises(ProjectError) as error:
        load_functions(tmp_path)
    assert error.value.path == str(template)
    assert "expected UTF-8" in error.value.detail

    env_file = tmp_path / "env.json"
    env_file.write_bytes(b"\xff\xfe{}")
    with pytest.raises(EndpointError) as env_error:
        load_env_vars(str(env_file))
    assert env_error.value.path == str(env_file)
    assert "expected UTF-8" in env_error.value.detail
