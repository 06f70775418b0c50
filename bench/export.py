"""Time the export of a 10,000-step session in every format (target: under 3 s each).

A synthetic session as the engine journals it: 100 CREATE chains of 100 steps, each step with a
~2 KB request model and a ~2 KB returned model, credentials already redacted, a writeOnly value,
two findings on some steps, model diffs, and a few handler log lines. Exports go to files in a
temporary directory, with writeOnly masking on, as `cfn-debug export --schema` runs them.

    python bench/export.py [--steps N] [--runs R] [--repeat K]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from cfn_debug.export import FORMATS, export_session, load_transcript
from cfn_debug.journal.session import Session
from cfn_debug.records import (
    Action,
    Change,
    ChangeKind,
    EndReason,
    Finding,
    InvokeResult,
    Level,
    OutcomeKind,
    RunRecord,
    Step,
)
from cfn_debug.text.redact import REDACTED

WRITE_ONLY = ("/Password", "/Rules/*/Secret")


def _model(run: int, step: int) -> dict[str, Any]:
    """About 2 KB of JSON: identifiers, tags, nested rules, and two writeOnly values."""
    model: dict[str, Any] = {
        "WidgetId": f"w-{run:04d}{step:04d}",
        "Arn": f"arn:aws:example:us-east-1:123456789012:widget/w-{run:04d}{step:04d}",
        "Name": f"widget-{run}-{step}",
        "Size": step % 100 + 1,
        "Password": f"pw-{run}-hunter2-secret",
        "Description": "A widget made by the export benchmark. " * 6,
        "Tags": [{"Key": f"key-{i}", "Value": f"value-{i}-{run}-{step}"} for i in range(20)],
        "Rules": [
            {"Name": f"rule-{i}", "Ports": [80 + i, 443, 8080 + i], "Secret": f"rs-{i}-{run}"}
            for i in range(6)
        ],
    }
    return model


def _step(run: int, index: int, last: bool) -> Step:
    desired = _model(run, 0)
    returned = _model(run, index)
    status = "SUCCESS" if last else "IN_PROGRESS"
    findings = []
    if index % 3 == 0:
        findings.append(
            Finding(
                "write-only-not-returned",
                Level.MUST,
                "writeOnly /Password returned",
                "/Password",
                index,
            )
        )
    if index % 5 == 0:
        findings.append(Finding("invocation-time-warning", Level.SHOULD, "slow step", None, index))
    return Step(
        index=index,
        action=Action.CREATE,
        function_name="TestEntrypoint",
        request={
            "credentials": {"accessKeyId": REDACTED, "secretAccessKey": REDACTED},
            "action": "CREATE",
            "request": {
                "clientRequestToken": f"token-{run}",
                "desiredResourceState": desired,
                "logicalResourceIdentifier": "MyWidget",
            },
            "callbackContext": {"attempt": index} if index else None,
            "region": "us-east-1",
        },
        result=InvokeResult(
            kind=OutcomeKind.PROGRESS,
            duration_s=0.004 + (index % 7) * 0.001,
            progress={
                "status": status,
                "message": "",
                "callbackContext": None if last else {"attempt": index + 1},
                "callbackDelaySeconds": 0,
                "resourceModel": returned,
            },
            http_status=200,
            request_id=f"req-{run}-{index}",
            logs=[
                f"[INFO] create handler step {index} for widget-{run}",
                f"[DEBUG] describe widget returned {index % 4} rules | `ok`",
                "[INFO] stabilising <widget> & waiting",
            ],
        ),
        started_at="2026-11-22T10:00:00+00:00",
        limit_s=60.0,
        findings=findings,
        diff_request=[
            Change("/WidgetId", ChangeKind.ADDED, None, returned["WidgetId"], "readOnly")
        ],
        diff_previous=[
            Change("/Size", ChangeKind.CHANGED, index % 100, index % 100 + 1),
            Change("/Password", ChangeKind.CHANGED, "old-password-x", returned["Password"]),
        ]
        if index
        else [],
    )


def build(runs: int, steps: int) -> Session:
    records = []
    for run in range(runs):
        chain = [_step(run, i, i == steps - 1) for i in range(steps)]
        records.append(
            RunRecord(
                run_id=f"run-{run}",
                event_name=f"create-{run}",
                event_path=f"sam-tests/create-{run}.json",
                action=Action.CREATE,
                function_name="TestEntrypoint",
                endpoint="http://127.0.0.1:3001",
                started_at="2026-11-22T10:00:00+00:00",
                steps=chain,
                end_reason=EndReason.TERMINAL,
                final_status="SUCCESS",
                total_s=sum(s.duration_s for s in chain),
            )
        )
    return Session(runs=records, project="/bench/widget", endpoint="http://127.0.0.1:3001")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000, help="steps in all (default 10000)")
    parser.add_argument("--runs", type=int, default=100, help="chains (default 100)")
    parser.add_argument("--repeat", type=int, default=3, help="timed exports per format")
    args = parser.parse_args()
    per_run = max(1, args.steps // args.runs)
    session = build(args.runs, per_run)
    total = sum(len(r.steps) for r in session.runs)
    model_bytes = len(json.dumps(_model(0, 0)))
    print(f"session: {len(session.runs)} runs, {total} steps, model {model_bytes} bytes")
    with tempfile.TemporaryDirectory() as tmp:
        for fmt, (_writer, suffix) in FORMATS.items():
            path = Path(tmp) / f"session{suffix}"
            times, cpu = [], []
            for _ in range(args.repeat):
                start, start_cpu = time.perf_counter(), time.process_time()
                with path.open("w", encoding="utf-8") as out:
                    export_session(session, fmt, out, write_only=WRITE_ONLY)
                times.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
            size = path.stat().st_size / 1e6
            print(
                f"export {fmt:5s}: median {statistics.median(times):.2f} s wall "
                f"({statistics.median(cpu):.2f} s cpu), best {min(times):.2f} s, "
                f"{size:.1f} MB (target < 3 s)"
            )
        path = Path(tmp) / "session.json"
        start = time.perf_counter()
        loaded = load_transcript(path)
        elapsed = time.perf_counter() - start
        steps_loaded = sum(len(r.steps) for r in loaded.runs)
        print(f"load json transcript: {elapsed:.2f} s ({steps_loaded} steps)")


if __name__ == "__main__":
    main()
