"""A failed ``npm run build`` is built again at the next start, even when it left a dist/ newer
than src/ behind (tsc writes its output when it reports errors): the broken output is never run
as if it were the handler."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from cfn_debug.endpoint.runtimes.base import BuildFailed, RuntimeOptions
from cfn_debug.endpoint.runtimes.node import NodeRuntime, failed_build_marker
from cfn_debug.endpoint.template import FunctionSpec

pytestmark = pytest.mark.skipif(
    shutil.which("npm") is None or shutil.which("node") is None, reason="needs node and npm"
)

# Like tsc on a type error: writes dist/handlers.js, then exits 1 while FAIL exists.
BUILD_JS = """
const fs = require("fs");
fs.mkdirSync("dist", { recursive: true });
fs.writeFileSync("dist/handlers.js", "exports.entrypoint = () => null;\\n");
process.exit(fs.existsSync("FAIL") ? 1 : 0);
"""


def _project(root: Path) -> NodeRuntime:
    (root / "package.json").write_text(json.dumps({"scripts": {"build": "node build.js"}}))
    (root / "build.js").write_text(BUILD_JS)
    (root / "src").mkdir()
    (root / "src" / "handlers.ts").write_text("export const entrypoint = () => null;\n")
    old = (root / "src" / "handlers.ts").stat().st_mtime - 60
    os.utime(root / "src" / "handlers.ts", (old, old))
    (root / "node_modules").mkdir()  # no npm marker: installed by another tool, not reinstalled
    (root / "FAIL").write_text("")
    spec = FunctionSpec("TypeFunction", "dist/handlers.entrypoint", root, runtime="nodejs20.x")
    return NodeRuntime(spec, root, RuntimeOptions())


def test_a_failed_build_is_built_again_until_it_succeeds(tmp_path: Path) -> None:
    runtime = _project(tmp_path)
    with pytest.raises(BuildFailed):
        runtime.prepare()
    # the failed build's output, newer than src/
    assert (tmp_path / "dist" / "handlers.js").is_file()
    assert failed_build_marker(tmp_path).exists()
    with pytest.raises(BuildFailed):  # built again, not run as if fresh
        runtime.prepare()

    (tmp_path / "FAIL").unlink()
    runtime.prepare()
    assert not failed_build_marker(tmp_path).exists()
    assert not any(tmp_path.glob("*failed*"))  # the memory lives outside the project
    assert not runtime._needs_build()
