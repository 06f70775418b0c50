"""{{ExportName}} placeholders: filled as `cfn test` fills them, and never sent unfilled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfn_debug.aws.placeholders import (
    PATTERN,
    Exports,
    PlaceholderError,
    fill,
    fill_data,
    parse_export_options,
)
from cfn_debug.errors import CfnDebugError
from cfn_debug.events import load_event
from cfn_debug.project import discover_project
from cfn_debug.records import Action
from cfn_debug.scenarios.inputs import make_unique, resolve_inputs
from cfn_debug.schema import load_schema

from .conftest import TABLE_NOTE

EXPORTS = {"Bucket": "my-bucket", "Queue:Arn": "arn:aws:sqs:us-east-1:1:q", "Num": "7"}


def test_whole_partial_spaced_and_key_placeholders_are_filled() -> None:
    data = {
        "A": "{{Bucket}}",
        "B": "s3://{{ Bucket }}/key",
        "C": ["{{Queue:Arn}}", 3, None, {"{{Bucket}}": "{{Num}}"}],
    }
    out, filled = fill(data, Exports(EXPORTS), path="x.json")
    assert out == {
        "A": "my-bucket",
        "B": "s3://my-bucket/key",
        "C": ["arn:aws:sqs:us-east-1:1:q", 3, None, {"my-bucket": "7"}],
    }
    assert [(f.pointer, f.name) for f in filled][:3] == [
        ("/A", "Bucket"),
        ("/B", "Bucket"),
        ("/C/0", "Queue:Arn"),
    ]


def test_the_same_values_as_cfn_test_fills() -> None:
    """rpdk's own substitution over the file's text gives the same model."""
    from rpdk.core.test import _stub_exports

    text = json.dumps({"Name": "{{Bucket}}", "Url": "https://{{ Bucket }}.example/{{Num}}"})
    expected = json.loads(_stub_exports(text, EXPORTS, PATTERN.pattern))
    assert fill_data(json.loads(text), Exports(EXPORTS), path=None) == expected


def test_an_unresolved_placeholder_names_the_file_the_pointer_and_the_placeholder() -> None:
    with pytest.raises(PlaceholderError) as caught:
        fill({"Outer": {"In/ner": ["ok", "x-{{Missing}}"]}}, Exports(EXPORTS), path="in.json")
    message = str(caught.value)
    assert message.startswith("in.json: /Outer/In~1ner/1: unresolved placeholder {{Missing}}")
    assert "--export Missing=VALUE" in message
    assert "\n" not in message


def test_without_any_exports_the_message_says_how_to_get_them() -> None:
    with pytest.raises(PlaceholderError, match=r"--local-aws.*--profile.*--export"):
        fill(["{{Bucket}}"], None, path="e.json")


def test_data_without_placeholders_is_returned_as_it_is_and_the_loader_never_runs() -> None:
    calls: list[int] = []
    exports = Exports(loader=lambda: calls.append(1) or {})  # type: ignore[func-returns-value]
    data = {"A": "{not one}", "B": "{{}}", "C": "{{bad name!}}"}
    assert fill(data, exports, path=None)[0] is data
    assert calls == []


def test_by_hand_values_win_and_the_loader_runs_once_when_needed() -> None:
    calls: list[int] = []

    def loader() -> dict[str, str]:
        calls.append(1)
        return {"Bucket": "listed", "Other": "o"}

    exports = Exports({"Bucket": "mine"}, loader=loader)
    assert fill_data(["{{Bucket}}"], exports, path=None) == ["mine"]
    assert calls == []
    assert fill_data(["{{Other}}", "{{Other}}"], exports, path=None) == ["o", "o"]
    assert calls == [1]


def test_export_options() -> None:
    assert parse_export_options(["A=1", "B=x=y", "A=2"]) == {"A": "2", "B": "x=y"}
    for bad in ("novalue", "=v", "bad name=v"):
        with pytest.raises(CfnDebugError, match="--export"):
            parse_export_options([bad])


def test_project_events_and_inputs_are_filled_or_kept_as_errors() -> None:
    exports = Exports({"CfnDebugFixtureNotesTable": "notes"})
    project = discover_project(TABLE_NOTE, exports=exports)
    assert not project.event_errors
    creates = [e for e in project.events if e.name == "inputs/inputs_1_create"]
    assert creates[0].normalized.desired["TableName"] == "notes"
    unfilled = discover_project(TABLE_NOTE)
    assert len(unfilled.event_errors) == 3
    assert all("{{CfnDebugFixtureNotesTable}}" in str(e) for e in unfilled.event_errors)
    assert all(e.field == "/TableName" for e in unfilled.event_errors)


def test_scenario_inputs_keep_values_of_pre_existing_resources() -> None:
    exports = Exports({"CfnDebugFixtureNotesTable": "notes"})
    project = discover_project(TABLE_NOTE, exports=exports)
    schema = load_schema(project.schema_path)
    inputs = resolve_inputs(project, schema)
    assert inputs.create["TableName"] == "notes"
    assert inputs.unique_exempt == frozenset({"/TableName"})
    assert inputs.overrides == {"CREATE": {"/TableName": "notes"}}  # generated inputs get it too
    unique, changed = make_unique(schema, inputs.create, "abc123", inputs.unique_exempt)
    assert unique["TableName"] == "notes"
    assert changed["Title"] == "contract-note-abc123"


def test_overrides_json_is_filled(tmp_path: Path) -> None:
    from cfn_debug.scenarios.inputs import read_overrides

    (tmp_path / "overrides.json").write_text('{"CREATE": {"/TableName": "{{ T }}"}}')
    assert read_overrides(tmp_path, Exports({"T": "t1"})) == {"CREATE": {"/TableName": "t1"}}
    with pytest.raises(PlaceholderError, match=r"overrides\.json: /CREATE/~1TableName"):
        read_overrides(tmp_path, None)


def test_run_takes_inputs_files_as_events() -> None:
    exports = Exports({"CfnDebugFixtureNotesTable": "notes"})
    update = load_event(TABLE_NOTE / "inputs" / "inputs_1_update.json", exports=exports)
    assert update.action is Action.UPDATE
    assert update.normalized.desired["Text"] == "updated by the contract tests"
    assert update.normalized.previous["Text"] == "written by the contract tests"
    assert update.normalized.previous["TableName"] == "notes"
    invalid = load_event(TABLE_NOTE / "inputs" / "inputs_1_invalid.json", exports=exports)
    assert invalid.action is Action.CREATE
    with pytest.raises(PlaceholderError):
        load_event(TABLE_NOTE / "inputs" / "inputs_1_create.json")


def test_exports_that_cannot_be_listed_fail_once_not_per_file() -> None:
    calls: list[int] = []

    def loader() -> dict[str, str]:
        calls.append(1)
        raise CfnDebugError("cannot list the CloudFormation exports", field="--profile")

    exports = Exports(loader=loader)
    for _ in range(3):
        with pytest.raises(CfnDebugError, match="cannot list"):
            fill_data(["{{Anything}}"], exports, path=None)
    assert calls == [1]


# --- a placeholder outside a JSON string ("Count": {{Count}}) -------------------------------------

BARE = '{\n  "Name": "{{Bucket}}-x",\n  "Count": {{ Num }},\n  "Rules": [{{Rule}}, "{{Num}}"]\n}\n'
BARE_EXPORTS = {**EXPORTS, "Rule": '{"Days": 3}'}


def test_a_placeholder_outside_a_string_is_filled_as_cfn_test_fills_it(tmp_path: Path) -> None:
    """`cfn test` puts the export's text where the placeholder stands, so "Count": {{Num}} is
    the number 7 and [{{Rule}}] holds the object; the same file gives the same model here
    (it used to be 'invalid JSON at line 3')."""
    from rpdk.core.test import _stub_exports

    from cfn_debug.aws.placeholders import read_json_filled

    path = tmp_path / "inputs_1_create.json"
    path.write_text(BARE)
    expected = json.loads(_stub_exports(BARE, BARE_EXPORTS, PATTERN.pattern))
    data, filled = read_json_filled(path, Exports(BARE_EXPORTS))
    assert data == expected == {"Name": "my-bucket-x", "Count": 7, "Rules": [{"Days": 3}, "7"]}
    assert sorted((f.pointer, f.name) for f in filled) == [
        ("/Count", "Num"),
        ("/Name", "Bucket"),
        ("/Rules/0", "Rule"),
        ("/Rules/1", "Num"),
    ]
    event = load_event(path, exports=Exports(BARE_EXPORTS))
    assert event.normalized.desired["Count"] == 7


def test_an_export_that_is_no_json_value_outside_a_string_says_to_quote_it(tmp_path: Path) -> None:
    path = tmp_path / "inputs_1_create.json"
    path.write_text('{"Count": {{Bucket}}}')
    with pytest.raises(PlaceholderError) as caught:
        load_event(path, exports=Exports(EXPORTS))
    message = str(caught.value)
    assert message.startswith(f"{path}: /Count: {{{{Bucket}}}} stands outside a JSON string")
    assert "'my-bucket'" in message and '"{{Bucket}}" (in quotes)' in message
    with pytest.raises(PlaceholderError, match=r"/Count: unresolved placeholder \{\{Bucket\}\}"):
        load_event(path, exports=None)


def test_a_file_that_is_no_json_for_another_reason_keeps_its_error(tmp_path: Path) -> None:
    path = tmp_path / "inputs_1_create.json"
    path.write_text('{"Count": {{Num}}, "Name": nope}')
    with pytest.raises(CfnDebugError, match=r"invalid JSON at line 1, column 28: Expecting value"):
        load_event(path, exports=Exports(EXPORTS))


def test_scenario_inputs_keep_a_bare_placeholder_value_unchanged(tmp_path: Path) -> None:
    """A value from an export names something that exists: no unique suffix, and generated
    inputs get it too, whether the placeholder was quoted or not."""
    project_dir = tmp_path / "table-note"
    import shutil

    shutil.copytree(TABLE_NOTE, project_dir, ignore=shutil.ignore_patterns("build"))
    create = project_dir / "inputs" / "inputs_1_create.json"
    data = json.loads(create.read_text())
    text = json.dumps({**data, "TableName": "@T@"}).replace('"@T@"', "{{Table}}")
    create.write_text(text)
    exports = Exports({"Table": '"notes"', "CfnDebugFixtureNotesTable": "notes"})
    project = discover_project(project_dir, exports=exports)
    inputs = resolve_inputs(project, load_schema(project.schema_path))
    assert inputs.create["TableName"] == "notes"
    assert "/TableName" in inputs.unique_exempt
