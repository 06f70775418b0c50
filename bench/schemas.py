"""`cfn-debug schema` over the AWS resource schemas cfn-lint ships (DESIGN.md section 7).

Loads every ``cfnlint/data/schemas/resources/*.json`` as ``cfn-debug schema`` does (meta-schema
layer, pointers, ECMA-262 patterns, model validators built), prints the wall time against the
20 s target, the problems counted by level and kind, and the regex engines' coverage of every
distinct pattern in the set (compile cost per engine, which engine each pattern ended on).

Run: python bench/schemas.py [--list KIND]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

from cfn_debug.schema.command import check_schema_file

TARGET_S = 20.0


def corpus() -> list[Path]:
    import cfnlint

    root = Path(cfnlint.__file__).parent / "data" / "schemas" / "resources"
    return sorted(root.glob("*.json"))


def kind_of(message: str) -> str:
    """A message with its specifics (quoted values, numbers) taken out, for counting."""
    kind = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", message)
    kind = re.sub(r"\d+", "N", kind)
    return kind[:110]


def patterns_of(paths: list[Path]) -> list[str]:
    found: set[str] = set()
    for path in paths:
        stack = [json.loads(path.read_text(encoding="utf-8"))]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                if isinstance(node.get("pattern"), str):
                    found.add(node["pattern"])
                if isinstance(node.get("patternProperties"), dict):
                    found.update(node["patternProperties"])
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    return sorted(found)


def engine_coverage(patterns: list[str]) -> None:
    """Compile every pattern with each candidate engine: how many compile, at what cost."""
    import regress

    candidates: dict[str, object] = {
        "regress (ECMA-262; unicode mode, else legacy)": lambda p: _regress(regress, p),
        "python re": re.compile,
    }
    try:
        import re2

        options = re2.Options()
        options.log_errors = False
        candidates["google-re2 (pattern as written)"] = lambda p: re2.compile(p, options)
    except ImportError:
        pass
    try:
        import regex

        candidates["regex (PyPI)"] = regex.compile
    except ImportError:
        pass
    print(f"{len(patterns)} distinct patterns; compiled by each engine as written:")
    for name, build in candidates.items():
        ok = 0
        start = time.perf_counter()
        for pattern in patterns:
            try:
                build(pattern)  # type: ignore[operator]
                ok += 1
            except Exception:
                pass
        spent = time.perf_counter() - start
        print(f"  {name:48s} {ok:5d} compile ({len(patterns) - ok} do not), {spent:.3f} s")


def _regress(module: object, pattern: str) -> object:
    try:
        return module.Regex(pattern, "u")  # type: ignore[attr-defined]
    except Exception:
        return module.Regex(pattern)  # type: ignore[attr-defined]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", metavar="TEXT", help="print the lines whose message has TEXT")
    args = parser.parse_args()
    paths = corpus()
    start = time.perf_counter()
    reports = []
    crashes: list[tuple[Path, str]] = []
    for path in paths:
        try:
            reports.append(check_schema_file(path))
        except Exception as error:  # the bench counts what the test forbids
            crashes.append((path, repr(error)))
    wall = time.perf_counter() - start
    loaded = sum(r.loaded for r in reports)
    verdict = "ok" if wall < TARGET_S else "OVER TARGET"
    print(
        f"cfn-debug schema on {len(paths)} cfn-lint resource schemas: {wall:.2f} s "
        f"(target < {TARGET_S:g} s: {verdict}); loaded {loaded}, crashed {len(crashes)}, "
        f"with an error {sum(r.has_error for r in reports)}"
    )
    levels: Counter[str] = Counter()
    kinds: Counter[tuple[str, str]] = Counter()
    for report in reports:
        for note in report.notes:
            levels[note.level] += 1
            kinds[(note.level, kind_of(note.message))] += 1
            if args.list and args.list in note.message:
                print(f"  {report.path.name} {report.type_name}: {note.pointer}: {note.message}")
    print("problems by level: " + ", ".join(f"{n} {level}" for level, n in levels.most_common()))
    for (level, kind), count in sorted(kinds.items(), key=lambda kv: (kv[0][0], -kv[1])):
        print(f"  {count:5d} {level:7s} {kind}")
    for path, error in crashes[:10]:
        print(f"  CRASH {path.name}: {error}")
    engine_coverage(patterns_of(paths))
    from cfn_debug.schema.ecma_regex import compile_ecma

    engines = Counter(compile_ecma(p).engine for p in patterns_of(paths))
    print("engine each pattern is matched with:")
    for engine, count in engines.most_common():
        print(f"  {count:5d} {engine}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
