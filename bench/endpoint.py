"""Embedded endpoint benchmark (DESIGN.md section 7). Run: /work/venv/bin/python bench/endpoint.py

Warm invoke latency of a trivial handler through our endpoint, next to the same handler under AWS's
Runtime Interface Emulator measured in the same run, over one keep-alive HTTP connection each
(median and p95 of N invokes after a warm-up), their ratio (target: ours at or below the RIE's,
1.0x, issue 14), and cold start (worker spawn to first answer; target: at or below 0.3x the RIE's,
with workers forked from the fork server). The trivial handler is the bundled demo's READ via
TestEntrypoint (its read.json sample event); without the demo, the endpoint test fixture's echo.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from cfn_debug.demo import PROJECT_DIR as DEMO  # noqa: E402
from cfn_debug.demo import sample_events_dir  # noqa: E402
from cfn_debug.endpoint.server import EmbeddedEndpoint  # noqa: E402
from cfn_debug.endpoint.template import load_functions  # noqa: E402
from support.rie import RIE_FUNCTION, find_rie_binary, start_rie  # noqa: E402

FIXTURE = REPO / "tests" / "endpoint" / "projects" / "basic"
#: Issue 14: warm invoke at or below the emulator's; cold start at or below 0.3x its.
WARM_TARGET = 1.0
COLD_TARGET = 0.3


def _invoke_path(function: str) -> str:
    return f"/2015-03-31/functions/{function}/invocations"


def _target(fixture: bool) -> tuple[Path, str, dict, dict[str, str]]:
    """(project, function, event, extra env) of the trivial handler."""
    read = sample_events_dir() / "read.json"
    if not fixture and (DEMO / "template.yml").is_file() and read.is_file():
        state = tempfile.mkdtemp(prefix="cfn-debug-bench-")
        return DEMO, "TestEntrypoint", json.loads(read.read_text()), {"CFN_DEBUG_DEMO_STATE": state}
    return FIXTURE, "Echo", {"tag": "bench"}, {}


def _latencies(
    client: httpx.Client, path: str, event: dict, count: int, warmup: int = 20
) -> list[float]:
    body = json.dumps(event).encode()
    headers = {"Content-Type": "application/json"}
    for _ in range(warmup):
        client.post(path, content=body, headers=headers).raise_for_status()
    times = []
    for _ in range(count):
        start = time.perf_counter()
        response = client.post(path, content=body, headers=headers)
        times.append(time.perf_counter() - start)
        response.raise_for_status()
    return times


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:7.3f} ms"


def _load() -> str:
    """The 1-minute load average now: on a shared machine every figure depends on it."""
    return f"[load {os.getloadavg()[0]:.2f}]"


def _batches(
    ours: httpx.Client,
    ours_path: str,
    rie: httpx.Client,
    event: dict,
    count: int,
    also: tuple[httpx.Client, ...] = (),
) -> tuple[list[float], list[float], list[list[float]]]:
    """Alternate batches between the endpoints so machine load affects them alike."""
    rie_path = _invoke_path(RIE_FUNCTION)
    mine: list[float] = []
    theirs: list[float] = []
    others: list[list[float]] = [[] for _ in also]
    batch = 25
    for _ in range(max(count // batch, 1)):
        mine += _latencies(ours, ours_path, event, batch, warmup=2)
        theirs += _latencies(rie, rie_path, event, batch, warmup=2)
        for client, times in zip(also, others, strict=True):
            times += _latencies(client, ours_path, event, batch, warmup=2)
    return mine, theirs, others


def _wait_preloaded(endpoint: EmbeddedEndpoint, function: str) -> None:
    """Until the function's fork server has imported what it preloads: the cold start measured
    is a save's in watch mode (the server long ready), not one forked half-way through the
    preload (that worker imports the rest itself, as a fresh process would)."""
    pool = endpoint.pool(function)
    forks = getattr(pool, "_forks", None)
    if forks is not None:
        forks[1].preloaded.wait(120)


def _tree_cpu_s(pid: int) -> float:
    """CPU seconds used so far by ``pid`` and every process below it (Linux /proc; 0 elsewhere)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{current}/task/{task}/stat", encoding="ascii") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{current}/task/{task}/children", encoding="ascii") as kids:
                    stack += [int(kid) for kid in kids.read().split()]
            except (OSError, ValueError):
                continue
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _wait_settled(pid: int, limit_s: float = 60.0) -> None:
    """Until `serve` (``pid``) has finished starting up: its fork server imports the shared modules
    in the background for half a second after the first answer. Timed before then, `serve` was
    timed against the preload's CPU, which the emulator never pays (the in-process endpoint is
    timed once preloaded too: _wait_preloaded)."""
    deadline = time.monotonic() + limit_s
    before = _tree_cpu_s(pid)
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = _tree_cpu_s(pid)
        if now - before < 0.01:
            return
        before = now


