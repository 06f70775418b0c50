"""Strings from a schema (property names, pointers, the file's name) reach the terminal only
made printable and on one line: in `cfn-debug schema` (text and --json) and in `run`'s
"schema warning:" lines. A real `cfn-debug schema` process on a hostile file, and a property
over schemas whose names are hostile text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from cfn_debug.schema import load_schema
from cfn_debug.schema.command import check_schema_file, format_line, schema_warning_lines
from cfn_debug.text.terminal import is_printable
from reliability.support import REPO, child_env
from reliability.test_property_hostile_text import hostile_text

ESC_NAME = "ev\x1b[2Jil\x9b31m.json"


def hostile_schema(name: str) -> dict[str, object]:
    return {
        "typeName": "Aa::Bb::Cc",
        "description": "d",
        "properties": {
            name: {"type": "strin", "pattern": "(" + name},
            "Id": {"type": "string"},
        },
        "primaryIdentifier": ["/properties/Id"],
        "readOnlyProperties": [f"/properties/{name}x", "/properties/Id"],
        "additionalProperties": False,
    }


def safe_line(line: str) -> bool:
    return is_printable(line) and "\n" not in line and "\t" not in line


def test_cfn_debug_schema_prints_a_hostile_file_harmlessly(tmp_path: Path) -> None:
    path = tmp_path / ESC_NAME
    path.write_text(json.dumps(hostile_schema("X\x1b]52;c;QUFBQQ==\x07\n0: error: forged")))
    for extra in ([], ["--json"]):
        done = subprocess.run(
            [sys.executable, "-m", "cfn_debug.cli", "schema", *extra, str(path)],
            capture_output=True,
            text=True,
            env=child_env(),
            cwd=REPO,
            timeout=120,
        )
        assert done.returncode in (0, 1), done.stderr[-2000:]
        assert done.stdout.strip(), done.stderr[-2000:]
        for line in done.stdout.splitlines() + done.stderr.splitlines():
            assert is_printable(line), (extra, line)
        if not extra:
            assert not any(
                "forged" in line and line.startswith("0:") for line in done.stdout.splitlines()
            )
    assert os.path.exists(path)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=hostile_text.filter(lambda text: text != "" and text != "Id"))
def test_every_schema_line_is_printable_and_one_line(tmp_path: Path, name: str) -> None:
    file_name = "".join(c for c in name if c not in "/\x00" and not 0xD800 <= ord(c) <= 0xDFFF)
    path = tmp_path / ((file_name or "s")[:60] + ".json")
    path.write_text(json.dumps(hostile_schema(name)), encoding="utf-8")
    report = check_schema_file(path)
    for note in report.notes:
        line = format_line(report, note)
        assert safe_line(line), line
    try:
        schema = load_schema(path, strict=False)
    except Exception:
        return
    lines = schema_warning_lines(schema)
    assert lines  # the unknown type, the pattern, the dangling pointer: warnings to print
    for line in lines:
        assert safe_line(line), line
