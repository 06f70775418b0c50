"""Client-side cost of the contract checks and the model diffs for one step.

Measures check_step (every step rule) plus the two diffs a step carries (request vs returned
model, previous step vs this one) for a SUCCESS CREATE step, at a ~2 KB and a ~5 MB model.
Budget (DESIGN.md section 7): the whole client-side step cost under 2 ms median at 2 KB and under
250 ms at 5 MB; these two are the largest part of it.

Run: python bench/contract.py
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any

from cfn_debug.contract import StepContext, check_step
from cfn_debug.diff import Encodings, diff_models
from cfn_debug.records import Action, InvokeResult, OutcomeKind, Step
from cfn_debug.schema import load_schema

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = load_schema(ROOT / "tests" / "fixtures" / "schemas" / "widget.json")


def model_of_size(target_bytes: int) -> dict[str, Any]:
    """A valid Widget model of about ``target_bytes`` of JSON, grown through its arrays."""
    model: dict[str, Any] = {
        "WidgetId": "w-0123abcd",
        "Arn": "arn:aws:widget:us-east-1:123456789012:widget/w-0123abcd",
        "Name": "bench-widget",
        "Size": 42,
        "Labels": [],
        "Tags": [],
        "Config": {"Mode": "safe", "Rules": []},
    }
    i = 0
    while len(json.dumps(model)) < target_bytes:
        for _ in range(max(1, target_bytes // 2000)):
            model["Labels"].append(f"label-{i:06d}")
            model["Tags"].append({"Key": f"key-{i:06d}", "Value": f"value-{i:06d}"})
            model["Config"]["Rules"].append(
                {"Name": f"rule-{i:06d}", "Ports": [80, 443, i % 60000 + 1]}
            )
            i += 1
    return model


def one_step(model: dict[str, Any]) -> float:
    desired = {k: v for k, v in model.items() if k not in ("WidgetId", "Arn")}
    returned = json.loads(json.dumps(model))
    returned["Config"]["Rules"].reverse()  # unordered: equal as a multiset
    previous_model = json.loads(json.dumps(model))
    previous = Step(
        0,
        Action.CREATE,
        "TypeFunction",
        {},
        InvokeResult(
            OutcomeKind.PROGRESS,
            0.1,
            {"status": "IN_PROGRESS", "resourceModel": previous_model, "callbackDelaySeconds": 0},
        ),
        "now",
        60.0,
    )
    result = InvokeResult(
        OutcomeKind.PROGRESS,
        0.1,
        {"status": "SUCCESS", "message": "", "callbackDelaySeconds": 0, "resourceModel": returned},
    )
    start = time.perf_counter()
    # as chain.build_step does: one Encodings shared by the step's checks and diffs
    encodings = Encodings()
    ctx = StepContext(
        SCHEMA,
        Action.CREATE,
        1,
        previous_model,
        None,
        desired,
        result,
        [previous],
        encodings=encodings,
    )
    findings = check_step(ctx)
    diff_models(desired, returned, SCHEMA, encodings=encodings)
    diff_models(previous_model, returned, SCHEMA, encodings=encodings)
    elapsed = time.perf_counter() - start
    if findings:
        raise SystemExit(f"unexpected findings: {findings[:3]}")
    return elapsed


def measure(size: int, runs: int) -> None:
    model = model_of_size(size)
    actual = len(json.dumps(model))
    one_step(model)  # warm the validators' caches
    times = [one_step(model) for _ in range(runs)]
    print(
        f"check_step + 2 diffs, {actual / 1024:,.1f} KiB model: median "
        f"{statistics.median(times) * 1000:.3f} ms, max {max(times) * 1000:.3f} ms over {runs} runs"
    )


if __name__ == "__main__":
    measure(2_000, 500)
    measure(5_000_000, 5)
