"""The architecture: the import-linter contracts of pyproject.toml hold (the layers; nothing
outside cfn_debug.app imports textual), every module has a layer, the engine never loads textual,
no module is over 600 lines, and the few imports inside functions each say why they wait."""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tui" / "cfn_debug"


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


def test_the_import_linter_contracts_hold() -> None:
    """`lint-imports` (import-linter) on this tree: any broken contract fails, with its report."""
    lint = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tui")}
    out = subprocess.run(
        [str(lint), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "0 broken" in out.stdout


def test_every_module_has_a_layer() -> None:
    """A new top-level module or package must be placed in the layers contract."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["type"] == "layers")["layers"]
    named = {name for layer in layers for name in re.split(r"[|:]", layer)}
    named = {name.strip().removeprefix("cfn_debug.") for name in named}
    found = {
        path.stem if path.is_file() else path.name
        for path in PACKAGE.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").exists()
    }
    # a package may instead be layered module by module (cfn_debug.hooks): then every module
    layered_by_module = {name.partition(".")[0] for name in named if "." in name}
    for package in layered_by_module:
        found.discard(package)
        found |= {
            f"{package}.{path.stem}"
            for path in (PACKAGE / package).glob("*.py")
            if path.stem != "__init__"
        }
    assert sorted(found - named) == []


def test_no_import_cycle_even_counting_imports_inside_functions() -> None:
    """Importing a.b.c runs a/__init__ and a/b/__init__ first: an import inside a function that
    closes a circle through a package's __init__ fails at run time when the other end is
    imported first (the static graph of bench/structure.py, every import statement counted)."""
    spec = importlib.util.spec_from_file_location("structure", ROOT / "bench" / "structure.py")
    assert spec is not None and spec.loader is not None
    structure = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(structure)
    _found, _runtime, every, back = structure.graphs(ROOT / "tui")
    assert structure.cycles(every) == []
    assert sorted(set(back)) == []


#: The most imports cfn_debug may hold inside functions (each one says why it waits).
MAX_IMPORTS_INSIDE_FUNCTIONS = 40


def _engine_and_ui_files() -> list[Path]:
    """cfn_debug's own modules (the bundled demo's handler code is the user's kind of code)."""
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if not {"demo", "src"} <= set(path.relative_to(PACKAGE).parts)
    ]


def _imports_inside_functions(path: Path) -> list[ast.stmt]:
    found: list[ast.stmt] = []

    def walk(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if inside and isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(child)
            walk(child, inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)), False)
    return found


def _says_why(lines: list[str], node: ast.stmt) -> bool:
    """A ``# lazy: <why>`` on the import's own lines, in the comment block or on the ``try:``
    just above it, or on the import it directly follows (a block of imports for one reason says
    it once)."""
    last = node.end_lineno or node.lineno
    if any("# lazy:" in line for line in lines[node.lineno - 1 : last]):
        return True
    row = node.lineno - 2
    while row >= 0 and lines[row].strip().startswith(("#", "from ", "import ", ")", "try:")):
        if "# lazy:" in lines[row]:
            return True
        row -= 1
    return False


def test_every_import_inside_a_function_says_why_it_waits() -> None:
    """An import inside a function is a deliberate lazy one (start-up time, or code that runs in
    the handler's own process), and says so: ``# lazy: <why>``."""
    silent, waiting = [], 0
    for path in _engine_and_ui_files():
        lines = path.read_text(encoding="utf-8").splitlines()
        found = _imports_inside_functions(path)
        waiting += len(found)
        silent += [
            f"{path.relative_to(PACKAGE)}:{node.lineno}"
            for node in found
            if not _says_why(lines, node)
        ]
    assert silent == []
    # Few: a heavy library sits behind one import of the module that imports it at its top.
    assert waiting <= MAX_IMPORTS_INSIDE_FUNCTIONS


def test_no_module_is_over_600_lines() -> None:
    long = {
        str(path.relative_to(PACKAGE)): count
        for path in _engine_and_ui_files()
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}


_OPENS = """
import sys
from cfn_debug import cli
code = cli.main(sys.argv[1:])
print(sorted(m for m in sys.modules if m.startswith("cfn_debug.demo")))
"""


@pytest.mark.parametrize(
    ("project", "demo_loaded"),
    [("tests/aws/projects/table-note", False), ("tui/cfn_debug/demo", True)],
)
def test_only_the_demo_project_loads_the_demo_policy(
    tmp_path: Path, project: str, demo_loaded: bool
) -> None:
    """The demo is a request policy given when its project opens: `run` on any other project
    never imports cfn_debug.demo's modules (the endpoint URL is dead: the workspace opens, the
    invoke fails, exit 2)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "tui"),
        "NO_COLOR": "1",
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "CFN_DEBUG_DEMO_STATE": str(tmp_path / "demo"),
    }
    event = ROOT / "sample_events" / "read.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _OPENS,
            "run",
            "--project",
            str(ROOT / project),
            str(event),
            "--endpoint",
            "http://127.0.0.1:9",
            "--no-journal",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    loaded = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    assert ("cfn_debug.demo.policy" in loaded) is demo_loaded, (loaded, proc.stderr[-2000:])
    if not demo_loaded:  # the package's __init__ (the demo's type name) and nothing else
        assert loaded == "['cfn_debug.demo']", loaded
