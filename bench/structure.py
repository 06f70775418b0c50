"""Print the structure figures of a cfn_debug tree: import cycles, imports that run back up a
layer, imports inside functions, the largest files.

    python bench/structure.py [TUI_DIR]    (default: this checkout's tui/)

Imports are read with ``ast`` (nothing is imported). "Run-time" imports are those executed when
a module is imported (module level, outside ``if TYPE_CHECKING``); "deferred" ones sit inside a
function. A cycle is a strongly connected set of modules (more than one) in the graph of run-time
imports; with the deferred imports added, the count of cycles a reader meets when following
calls. Layers are those of the import-linter contract in pyproject.toml.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path


def _contract_layers() -> list[list[str]]:
    """The layers of the first import-linter "layers" contract in pyproject.toml, top first."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    config = tomllib.loads(
        (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    )
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c.get("type") == "layers")
    return [
        [name.strip().removeprefix("cfn_debug.") for name in re.split(r"[|:]", layer)]
        for layer in layers
    ]


#: Top layer first; a module belongs to the entry its name starts with (longest wins).
LAYERS: list[list[str]] = _contract_layers()


def modules(root: Path) -> Iterator[tuple[str, Path]]:
    for path in sorted((root / "cfn_debug").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if "src" in parts and "demo" in parts:  # the demo's own handler package
            continue
        name = ".".join(parts).removesuffix(".__init__")
        yield name, path


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(name: str, path: Path, known: set[str]) -> Iterator[tuple[str, str]]:
    """(imported cfn_debug module, "runtime" | "deferred" | "typing") for each import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def targets(node: ast.Import | ast.ImportFrom) -> Iterator[str]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
            return
        base = node.module or ""
        if node.level:
            anchor = package.split(".")
            anchor = anchor[: len(anchor) - node.level + 1]
            base = ".".join([*anchor, base] if base else anchor)
        for alias in node.names:
            full = f"{base}.{alias.name}"
            yield full if full in known else base

    def walk(node: ast.AST, kind: str) -> Iterator[tuple[str, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                for target in targets(child):
                    if target.split(".")[0] == "cfn_debug":
                        while target not in known and "." in target:
                            target = target.rpartition(".")[0]
                        if target in known and target != name:
                            yield target, kind
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                yield from walk(child, "deferred" if kind == "runtime" else kind)
            elif isinstance(child, ast.If) and _is_type_checking(child):
                yield from walk(child, "typing")
            else:
                yield from walk(child, kind)

    yield from walk(tree, "runtime")


def deferred_count(path: Path) -> int:
    """Import statements inside functions (any target)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            count += sum(
                isinstance(inner, ast.Import | ast.ImportFrom)
                for inner in ast.walk(node)
                if inner is not node
            )
    # a nested function's imports are counted by each enclosing function: count them once
    nested = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if inner is not node and isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
                    nested += sum(
                        isinstance(x, ast.Import | ast.ImportFrom) for x in ast.walk(inner)
                    )
    return count - nested


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def layer_of(module: str) -> int | None:
    short = module.removeprefix("cfn_debug.")
    best: tuple[int, int] | None = None
    for level, names in enumerate(LAYERS):
        for prefix in names:
            matches = short == prefix or short.startswith(prefix + ".")
            if matches and (best is None or len(prefix) > best[1]):
                best = (level, len(prefix))
    return None if best is None else best[0]


def graphs(
    root: Path,
) -> tuple[dict[str, Path], dict[str, set[str]], dict[str, set[str]], list[str]]:
    """(modules, run-time import graph, graph counting imports inside functions, imports running
    back up a layer) of the package under ``root``."""
    found = dict(modules(root))
    known = set(found)
    runtime: dict[str, set[str]] = {name: set() for name in found}
    every: dict[str, set[str]] = {name: set() for name in found}
    back: list[str] = []
    for name, path in found.items():
        for target, kind in imports(name, path, known):
            if kind == "typing":
                continue
            # importing a.b.c runs the __init__ of a.b first: an edge to it as well
            reached = {target}
            parent = target.rpartition(".")[0]
            while parent and parent != "cfn_debug":
                if parent in known and parent != name and not name.startswith(parent + "."):
                    reached.add(parent)
                parent = parent.rpartition(".")[0]
            every[name] |= reached
            if kind == "runtime":
                runtime[name] |= reached
            # a package's __init__ and its own modules are one room
            if target.startswith(name + ".") or name.startswith(target + "."):
                continue
            mine, theirs = layer_of(name), layer_of(target)
            if mine is not None and theirs is not None and theirs < mine:
                back.append(f"{name} -> {target} ({kind})")
    return found, runtime, every, back


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "tui"
    found, runtime, every, back = graphs(root)
    run_cycles = cycles(runtime)
    all_cycles = cycles(every)
    deferred = sum(deferred_count(path) for path in found.values())
    sizes = sorted(
        ((len(p.read_text(encoding="utf-8").splitlines()), name) for name, p in found.items()),
        reverse=True,
    )
    print(f"modules: {len(found)}")
    print(f"run-time import cycles: {len(run_cycles)}")
    for each in run_cycles:
        print("   ", " <-> ".join(each))
    print(f"cycles counting imports inside functions: {len(all_cycles)}")
    for each in all_cycles:
        print("   ", " <-> ".join(each))
    print(f"imports running back up a layer: {len(set(back))}")
    for each in sorted(set(back)):
        print("   ", each)
    print(f"import statements inside functions: {deferred}")
    print("largest files: " + ", ".join(f"{n} {lines}" for lines, n in sizes[:6]))
    print(f"files over 600 lines: {sum(lines > 600 for lines, _ in sizes)}")


if __name__ == "__main__":
    main()
