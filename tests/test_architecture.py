"""The one rule that carries the architecture: nothing outside cfn_debug.app imports textual."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tui" / "cfn_debug"


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_engine_modules_never_import_textual() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).parts[0] == "app":
            continue
        if any(
            name == "textual" or name.startswith("textual.") for name in _imported_modules(path)
        ):
            offenders.append(str(path.relative_to(PACKAGE)))
    assert offenders == [], f"textual imported outside cfn_debug/app: {offenders}"


def test_importing_the_engine_does_not_load_textual_at_runtime() -> None:
    engine = [
        "cfn_debug."
        + ".".join(p.with_suffix("").relative_to(PACKAGE).parts).removesuffix(".__init__")
        for p in PACKAGE.rglob("*.py")
        if p.relative_to(PACKAGE).parts[0] not in ("app", "demo")
    ]
    code = (
        "import importlib, sys\n"
        f"for m in {sorted(engine)!r}:\n"
        "    importlib.import_module(m)\n"
        "print('textual' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
