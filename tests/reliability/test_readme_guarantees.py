"""The README's "Hostile input" table names, for each promise, the test that holds it: every test
file and test function it names must exist here, so the table cannot promise what nothing checks."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from reliability.support import REPO

HERE = Path(__file__).parent


def _table_rows() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("**Hostile input.**", 1)[1].split("\n\n", 2)[1]
    return [line for line in section.splitlines() if line.startswith("| ") and "`" in line]


def _tests_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test_")
    }


def test_every_test_the_guarantees_table_names_exists() -> None:
    rows = _table_rows()
    assert len(rows) >= 15
    for row in rows:
        cell = row.rstrip(" |").rsplit(" | ", 1)[1]
        current: Path | None = None
        for ref in re.findall(r"`([^`]+)`", cell):
            file_part, _, name = ref.partition("::")
            if file_part:
                # a test outside tests/reliability/ is named from the project's root
                root = HERE.parent.parent
                current = root / file_part if file_part.startswith("tests/") else HERE / file_part
                assert current.is_file(), f"{ref}: no such test file"
            assert current is not None, row
            if name:
                assert name in _tests_in(current), f"{current.name}::{name}: no such test"
