"""A failed ``npm ci`` is reported with npm's own reason, not the tail of its output.

Published TypeScript types ship a package-lock.json out of step with their package.json (the
org-formation providers do): ``npm ci`` then prints why, followed by its whole usage text, and
npm warns about the project's .npmrc on every command. The one-line error names the reason.
Offline: the one dependency is a ``file:`` package beside the project.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cfn_debug.endpoint.runtimes.base import BuildFailed, RuntimeOptions
from cfn_debug.endpoint.runtimes.node import NodeRuntime
from cfn_debug.endpoint.template import FunctionSpec

pytestmark = pytest.mark.skipif(
    shutil.which("npm") is None or shutil.which("node") is None, reason="needs node and npm"
)


def test_npm_ci_on_a_stale_lockfile_says_so(tmp_path: Path) -> None:
    (tmp_path / "dep").mkdir()
    (tmp_path / "dep" / "package.json").write_text(json.dumps({"name": "dep", "version": "1.0.0"}))
    package = {"name": "p", "version": "1.0.0", "dependencies": {"dep": "file:dep"}}
    (tmp_path / "package.json").write_text(json.dumps(package))
    lock = {
        "name": "p",
        "version": "1.0.0",
        "lockfileVersion": 3,
        "requires": True,
        "packages": {"": {"name": "p", "version": "1.0.0"}},
    }
    (tmp_path / "package-lock.json").write_text(json.dumps(lock))
    (tmp_path / ".npmrc").write_text("optional = false\n")  # npm warns about it on every command
    spec = FunctionSpec("TypeFunction", "dist/handlers.entrypoint", tmp_path, runtime="nodejs20.x")
    runtime = NodeRuntime(spec, tmp_path, RuntimeOptions())

    with pytest.raises(BuildFailed) as raised:
        runtime.prepare()

    message = str(raised.value)
    assert "npm ci failed" in message
    assert "package.json and package-lock.json" in message  # npm's reason
    assert "Missing: dep@1.0.0 from lock file" in message
    assert "--install-strategy" not in message  # npm's usage text
    assert "npm warn" not in message
    assert not (tmp_path / "node_modules").exists()
