"""No import cycle inside cqlindex/: the packages form layers, each importing only those below.

Every import counts, also one inside a function or under ``TYPE_CHECKING``: a cycle hidden in a
function is still two modules that cannot be read, tested or moved one without the other.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import cqlindex

ROOT = Path(cqlindex.__file__).parent


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the cqlindex modules it imports (``from P import m`` counts ``P`` and ``P.m`` if a module)."""
    files = {module_name(p, root): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{anchor}.{base}" if base else anchor
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            for target in targets:
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != name and target != "cqlindex":
                    graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path that ends where it starts, or None (depth-first search, three colours)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_no_import_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_walk_sees_a_cycle(tmp_path: Path) -> None:
    """The walk itself can fail: two modules importing each other, one of them inside a function."""
    package = tmp_path / "cqlindex"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from cqlindex.b import g\n")
    (package / "b.py").write_text("def g():\n    from cqlindex import a\n")
    graph = import_graph(package)
    assert graph["cqlindex.a"] == {"cqlindex.b"} and graph["cqlindex.b"] == {"cqlindex.a"}
    assert find_cycle(graph) == ["cqlindex.a", "cqlindex.b", "cqlindex.a"]
    (package / "b.py").write_text("def g():\n    pass\n")
    assert find_cycle(import_graph(package)) is None


@pytest.mark.parametrize("module", ["cqlindex.evaluate.core", "cqlindex.exec.run", "cqlindex.plan.planner",
                                    "cqlindex.query.prepare", "cqlindex.api", "cqlindex.cli"])
def test_an_entry_module_imports_first_in_a_fresh_interpreter(module: str) -> None:
    """What one module registers for another (a family's evaluation, say) must not hang on which
    was imported first: the evaluator imported before the parser once refused similarposition."""
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
