"""The cost of recording a handler's AWS calls (DESIGN.md section 7: under 0.2 ms a call).

Run: .venv/bin/python bench/aws_calls.py [--calls N] [--rounds R]

In one process, against a moto server on loopback (in-process, threaded), two boto3 DynamoDB
clients make the same GetItem call: one from a session created before the recorder was installed
(botocore registers its handlers only on sessions created afterwards), one from a session
created after. Batches alternate so drift on this noisy machine hits both alike. Printed:

- the median wall time of a call without and with recording, and the difference;
- the recorder's own cost per call, measured directly: its three handlers run on the parameters,
  operation model and parsed answer of a real call, record written to /dev/null, many times over
  (the end-to-end difference is a few microseconds inside milliseconds of moto's noise; this
  one is the figure to hold against the target).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tui"))

TARGET_MS = 0.2
TABLE = "bench"


def _client(url: str) -> Any:
    import boto3

    session = boto3.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1"
    )
    return session.client("dynamodb", endpoint_url=url)


def _batch(client: Any, count: int) -> list[float]:
    times = []
    for i in range(count):
        start = time.perf_counter()
        client.get_item(TableName=TABLE, Key={"Name": {"S": f"item-{i % 10}"}})
        times.append((time.perf_counter() - start) * 1000)
    return times


def _captured_call(client: Any) -> dict[str, Any]:
    """The arguments botocore gives the recorder's handlers for one real call."""
    captured: dict[str, Any] = {}

    def params(params: Any, model: Any, **_: Any) -> None:
        captured["params"], captured["model"] = dict(params), model

    def after(http_response: Any, parsed: Any, **_: Any) -> None:
        captured["http_response"], captured["parsed"] = http_response, parsed

    client.meta.events.register("provide-client-params.dynamodb.GetItem", params)
    client.meta.events.register("after-call.dynamodb.GetItem", after)
    client.get_item(TableName=TABLE, Key={"Name": {"S": "item-1"}})
    client.meta.events.unregister("provide-client-params.dynamodb.GetItem", params)
    client.meta.events.unregister("after-call.dynamodb.GetItem", after)
    return captured


def _hook_cost_ms(recorder: Any, captured: dict[str, Any], count: int) -> list[float]:
    """Per-call time of the recorder's handlers, in batches of ``count``."""
    medians = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(count):
            context: dict[str, Any] = {}
            recorder._on_params(params=captured["params"], model=captured["model"], context=context)
            recorder._on_before_call(model=captured["model"], context=context)
            recorder._on_after_call(
                http_response=captured["http_response"],
                parsed=captured["parsed"],
                model=captured["model"],
                context=context,
            )
        medians.append((time.perf_counter() - start) * 1000 / count)
    return medians


def _install_cost_ms(rounds: int = 15) -> list[float]:
    """What worker_main's hook costs a worker's start: load aws_recorder.py by path and install
    it, in a fresh interpreter each time (botocore not imported: the import-hook path)."""
    import subprocess

    code = (
        "import time, importlib.util as u, sys, json, typing\n"
        "t = time.perf_counter()\n"
        "s = u.spec_from_file_location('_r', sys.argv[1])\n"
        "m = u.module_from_spec(s); s.loader.exec_module(m); m.install()\n"
        "print((time.perf_counter() - t) * 1000)\n"
    )
    path = REPO / "tui" / "cfn_debug" / "endpoint" / "aws_recorder.py"
    return [
        float(subprocess.check_output([sys.executable, "-c", code, str(path)], text=True))
        for _ in range(rounds)
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=100, help="calls per batch (default 100)")
    parser.add_argument("--rounds", type=int, default=5, help="batches per client (default 5)")
    args = parser.parse_args()

    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's per-request access log

    from cfn_debug.endpoint import aws_recorder

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        plain = _client(url)  # before install: no recorder handlers on this session
        plain.create_table(
            TableName=TABLE,
            KeySchema=[{"AttributeName": "Name", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "Name", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        for i in range(10):
            plain.put_item(TableName=TABLE, Item={"Name": {"S": f"item-{i}"}})
        aws_recorder.install(fd=null)
        recorded = _client(url)
        _batch(plain, 20)
        _batch(recorded, 20)
        without: list[float] = []
        with_: list[float] = []
        for _ in range(args.rounds):
            without += _batch(plain, args.calls)
            with_ += _batch(recorded, args.calls)
        hook = _hook_cost_ms(aws_recorder, _captured_call(plain), 2000)
    finally:
        server.stop()
        os.close(null)

    base, rec = statistics.median(without), statistics.median(with_)
    cost = statistics.median(hook)
    print(
        f"AWS call recording, DynamoDB GetItem against moto on loopback ({len(without)} calls each)"
    )
    print(f"  without recording   median {base:.3f} ms  p95 {_p95(without):.3f} ms")
    print(f"  with recording      median {rec:.3f} ms  p95 {_p95(with_):.3f} ms")
    print(f"  difference          {rec - base:+.3f} ms a call (moto's noise is larger than this)")
    print(
        f"  recorder's own cost {cost * 1000:.1f} us a call (min {min(hook) * 1000:.1f}, "
        f"max {max(hook) * 1000:.1f} over 5 x 2000)  target < {TARGET_MS} ms: "
        f"{'met' if cost < TARGET_MS else 'MISSED'}"
    )
    start = _install_cost_ms()
    pycache = REPO / "tui" / "cfn_debug" / "endpoint" / "__pycache__"
    cached = "from a cached .pyc" if any(pycache.glob("aws_recorder.*.pyc")) else "compiled"
    print(
        f"  worker start: loading and installing the recorder {statistics.median(start):.2f} ms "
        f"median of {len(start)} fresh interpreters ({cached}; about 0.5 ms from a cached .pyc, as "
        "a pip install leaves it)"
    )
    return 0


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(len(ordered) * 0.95) - 1]


if __name__ == "__main__":
    sys.exit(main())
