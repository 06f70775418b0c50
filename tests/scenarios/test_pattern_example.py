"""Identifier parts drawn from their pattern without Hypothesis (scenarios.pattern_example):
every answer matches, anything the drawing does not cover is left to Hypothesis (None)."""

from __future__ import annotations

import re

import pytest

from cfn_debug.scenarios.generate import fresh_identifier
from cfn_debug.scenarios.pattern_example import pattern_example
from cfn_debug.schema import load_schema
from conftest import DEMO

DRAWN = [
    "^wdg-[a-z0-9]{8,16}$",
    "^[a-z][a-z0-9-]{2,62}$",
    r"^\d{3}(-\w+)?$",
    "^(note|memo)-[A-F0-9]{4,}$",
    "^[A-Za-z0-9_.-]{3,255}$",
    "^arn:aws[a-z-]*:sqs:[a-z0-9-]+:[0-9]{12}:.+$",
]
LEFT = ["^(?!aws:).+$", "^[^/]+$", r"^(a)\1$"]


@pytest.mark.parametrize("pattern", DRAWN)
def test_a_drawn_string_matches_its_pattern(pattern: str) -> None:
    drawn = {pattern_example(pattern) for _ in range(20)}
    assert None not in drawn
    assert all(re.fullmatch(pattern.strip("^$"), text) for text in drawn)  # type: ignore[arg-type]
    assert len(drawn) > 15  # random: two scenarios of a run do not meet


@pytest.mark.parametrize("pattern", LEFT)
def test_what_is_not_drawn_is_left_to_hypothesis(pattern: str) -> None:
    assert pattern_example(pattern) is None


def test_the_demo_s_fresh_widget_id_is_valid_and_new() -> None:
    schema = load_schema(DEMO / "cfndebug-demo-widget.json")
    (pointer,) = schema.primary_identifier
    values = [fresh_identifier(schema, (pointer,))[pointer] for _ in range(5)]
    assert all(re.fullmatch("wdg-[a-z0-9]{8,16}", v) for v in values)
    assert len(set(values)) == 5
