"""The project's layers: every module imports, and no module imports itself back.

The graph is read with :mod:`ast` from every module of ``arena`` and ``bots``: each
``import`` and ``from … import`` of a project module is an edge, wherever it stands
(at the top, under ``if TYPE_CHECKING:``, inside a function): a circle that only type
checking or a late import hides is still a circle between layers.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("arena", "bots")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    """Every module of the project by dotted name (generated code left out)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "_proto" not in path.parts:
                found[_module_name(path)] = path
    return found


def _imported(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The dotted names an import statement names (for ``from a import b``: ``a.b`` as
    well as ``a``: the caller keeps those that are modules)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        anchor = module.split(".")
        if not is_package:
            anchor = anchor[:-1]
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, *([base] if base else [])])
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module → the project modules it imports (the most specific name that is one)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = _imported(node, name, is_package)
            submodules = [n for n in names[1:] if n in modules]
            if isinstance(node, ast.ImportFrom) and submodules:
                edges.update(submodules)
            else:
                edges.update(n for n in names if n in modules)
        edges.discard(name)
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph (its modules in order, the first repeated at the end)."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(node: str) -> list[str] | None:
        path.append(node)
        on_path.add(node)
        for target in sorted(graph.get(node, ())):
            if target in on_path:
                return [*path[path.index(target) :], target]
            if target not in done:
                cycle = visit(target)
                if cycle is not None:
                    return cycle
        path.pop()
        on_path.discard(node)
        done.add(node)
        return None

    for start in sorted(graph):
        if start not in done:
            cycle = visit(start)
            if cycle is not None:
                return cycle
    return None


MODULES = project_modules()


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_imports(module: str) -> None:
    importlib.import_module(module)


def test_the_project_import_graph_has_no_circle() -> None:
    cycle = find_cycle(import_graph(MODULES))
    assert cycle is None, "import circle: " + " -> ".join(cycle or ())


def test_the_graph_sees_every_kind_of_import() -> None:
    """The checker itself: a circle through a late import, a type-only import and a
    relative import is found."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from arena.store import Store\n"
        "def f():\n    import arena.metrics\n"
        "from . import match\n"
    )
    tree = ast.parse(source)
    names = [n for node in ast.walk(tree) for n in _imported(node, "arena.cards", False)]
    assert {"arena.store.Store", "arena.metrics", "arena.match"} <= set(names)
