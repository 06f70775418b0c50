"""A requested empty array or object may be left out of the returned model; anything else not."""

from __future__ import annotations

from cfn_debug.contract import check_step

from .test_rules import DESIRED, MODEL, ctx, progress


def _rules(original: dict, model: dict) -> list[str]:
    return [f.rule_id for f in check_step(ctx(progress(resourceModel=model), original=original))]


def test_requested_empty_collections_left_out_are_no_finding() -> None:
    assert "requested-properties-returned" not in _rules({**DESIRED, "Labels": []}, MODEL)


def test_requested_non_empty_collection_left_out_is_still_a_finding() -> None:
    assert "requested-properties-returned" in _rules({**DESIRED, "Labels": ["a"]}, MODEL)


def test_requested_empty_collection_returned_non_empty_is_a_finding() -> None:
    model = {**MODEL, "Labels": ["unrequested"]}
    assert "requested-properties-returned" in _rules({**DESIRED, "Labels": []}, model)
