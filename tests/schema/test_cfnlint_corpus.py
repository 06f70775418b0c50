"""The 1,898 AWS resource schemas cfn-lint ships: every one loads, no pattern crashes anything.

(The time the whole set takes is a figure of bench/schemas.py, not an assertion here.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cfn_debug.schema.command import check_schema_file
from cfn_debug.schema.ecma_regex import compile_ecma

cfnlint = pytest.importorskip("cfnlint")
CORPUS = sorted((Path(cfnlint.__file__).parent / "data" / "schemas" / "resources").glob("*.json"))


@pytest.mark.slow
def test_every_published_schema_loads_and_validates_without_a_crash() -> None:
    assert len(CORPUS) > 1500
    crashed: list[str] = []
    not_loaded: list[str] = []
    errors: dict[str, list[str]] = {}
    for path in CORPUS:
        try:
            report = check_schema_file(path)
        except Exception as error:
            crashed.append(f"{path.name}: {error!r}")
            continue
        if not report.loaded:
            not_loaded.append(f"{path.name}: {report.notes}")
        found = [n.message for n in report.notes if n.level == "error"]
        if found:
            errors[report.type_name or path.name] = found
    assert crashed == []
    assert not_loaded == []
    # the only error-level problem in the set: SAM transform types without a primaryIdentifier
    assert all(name.startswith("AWS::Serverless::") for name in errors), errors


def test_every_published_pattern_compiles_or_is_set_aside_and_matching_never_raises() -> None:
    patterns: set[str] = set()
    import json

    for path in CORPUS:
        stack = [json.loads(path.read_text(encoding="utf-8"))]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                if isinstance(node.get("pattern"), str):
                    patterns.add(node["pattern"])
                if isinstance(node.get("patternProperties"), dict):
                    patterns.update(node["patternProperties"])
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    unusable = [p for p in patterns if not compile_ecma(p).usable]
    assert len(unusable) < 0.01 * len(patterns)
    for pattern in patterns:
        compiled = compile_ecma(pattern)
        for value in ("", "a" * 30 + "!", "arn:aws:s3:::b", "\ud800", "\U0001f600", "x\n"):
            assert compiled.search(value) in (True, False)
