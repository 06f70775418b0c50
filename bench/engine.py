"""Engine benchmarks (DESIGN.md section 7). Run: /work/venv/bin/python bench/engine.py [--steps N]

1. Client-side cost per step, without network: payload build (with its JSON encoding), parse of
   the answer, step building (redaction, contract checks, diffs) and journal append, for a 2 KB and
   a 5 MB model that is new at every step (each answer its own bytes, one item changed, the
   insertionOrder-false array reversed every other step). Targets (issue 14): under 0.5 ms and
   under 100 ms (median). A phase table follows each figure (medians of each phase, in ms; the
   step build's checks, diffs and redaction measured by wrapping those functions), with the CPU
   time of the process beside the wall time (the steadier figure on a shared machine).
2. A 1,000-step IN_PROGRESS chain (delay 0) against the embedded endpoint, headless: wall time and
   peak RSS of this process. Targets for the trivial (plain) handler: under 1.5 s, under 100 MB
   (issue 14); for the cloudformation-cli-python-lib handler: under 10 s, under 200 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cfn_debug.chain import ChainOptions, build_step
from cfn_debug.diff import Encodings
from cfn_debug.events import Shape, build_payload, parse_event
from cfn_debug.invoke.base import encode_request
from cfn_debug.invoke.outcome import classify
from cfn_debug.journal.session import Journal
from cfn_debug.records import Action, RunEnded, StepCompleted
from cfn_debug.schema import load_schema

PROJECT = Path(__file__).resolve().parent / "projects" / "inprogress"
SCHEMA = PROJECT / "cfndebug-bench-inprogress.json"


def make_model(target_bytes: int) -> dict:
    """A model valid against the fixture schema, about ``target_bytes`` as JSON."""
    items = []
    size = 0
    i = 0
    while size < target_bytes:
        item = {"Key": f"key-{i}", "Value": "v" * 40, "Weight": i}
        items.append(item)
        size += len(json.dumps(item)) + 1
        i += 1
    return {"Name": "bench", "Steps": 3, "Items": items}


class _Phases:
    """Wall time spent inside some engine functions during the step build (the breakdown of
    "step build" in the phase table), by wrapping them for the measurement."""

    NAMES = ("checks", "diffs", "redaction")

    def __init__(self) -> None:
        self.spent = dict.fromkeys(self.NAMES, 0.0)
        self.inside: set[str] = set()

    def _wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            if name in self.inside:  # a nested call (redact_large in _redact_result): counted
                return function(*args, **kwargs)
            self.inside.add(name)
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.spent[name] += time.perf_counter() - started
                self.inside.discard(name)

        return timed

    @contextmanager
    def installed(self) -> Iterator[None]:
        from cfn_debug import chain, contract

        saved = (contract.check_step, chain.diff_models, chain.redact_large, chain._redact_result)
        contract.check_step = self._wrap("checks", contract.check_step)
        chain.diff_models = self._wrap("diffs", chain.diff_models)
        chain.redact_large = self._wrap("redaction", chain.redact_large)
        chain._redact_result = self._wrap("redaction", chain._redact_result)
        try:
            yield
        finally:
            contract.check_step, chain.diff_models, chain.redact_large, chain._redact_result = saved

    def take(self) -> dict[str, float]:
        taken, self.spent = self.spent, dict.fromkeys(self.NAMES, 0.0)
        return taken


def measure_step_cost(
    model_bytes: int, rounds: int, journal_dir: Path, *, changing: bool = True
) -> dict[str, float]:
    schema = load_schema(SCHEMA)
    desired = make_model(model_bytes)
    event = parse_event(
        {"action": "CREATE", "request": {"desiredResourceState": desired}}, name="bench"
    )
    returned = {**desired, "ThingId": "thing-1"}
    # the handler's answer is new at every step: a few values change (built before timing)
    answers = []
    for index in range(rounds):
        items = [dict(item) for item in returned["Items"]]
        if changing:
            items[index % len(items)]["Value"] = f"changed-at-{index}"
        if changing and index % 2:
            items.reverse()  # insertionOrder false: the same multiset
        answers.append(
            json.dumps(
                {
                    "status": "IN_PROGRESS",
                    "resourceModel": {**returned, "Items": items},
                    "callbackContext": {"done": index},
                }
            ).encode()
        )
    journal = Journal(journal_dir / f"bench-{model_bytes}.jsonl")
    timings: dict[str, list[float]] = {"payload": [], "parse": [], "step": [], "journal": []}
    parts: dict[str, list[float]] = {name: [] for name in _Phases.NAMES}
    cpu: list[float] = []
    phases = _Phases()
    steps = []
    for index in range(rounds):
        c0 = time.process_time()
        t0 = time.perf_counter()
        payload = build_payload(
            event.normalized,
            Shape.SAM,
            desired=returned if index else desired,
            callback_context={"done": index},
            client_request_token="tok",
        )
        _, members = encode_request(payload)  # what the invoker sends
        encodings = Encodings(members)  # the step's, seeded with the body's members
        t1 = time.perf_counter()
        result = classify(answers[index], duration_s=0.001)
        t2 = time.perf_counter()
        with phases.installed():
            step = build_step(
                index=index,
                action=Action.CREATE,
                function_name="TestEntrypoint",
                request=payload,
                result=result,
                started_at="2026-01-01T00:00:00+00:00",
                schema=schema,
                desired=returned if index else desired,
                previous=None,
                original_desired=desired,
                previous_steps=steps[-1:],
                encodings=encodings,
            )
        t3 = time.perf_counter()
        journal.record(StepCompleted("bench", step, encodings))
        t4 = time.perf_counter()
        cpu.append(time.process_time() - c0)
        for name, spent in phases.take().items():
            parts[name].append(spent)
        steps.append(step)
        for name, spent in zip(timings, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
            timings[name].append(spent)
    journal.close()
    # attribution: the contract checks alone (schema validation dominates for large models)
    from cfn_debug.contract import StepContext, check_step

    context = StepContext(
        schema=schema,
        action=Action.CREATE,
        index=1,
        desired=returned,
        previous=None,
        original_desired=desired,
        result=result,
        previous_steps=steps[-2:-1],
    )
    checks = []
    for _ in range(min(rounds, 20)):
        t0 = time.perf_counter()
        check_step(context)
        checks.append(time.perf_counter() - t0)
    totals = [sum(parts) for parts in zip(*timings.values(), strict=True)]
    medians = {name: statistics.median(values) for name, values in timings.items()}
    medians["total"] = statistics.median(totals)
    medians["cpu"] = statistics.median(cpu)
    medians.update({f"step {name}": statistics.median(values) for name, values in parts.items()})
    medians["checks"] = statistics.median(checks)
    medians["size"] = len(json.dumps(desired))
    return medians


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


async def run_long_chain(steps: int, function_name: str) -> tuple[float, int, str]:
    from cfn_debug.workspace import Workspace

    event_data = json.loads((PROJECT / "sample_events" / "create-1000-steps.json").read_text())
    event_data["request"]["desiredResourceState"]["Steps"] = steps - 1
    event = parse_event(event_data, name="long chain")
    workspace = Workspace.open(PROJECT, function_name=function_name)
    try:
        # one warm-up invocation so the worker start is not part of the chain's figure
        warm = parse_event(
            {**event_data, "request": {"desiredResourceState": {"Name": "w"}}}, name="w"
        )
        async for _ in workspace.run(warm, ChainOptions()):
            pass
        started = time.perf_counter()
        ended = None
        async for chain_event in workspace.run(event, ChainOptions(max_reinvoke=steps)):
            if isinstance(chain_event, RunEnded):
                ended = chain_event.run
        wall = time.perf_counter() - started
    finally:
        await workspace.aclose()
    assert ended is not None
    reason = ended.end_reason.value if ended.end_reason else "?"
    return wall, len(ended.steps), f"{reason}/{ended.final_status}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000, help="chain length (default 1000)")
    parser.add_argument("--skip-chain", action="store_true", help="only the per-step costs")
    args = parser.parse_args()

    if not args.skip_chain:
        # first, so that the peak RSS figure is the chain's, not the 5 MB models'
        for function, what, wall_target, rss_target in (
            ("PlainFunction", "a plain (trivial) handler", 1.5, 100),
            ("TestEntrypoint", "a cloudformation-cli-python-lib handler", 10.0, 200),
        ):
            wall, count, outcome = asyncio.run(run_long_chain(args.steps, function))
            rss = peak_rss_mb()
            print(
                f"{args.steps}-step IN_PROGRESS chain, embedded endpoint, delay 0, {what} "
                f"({function}: {outcome})"
            )
            print(
                f"  wall {wall:.2f} s ({wall / max(count, 1) * 1000:.2f} ms/step, {count} steps) "
                f"target < {wall_target:g} s: {'ok' if wall < wall_target else 'OVER TARGET'}; "
                f"peak RSS of this process so far {rss:.0f} MB target < {rss_target} MB: "
                f"{'ok' if rss < rss_target else 'OVER'}"
            )

    print("client-side cost per step (median; no network)")
    with tempfile.TemporaryDirectory() as tmp:
        for label, size, rounds, target_ms, changing in (
            ("2 KB", 2 * 1024, 300, 0.5, True),
            ("5 MB", 5 * 1024 * 1024, 7, 100.0, True),
            ("5 MB", 5 * 1024 * 1024, 7, 100.0, False),
        ):
            m = measure_step_cost(size, rounds, Path(tmp), changing=changing)
            verdict = "ok" if m["total"] * 1000 < target_ms else "OVER TARGET"
            how = "new at every step" if changing else "parsed afresh, same content every step"
            print(
                f"  {label} model ({m['size']:,} B), {how}: "
                f"total {m['total'] * 1000:.3f} ms (CPU time {m['cpu'] * 1000:.3f} ms) "
                f"target < {target_ms:g} ms: {verdict}"
            )
            print(
                f"    payload {m['payload'] * 1000:.3f} | parse {m['parse'] * 1000:.3f} | "
                f"step build {m['step'] * 1000:.3f} (checks {m['step checks'] * 1000:.3f}, "
                f"diffs {m['step diffs'] * 1000:.3f}, redaction "
                f"{m['step redaction'] * 1000:.3f}) | journal {m['journal'] * 1000:.3f} | "
                f"contract checks alone {m['checks'] * 1000:.3f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
