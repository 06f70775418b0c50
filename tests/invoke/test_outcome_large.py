"""A large answer is parsed with the cyclic collector held off (a 5 MB model's dicts would set
off ~80 collections): the outcome is what json.loads gives, and the collector is back on after
every outcome, a parse that raised included."""

from __future__ import annotations

import gc
import json

import pytest

from cfn_debug.invoke.outcome import _GC_PAUSE_MIN, classify
from cfn_debug.records import OutcomeKind

ITEMS = [{"Key": f"k{i}", "Value": "v" * 40, "Weight": i, "Big": 10**30} for i in range(2000)]
LARGE = json.dumps({"status": "IN_PROGRESS", "resourceModel": {"Items": ITEMS}}).encode()


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (LARGE, OutcomeKind.PROGRESS),
        (LARGE[:-1], OutcomeKind.NOT_JSON),  # cut short: json.loads raises
        (b"[" * 200_000 + b"]" * 200_000, OutcomeKind.NOT_JSON),  # RecursionError
        (b'{"status": "SUCCESS", "x": "' + b"\xff" * _GC_PAUSE_MIN + b'"}', OutcomeKind.NOT_JSON),
    ],
)
def test_a_large_answer_leaves_the_collector_on(body: bytes, kind: OutcomeKind) -> None:
    assert len(body) >= _GC_PAUSE_MIN and gc.isenabled()
    result = classify(body, duration_s=0.0)
    assert result.kind is kind
    assert gc.isenabled()
    if kind is OutcomeKind.PROGRESS:
        assert result.progress == json.loads(body)
        assert result.progress["resourceModel"]["Items"][5]["Big"] == 10**30  # an int still


def test_a_collector_turned_off_by_the_application_stays_off() -> None:
    gc.disable()
    try:
        classify(LARGE, duration_s=0.0)
        assert not gc.isenabled()
    finally:
        gc.enable()