@contextlib.contextmanager
def _serve(project: Path, extra_env: dict[str, str]) -> Iterator[str]:
    """`cfn-debug serve PROJECT` in a process of its own on a free port; yields its URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="cfn-debug-bench-serve-") as tmp:
        env_file = Path(tmp) / "env.json"
        env_file.write_text(json.dumps({"Parameters": extra_env}), encoding="utf-8")
        command = [sys.executable, "-m", "cfn_debug.cli", "serve", str(project)]
        command += ["--port", str(port), "--env-vars", str(env_file)]
        # A session of its own, as the emulator gets (support.rie) and as `serve` has when a user
        # starts it in a terminal of its own: on Linux a session is a scheduler group, and a
        # server sharing the client's group shares its CPU share on a busy machine.
        process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=tmp,
            start_new_session=True,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    httpx.get(url, timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.05)
            _wait_settled(process.pid)
            yield url
        finally:
            process.terminate()
            process.wait(timeout=30)


def _serve_batches(
    project: Path, function: str, spec: object, event: dict, extra_env: dict, count: int
) -> tuple[list[float], list[float]]:
    """Warm invokes of `cfn-debug serve` and of the RIE, alternating batches."""
    with (
        _serve(project, extra_env) as url,
        httpx.Client(base_url=url, timeout=60) as served,
        start_rie(spec.code_dir, spec.handler, timeout_s=60, env=extra_env) as rie_url,  # type: ignore[attr-defined]
        httpx.Client(base_url=rie_url, timeout=60) as rie,
    ):
        mine, theirs, _ = _batches(served, _invoke_path(function), rie, event, count)
        return mine, theirs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--invokes", type=int, default=300)
    parser.add_argument("--cold", type=int, default=5, help="cold starts to measure")
    parser.add_argument(
        "--fixture", action="store_true", help="use the test fixture's echo, not the demo's READ"
    )
    parser.add_argument(
        "--also",
        metavar="URL",
        action="append",
        default=[],
        help="also time another endpoint serving the same project (e.g. `cfn-debug serve` of an "
        "older cfn-debug) in the same alternating batches, and print its ratio to the RIE",
    )
    parser.add_argument(
        "--no-serve",
        action="store_true",
        help="skip the like-for-like figure (`cfn-debug serve` in a process of its own, as the "
        "emulator runs in its own)",
    )
    args = parser.parse_args()

    project, function, event, extra_env = _target(args.fixture)
    spec = load_functions(project)[function]
    path = _invoke_path(function)
    shown = project.relative_to(REPO) if project.is_relative_to(REPO) else project  # old code
    print(f"handler: {spec.handler} ({function} of {shown})  {_load()}")
    have_rie = find_rie_binary() is not None

    with (
        EmbeddedEndpoint(project, env_vars={"Parameters": extra_env}) as endpoint,
        httpx.Client(base_url=endpoint.url, timeout=60) as client,
    ):
        _wait_preloaded(endpoint, function)
        cold = []
        for _ in range(args.cold):
            endpoint.restart_workers()
            start = time.perf_counter()
            client.post(path, json=event).raise_for_status()
            cold.append(time.perf_counter() - start)
        others: list[list[float]] = []
        if have_rie:
            with (
                start_rie(spec.code_dir, spec.handler, timeout_s=60, env=extra_env) as url,
                httpx.Client(base_url=url, timeout=60) as rie,
                contextlib.ExitStack() as stack,
            ):
                also = tuple(
                    stack.enter_context(httpx.Client(base_url=u, timeout=60)) for u in args.also
                )
                ours, theirs, others = _batches(client, path, rie, event, args.invokes, also)
        else:
            ours, theirs = _latencies(client, path, event, args.invokes), []
    print(
        f"ours  warm invoke: median {_ms(statistics.median(ours))}  p95 {_ms(_p95(ours))}  "
        + _load()
    )
    print(
        "ours  cold start (spawn to first answer, fork server preloaded): "
        f"median {_ms(statistics.median(cold))}"
    )
    if not have_rie:
        print("RIE: no emulator binary available; no side-by-side figure")
        return 0

    rie_cold = []
    for _ in range(args.cold):
        with (
            start_rie(spec.code_dir, spec.handler, timeout_s=60, env=extra_env) as url,
            httpx.Client(base_url=url, timeout=60) as rie,
        ):
            start = time.perf_counter()
            rie.post(_invoke_path(RIE_FUNCTION), json=event)
            rie_cold.append(time.perf_counter() - start)
    print(f"RIE   warm invoke: median {_ms(statistics.median(theirs))}  p95 {_ms(_p95(theirs))}")
    print(f"RIE   cold start (first invoke after start): median {_ms(statistics.median(rie_cold))}")
    ratio = statistics.median(ours) / statistics.median(theirs)
    verdict = "within" if ratio <= WARM_TARGET else "OVER"
    print(
        f"ratio ours/RIE (median warm): {ratio:.2f}x  ({verdict} the {WARM_TARGET}x target)  "
        + _load()
    )
    if not args.no_serve:
        served, rie_again = _serve_batches(project, function, spec, event, extra_env, args.invokes)
        ratio = statistics.median(served) / statistics.median(rie_again)
        verdict = "within" if ratio <= WARM_TARGET else "OVER"
        print(
            f"ours as `cfn-debug serve` (own process, like the RIE): warm median "
            f"{_ms(statistics.median(served))} vs RIE {_ms(statistics.median(rie_again))}, "
            f"{ratio:.2f}x  ({verdict} the {WARM_TARGET}x target)  {_load()}"
        )
    cold_ratio = statistics.median(cold) / statistics.median(rie_cold)
    verdict = "within" if cold_ratio <= COLD_TARGET else "OVER"
    target = (
        f"{verdict} the {COLD_TARGET}x target"
        if not args.fixture
        else f"printed: the {COLD_TARGET}x target is the demo's"
    )
    print(f"ratio ours/RIE (median cold): {cold_ratio:.2f}x  ({target})  " + _load())
    for url, other in zip(args.also, others, strict=True):
        also_ratio = statistics.median(other) / statistics.median(theirs)
        print(
            f"also  warm invoke: median {_ms(statistics.median(other))}  p95 {_ms(_p95(other))}"
            f"  {url}: {also_ratio:.2f}x the RIE"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
