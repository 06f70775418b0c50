"""Peak memory of `run` and `export` against the number of steps, for a large callbackContext
the handler returns at every IN_PROGRESS step (the hostile project's BigContext handler).

For each step count, `cfn-debug run` (embedded endpoint, a journal) and then `cfn-debug export`
of that journal in each format run as child processes; each prints its own peak resident memory
(VmHWM of its address space, not ``ru_maxrss``, which a child inherits from its parent). Flat
means the figure for many steps is about the figure for few.

    python bench/context_memory.py [--steps 5,30] [--context-mb 5] [--formats json,md,html,junit]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

# the same `cfn-debug args...` then VmHWM snippet the memory tests run
from reliability.support import CLI_WITH_PEAK_RSS as PEAK  # noqa: E402
from reliability.support import HOSTILE  # noqa: E402


def _peak(args: list[str], env: dict[str, str]) -> float:
    """The child's peak resident memory in MB (exits 0 or 1, or this raises)."""
    proc = subprocess.run(
        [sys.executable, "-c", PEAK, *args], capture_output=True, text=True, env=env, cwd=REPO
    )
    if proc.returncode not in (0, 1) or "VmHWM:" not in proc.stderr:
        raise SystemExit(f"cfn-debug {' '.join(args[:2])} failed: {proc.stderr[-2000:]}")
    return int(proc.stderr.rsplit("VmHWM:", 1)[1].split()[0]) / 1024


def _event(path: Path, steps: int, context_mb: float) -> None:
    model = {"Steps": steps, "ContextMB": context_mb}
    event = {
        "action": "CREATE",
        "request": {"clientRequestToken": "token-bench", "desiredResourceState": model},
        "callbackContext": None,
    }
    path.write_text(json.dumps(event), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", default="5,30")
    parser.add_argument("--context-mb", type=float, default=5.0)
    parser.add_argument("--formats", default="json,md,html,junit")
    args = parser.parse_args()
    formats = [f for f in args.formats.split(",") if f]
    print(f"context {args.context_mb:g} MB returned at every IN_PROGRESS step; peak RSS in MB")
    print(f"{'steps':>6} {'run':>8} " + " ".join(f"{'export ' + f:>12}" for f in formats))
    with tempfile.TemporaryDirectory(prefix="cfn-debug-bench-") as tmp:
        env = {
            **os.environ,
            "NO_COLOR": "1",
            "XDG_STATE_HOME": str(Path(tmp) / "state"),
            "PYTHONPATH": os.pathsep.join(
                [str(REPO / "tui"), *filter(None, [os.environ.get("PYTHONPATH")])]
            ),
        }
        for steps in (int(n) for n in args.steps.split(",")):
            event, journal = Path(tmp) / f"e{steps}.json", Path(tmp) / f"j{steps}.jsonl"
            _event(event, steps, args.context_mb)
            run = _peak(
                [
                    "run", str(event), "--project", str(HOSTILE),
                    "--function-name", "BigContext", "--journal", str(journal),
                    "--max-reinvoke", str(steps + 1), "--max-delay", "0", "--no-read-back",
                ],
                env,
            )  # fmt: skip
            exports = []
            for fmt in formats:
                out = Path(tmp) / f"out{steps}.{fmt}"
                exports.append(
                    _peak(["export", str(journal), "--format", fmt, "-o", str(out)], env)
                )
                out.unlink()
            print(f"{steps:>6} {run:>8.0f} " + " ".join(f"{mb:>12.0f}" for mb in exports))


if __name__ == "__main__":
    main()
