"""The contract checks read the Go and Java plugins' answers as CloudFormation does: the Go
plugin's bearerToken is a field of its ProgressEvent (not a misspelling), its models hold every
scalar as a string (its encoding.Stringify), and a JVM's start is not the handler's time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfn_debug.contract import StepContext, check_step
from cfn_debug.records import Action, InvokeResult, OutcomeKind
from cfn_debug.schema import load_schema

SCHEMA = load_schema(Path(__file__).resolve().parents[2] / "fixtures" / "schemas" / "widget.json")
DESIRED = {"Name": "alpha", "Size": 3}


def _rules(event: dict[str, Any], *, duration_s: float = 0.2, start: float | None = None) -> set:
    result = InvokeResult(
        OutcomeKind.PROGRESS, duration_s=duration_s, progress=event, runtime_start_s=start
    )
    context = StepContext(
        schema=SCHEMA,
        action=Action.CREATE,
        index=0,
        desired=DESIRED,
        previous=None,
        original_desired=DESIRED,
        result=result,
        previous_steps=[],
    )
    return {(f.rule_id, f.level.value) for f in check_step(context)}


def _go_answer(size: Any) -> dict[str, Any]:
    model = {"WidgetId": "w-0123abcd", "Arn": "arn:widget", "Name": "alpha", "Size": size}
    return {"status": "SUCCESS", "resourceModel": model, "bearerToken": "t", "resourceModels": None}


def test_the_go_plugins_answer_is_clean_with_its_bearer_token_and_stringified_scalars() -> None:
    assert _rules(_go_answer(3)) == set()
    assert _rules(_go_answer("3")) == set()


def test_a_stringified_scalar_without_the_go_plugin_is_still_a_violation() -> None:
    answer = _go_answer("3")
    del answer["bearerToken"]
    assert ("model-conforms-to-schema", "MUST") in _rules(answer)


def test_a_real_difference_is_still_found_in_a_go_answer() -> None:
    assert ("requested-properties-returned", "MUST") in _rules(_go_answer("4"))
    assert ("model-conforms-to-schema", "MUST") in _rules(_go_answer("three"))


def test_the_jvms_start_does_not_count_against_the_limit() -> None:
    answer = {"status": "SUCCESS", "resourceModel": _go_answer(3)["resourceModel"]}
    assert ("invocation-time-limit", "MUST") in _rules(answer, duration_s=61.0)
    rules = {rule for rule, _ in _rules(answer, duration_s=61.0, start=2.0)}
    assert "invocation-time-limit" not in rules
    assert "invocation-time-warning" in rules  # 59 s of the handler's own: close to the limit
