"""Schemas as AWS writes them (tests/fixtures/schemas/aws_style/): ECMA-262 patterns, patterns
no engine compiles, catastrophic patterns, dangling pointers, shared and cyclic ``$ref``s.

Every model is checked through both paths a run uses (the compiled fast checks and jsonschema),
which must agree.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from cfn_debug.cli import main
from cfn_debug.diff import diff_models
from cfn_debug.schema import ResourceSchema, load_schema

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "schemas" / "aws_style"


def _load(name: str) -> ResourceSchema:
    return load_schema(FIXTURES / name)


def _errors(schema: ResourceSchema, model: dict[str, Any]) -> list[tuple[str, str]]:
    fast = schema.model_errors(model)
    slow = schema.slow_model_errors(model)
    assert fast == slow
    return slow


def test_java_style_surrogate_pair_range_means_every_astral_character() -> None:
    schema = _load("surrogate_range.json")
    assert _errors(schema, {"Id": "x", "Description": "emoji \U0001f600 and ü\tok"}) == []
    bad = _errors(schema, {"Id": "x", "Description": "bell \x07"})
    assert [p for p, _ in bad] == ["/Description"]
    assert schema.input_errors({"Description": "\U0010fffd"}) == []


def test_unicode_property_escapes_have_their_ecma_meaning() -> None:
    schema = _load("unicode_letters.json")
    good = {"Id": "x", "Tags": [{"Key": "Größe", "Value": "日本 ٣"}]}
    assert _errors(schema, good) == []
    bad = {"Id": "x", "Tags": [{"Key": "ok", "Value": "semi;colon"}]}
    assert [p for p, _ in _errors(schema, bad)] == ["/Tags/0/Value"]


@pytest.mark.timeout(60)
def test_catastrophic_pattern_is_matched_in_bounded_time() -> None:
    schema = _load("redos.json")
    value = "a" * 5000 + "!"
    started = time.perf_counter()
    errors = _errors(schema, {"Id": "x", "Name": value})
    assert [p for p, _ in errors] == ["/Name"]
    assert _errors(schema, {"Id": "x", "Name": "a" * 5000}) == []
    # a lookahead pattern that could blow up: checked on short values only
    assert [p for p, _ in _errors(schema, {"Id": "x", "Label": "-bad"})] == ["/Label"]
    assert _errors(schema, {"Id": "x", "Label": "a" * 40 + "!"}) == []  # not checked: a miss
    assert time.perf_counter() - started >= 0  # (the bound is pytest's timeout above)
    notes = [n for n in schema.notes if n.pointer == "/properties/Label/pattern"]
    assert [n.level for n in notes] == ["note"]


def test_pattern_no_engine_compiles_is_a_warning_and_the_rest_is_still_checked() -> None:
    schema = _load("uncompilable_pattern.json")
    [note] = schema.notes
    assert (note.pointer, note.level) == ("/properties/Code/pattern", "warning")
    assert "not an ECMA-262 regular expression" in note.message
    assert _errors(schema, {"Id": "x", "Code": "zzz"}) == []  # the pattern is not applied
    assert [p for p, _ in _errors(schema, {"Id": "x", "Code": "toolong"})] == ["/Code"]


def test_dangling_pointers_are_warnings_shown_once_not_refusals() -> None:
    schema = _load("dangling_pointer.json")
    pointers = sorted(n.pointer for n in schema.notes)
    assert pointers == ["/createOnlyProperties/1", "/writeOnlyProperties/0"]
    assert all(n.level == "warning" for n in schema.notes)
    assert "/Name" in schema.create_only
    assert "/Gone" not in schema.create_only  # "ignored", as the warning says: no finding on it
    assert "/Secret/Value" in schema.write_only  # still masked
    assert _errors(schema, {"Id": "x", "Name": "n"}) == []


def test_a_dangling_read_only_pointer_gives_no_finding(tmp_path: Path) -> None:
    """The warning says the pointer is ignored; read-only-properties-present asked for it."""
    from cfn_debug.contract import StepContext, check_step
    from cfn_debug.records import Action, InvokeResult, OutcomeKind

    raw = json.loads((FIXTURES / "dangling_pointer.json").read_text())
    raw["readOnlyProperties"] = ["/properties/Id", "/properties/NoSuchProperty"]
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(raw))
    schema = load_schema(path)
    assert [n.pointer for n in schema.notes if n.pointer.startswith("/readOnly")] == [
        "/readOnlyProperties/1"
    ]
    answer = {"status": "SUCCESS", "message": "", "resourceModel": {"Id": "x", "Name": "n"}}
    context = StepContext(
        schema=schema,
        action=Action.READ,
        index=0,
        desired={"Id": "x"},
        previous=None,
        original_desired=None,
        result=InvokeResult(OutcomeKind.PROGRESS, progress=answer, duration_s=0.1),
        previous_steps=[],
    )
    assert [f.rule_id for f in check_step(context)] == []


def test_thirty_levels_of_doubled_refs_load_without_exponential_inlining() -> None:
    path = FIXTURES / "ref_fanout.json"
    assert path.stat().st_size < 5000
    schema = load_schema(path)  # before: never finished (2**30 inlined copies)

    def tree(depth: int) -> Any:
        return "leaf" if depth == 0 else {"A": tree(depth - 1), "B": tree(depth - 1)}

    def at(depth: int) -> Any:
        node: Any = "leaf"
        for _ in range(depth):
            node = {"A": node}
        return node

    assert _errors(schema, {"Id": "x", "Tree": at(30)}) == []
    deep = at(30)
    node = deep
    for _ in range(29):
        node = node["A"]
    node["A"] = "too long"
    assert [p for p, _ in _errors(schema, {"Id": "x", "Tree": deep})] == ["/Tree" + "/A" * 30]
    assert _errors(schema, {"Id": "x", "Tree": {"A": tree(3)}}) != []  # 3 levels of 30: objects


def test_self_referential_and_mutually_recursive_properties_validate_at_any_depth() -> None:
    schema = _load("self_referential.json")
    assert [n for n in schema.notes if n.level != "note"] == []
    node: dict[str, Any] = {"Name": "leaf"}
    for level in range(60):
        node = {"Name": f"n{level}", "Children": [node]}
    assert _errors(schema, {"Id": "x", "Root": node}) == []
    inner = node
    for _ in range(59):
        inner = inner["Children"][0]
    inner["Children"][0]["Name"] = "much too long"
    errors = _errors(schema, {"Id": "x", "Root": node})
    assert [p for p, _ in errors] == ["/Root" + "/Children/0" * 60 + "/Name"]
    ping = {"Count": 1, "Pong": {"Count": 2, "Ping": {"Count": "three"}}}
    assert [p for p, _ in _errors(schema, {"Id": "x", "Ping": ping})] == ["/Ping/Pong/Ping/Count"]


def test_insertion_order_false_holds_at_any_depth_of_a_recursive_definition() -> None:
    schema = _load("self_referential.json")

    def chain(depth: int, leaves: list[str]) -> dict[str, Any]:
        node: dict[str, Any] = {"Name": "last", "Children": [{"Name": n} for n in leaves]}
        for level in range(depth):
            node = {"Name": f"n{level}", "Children": [node]}
        return node

    before = {"Id": "x", "Root": chain(40, ["a", "b"])}
    after = {"Id": "x", "Root": chain(40, ["b", "a"])}
    assert diff_models(before, after, schema) == []  # a reordered multiset, 41 levels down
    changed = diff_models(before, {"Id": "x", "Root": chain(40, ["b", "c"])}, schema)
    assert [c.kind.value for c in changed] == ["removed", "added"]  # "a" went, "c" came
    assert schema.is_unordered("/Root" + "/Children/0" * 40 + "/Children")


def test_schema_command_prints_one_line_per_problem(capsys) -> None:
    paths = [str(FIXTURES / n) for n in ("dangling_pointer.json", "uncompilable_pattern.json")]
    assert main(["schema", *paths]) == 0  # warnings only
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(f"{paths[0]}: /writeOnlyProperties/0: warning: ")
    assert lines[2].startswith(f"{paths[1]}: /properties/Code/pattern: warning: pattern ")


def test_schema_command_exit_codes_and_json(tmp_path, capsys) -> None:
    no_primary = tmp_path / "no_primary.json"
    no_primary.write_text(json.dumps({"typeName": "Org::Svc::Thing", "properties": {"X": {}}}))
    assert main(["schema", "--json", str(no_primary)]) == 1
    document = json.loads(capsys.readouterr().out)
    [report] = document["schemas"]
    assert report["loaded"] is True
    assert [p["pointer"] for p in report["problems"] if p["level"] == "error"] == [
        "/primaryIdentifier"
    ]
    assert document["errors"] == [
        f"{no_primary}: /primaryIdentifier: error: " + report["problems"][0]["message"]
    ]
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert main(["schema", str(broken)]) == 2
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"{broken}: /: error: invalid JSON at line 1")
    assert main(["schema", str(FIXTURES / "surrogate_range.json")]) == 0
