"""Layers use only the layers below them: the bot SDK never reaches the server, the
metrics never reach the store. Imports are read from the source with ``ast`` (every
import statement, including those inside functions and ``TYPE_CHECKING`` blocks) and
followed transitively through the project's own packages, a module's packages included
(Python runs them first).

The root package ``arena`` is the public facade (it re-exports the engines, the match
driver and replays), run before any ``arena`` module: what it reaches, every module
reaches at run time. The SDK's test follows it; the metrics' test looks at what the
metrics themselves use, so it does not."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("arena", "bots")
"""The project's packages: imports of anything else are not followed."""


def source_of(module: str) -> Path | None:
    """The file of a project module (a package's ``__init__.py``), or None."""
    base = ROOT.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def imported_by(module: str, path: Path) -> Iterator[str]:
    """The project modules one module imports, with the packages they live in."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                anchor = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{anchor}.{node.module}" if node.module else anchor
            else:
                base = node.module or ""
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        for name in names:
            parts = name.split(".")
            if parts[0] not in PACKAGES:
                continue
            for end in range(1, len(parts) + 1):  # a module imports its packages first
                prefix = ".".join(parts[:end])
                if source_of(prefix) is not None:
                    yield prefix


def reachable(start: list[str], facade: bool = True) -> dict[str, str]:
    """Every project module reachable from ``start``, with the module that imports it;
    through the root facade ``arena`` too unless ``facade`` is False."""
    seen = {module: "" for module in start}
    todo = list(start)
    while todo:
        module = todo.pop()
        path = source_of(module)
        assert path is not None, module
        for target in imported_by(module, path):
            if target == "arena" and not facade:
                continue
            if target not in seen:
                seen[target] = module
                todo.append(target)
    return seen


def chain(seen: dict[str, str], module: str) -> str:
    """How ``module`` was reached: ``a -> b -> c``."""
    links = [module]
    while seen[links[-1]]:
        links.append(seen[links[-1]])
    return " -> ".join(reversed(links))


def modules_under(package: str) -> list[str]:
    folder = ROOT.joinpath(*package.split("."))
    return sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in folder.rglob("*.py")
    )


def offending(start: list[str], forbidden: str, facade: bool = True) -> list[str]:
    seen = reachable(start, facade)
    return [
        chain(seen, module)
        for module in sorted(seen)
        if module == forbidden or module.startswith(forbidden + ".")
    ]


def test_the_walk_finds_imports_of_every_form() -> None:
    seen = reachable(["arena.server.play"])
    assert {"arena.server", "arena.server.session", "arena.protocol", "arena.store"} <= set(seen)
    assert "arena.games.guandan" in reachable(["arena.games"])  # a package's own imports


def test_the_bot_sdk_never_imports_the_server() -> None:
    sdk = modules_under("arena.client")
    assert "arena.client.runner" in sdk
    assert "arena" in reachable(sdk)  # the facade, run first
    assert offending(sdk, "arena.server") == []


def test_the_metrics_never_import_the_store() -> None:
    assert offending(["arena.metrics"], "arena.store", facade=False) == []
