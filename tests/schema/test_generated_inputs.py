"""Scenario inputs generated from schemas whose patterns only ECMA-262 reads (hypothesis
generates with Python's re): no crash, and the values follow the pattern."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfn_debug.scenarios.generate import example_create
from cfn_debug.schema import schema_from_dict

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "schemas" / "aws_style"


@pytest.mark.parametrize("name", ["surrogate_range", "unicode_letters", "uncompilable_pattern"])
def test_required_properties_with_ecma_patterns_generate_valid_inputs(name: str) -> None:
    data = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    data["required"] = [k for k in data["properties"] if k != "Id"]
    schema = schema_from_dict(data)
    for _ in range(5):
        model = example_create(schema)  # before: hypothesis raised Unsatisfiable
        assert set(model) == set(data["required"])
        assert schema.input_errors(model) == []
