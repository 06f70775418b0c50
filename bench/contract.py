"""Client-side cost of the contract checks and the model diffs for one step.

Measures check_step (every step rule) plus the two diffs a step carries (request vs returned
model, previous step vs this one) for a SUCCESS CREATE step, the way chain.build_step runs
them (one Encodings shared by the step), at a ~2 KB and a ~5 MB model. The model is new at
every step: parsed afresh from the handler's JSON (and the request from its own), with one Tag
value, one Label and the order of the insertionOrder-false Rules changed from the step before,
so nothing can be reused by identity or by whole-model equality.

Each figure is printed twice, side by side in one run: with the schema patterns on the ECMA-262
engines (schema.ecma_regex, what cfn-debug uses) and on Python's ``re`` (what it used before;
the fixture's patterns mean the same in both). The CPU time of the process is printed beside
the wall time: on a shared machine it is the steadier figure. Targets (DESIGN.md section 7 and
issue 14): the whole client-side step cost under 0.5 ms median at 2 KB and under 100 ms at
5 MB; the checks and diffs measured here are the largest part of it (bench/engine.py
measures the whole).

Run: python bench/contract.py [--runs-5mb N]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from cfn_debug.contract import StepContext, check_step
from cfn_debug.diff import Encodings, diff_models
from cfn_debug.records import Action, InvokeResult, OutcomeKind, Step
from cfn_debug.schema import ecma_regex, load_schema
from cfn_debug.schema import fastcheck as schema_fastcheck
from cfn_debug.schema import model as schema_module

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_PATH = ROOT / "tests" / "fixtures" / "schemas" / "widget.json"
TARGETS_MS = {"2 KB": 0.5, "5 MB": 100.0}


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


def answer_for_step(model: dict[str, Any], step: int) -> bytes:
    """The handler's answer at ``step``: the model with a few values changed (not timed)."""
    changed = json.loads(json.dumps(model))
    tags, labels = changed["Tags"], changed["Labels"]
    tags[step % len(tags)]["Value"] = f"changed-at-{step}"
    labels[(step * 7) % len(labels)] = f"label-at-{step}"
    if step % 2:
        changed["Config"]["Rules"].reverse()  # unordered: equal as a multiset
    return orjson.dumps(
        {"status": "SUCCESS", "message": "", "callbackDelaySeconds": 0, "resourceModel": changed}
    )


def one_step(schema: Any, previous_answer: bytes, answer: bytes) -> tuple[float, float]:
    """One step: the request asked for this step's values (an update of a few of them); the
    previous step returned the model before the change."""
    previous_model = json.loads(previous_answer)["resourceModel"]
    requested = json.loads(answer)["resourceModel"]
    desired = {k: v for k, v in requested.items() if k not in ("WidgetId", "Arn")}
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
    body = json.loads(answer)  # parsed afresh, as the invoker does (not timed here)
    result = InvokeResult(OutcomeKind.PROGRESS, 0.1, body)
    returned = body["resourceModel"]
    start, cpu_start = time.perf_counter(), time.process_time()
    # as chain.build_step does: one Encodings shared by the step's checks and diffs
    encodings = Encodings()
    ctx = StepContext(
        schema,
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
    diff_models(desired, returned, schema, encodings=encodings)
    diff_models(previous_model, returned, schema, encodings=encodings)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    if findings:
        raise SystemExit(f"unexpected findings: {findings[:3]}")
    return elapsed, cpu


class _PythonRe:
    """A pattern on Python's ``re``: the engine cfn-debug used before the ECMA-262 one."""

    usable = True
    problem = None

    def __init__(self, source: str) -> None:
        self.search_re = re.compile(source).search

    def search(self, text: str) -> bool:
        return self.search_re(text) is not None


@contextmanager
def python_re() -> Iterator[None]:
    saved = ecma_regex.compile_ecma
    cache: dict[str, _PythonRe] = {}

    def compile_re(source: str) -> Any:
        found = cache.get(source)
        if found is None:
            found = cache[source] = _PythonRe(source)
        return found

    modules = (ecma_regex, schema_module, schema_fastcheck)
    for module in modules:
        module.compile_ecma = compile_re  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module in modules:
            module.compile_ecma = saved  # type: ignore[attr-defined]


def measure(label: str, size: int, runs: int) -> dict[str, float]:
    """Median seconds per step for each engine, the runs of both interleaved."""
    model = model_of_size(size)
    answers = [answer_for_step(model, step) for step in range(runs + 2)]
    schemas = {"ECMA-262 (regress/re2)": load_schema(SCHEMA_PATH)}
    with python_re():
        schemas["Python re (before)"] = load_schema(SCHEMA_PATH)
    times: dict[str, list[float]] = {name: [] for name in schemas}
    cpu: dict[str, list[float]] = {name: [] for name in schemas}
    for step in range(1, runs + 2):
        for name, schema in schemas.items():
            context = python_re() if name.startswith("Python") else _nothing()
            with context:
                spent, spent_cpu = one_step(schema, answers[step - 1], answers[step])
            if step > 1:  # the first step builds the validators
                times[name].append(spent)
                cpu[name].append(spent_cpu)
    medians = {name: statistics.median(values) for name, values in times.items()}
    actual = len(json.dumps(model))
    for name, median in medians.items():
        ms = median * 1000
        target = TARGETS_MS[label]
        verdict = "ok" if ms < target else "OVER TARGET"
        print(
            f"check_step + 2 diffs, {label} model ({actual / 1024:,.1f} KiB), new at every step, "
            f"patterns on {name}: median {ms:.3f} ms (CPU time of this process "
            f"{statistics.median(cpu[name]) * 1000:.3f} ms), max {max(times[name]) * 1000:.3f} "
            f"ms over {len(times[name])} steps (target < {target:g} ms: {verdict})"
        )
    return medians


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs-2kb", type=int, default=500)
    parser.add_argument("--runs-5mb", type=int, default=7)
    args = parser.parse_args()
    measure("2 KB", 2_000, args.runs_2kb)
    measure("5 MB", 5_000_000, args.runs_5mb)


if __name__ == "__main__":
    main()
