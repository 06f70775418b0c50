"""The provider definition meta-schema's compiled validator is kept under the state directory
(never in the project) and used from there; a kept copy that does not load is compiled again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfn_debug.schema import meta

DEMO_SCHEMA = Path(meta.__file__).parents[1] / "demo" / "cfndebug-demo-widget.json"


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    meta._meta_fast_check.cache_clear()
    yield tmp_path / "cfn-debug" / "compiled"
    meta._meta_fast_check.cache_clear()


def test_the_compiled_meta_schema_is_kept_and_a_broken_copy_compiled_again(fresh: Path) -> None:
    check = meta._meta_fast_check()
    if check is None:
        pytest.skip("rpdk or fastjsonschema is not installed")
    (kept,) = fresh.iterdir()
    demo = json.loads(DEMO_SCHEMA.read_text(encoding="utf-8"))
    assert check(demo) and not check({**demo, "typeName": "Not-A-Type-Name"})
    kept.write_bytes(b"not marshal data")
    meta._meta_fast_check.cache_clear()
    again = meta._meta_fast_check()
    assert again is not None and again(demo) and not again({"typeName": 1})
    assert kept.read_bytes() != b"not marshal data"
