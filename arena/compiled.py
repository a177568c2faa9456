"""Compiled engines: the rules modules built by mypyc, used only while they match the sources.

``scripts/compile_engines.py`` (``make compile``, run by the install step and by ``make
test``) compiles the modules :func:`engine_modules` lists, from the same typed sources,
into ``build/compiled/`` with a manifest: the SHA-256 of every compiled source, the
Python the extensions were built for, the mypy that built them. That directory is on no
import path: the only way in is :func:`install`, which ``arena/__init__.py`` calls before
any engine module is imported. It puts a finder first on ``sys.meta_path`` when

- ``ARENA_ENGINES`` is unset, empty or ``auto`` (``python`` keeps the interpreted modules),
- the manifest lists exactly today's engine modules, for this very Python, and
- every listed source is byte for byte the one compiled.

Then every engine module (and mypyc's shared library) loads from ``build/compiled/``
(``$ARENA_COMPILED_DIR`` where the package is installed apart from them: the image);
otherwise none does: never a mix of compiled and interpreted engines, and an edited
source is never shadowed by a stale build. :func:`engines` says which engines run and
why (``arena bench`` prints :func:`engines_description`). This module uses the standard
library only: the build script loads it by path, without importing the package.
"""

from __future__ import annotations

import copyreg
import dataclasses
import functools
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = [
    "ENGINES_VARIABLE",
    "GROUP_MODULE",
    "MANIFEST_NAME",
    "Engines",
    "build_target",
    "check",
    "compiled_dir",
    "engine_modules",
    "engines",
    "engines_description",
    "install",
    "python_build",
    "rebuild_dataclass",
    "source_hash",
    "source_of",
    "source_root",
]

ENGINES_VARIABLE = "ARENA_ENGINES"
"""``python``: interpreted engines; unset, empty or ``auto``: compiled ones when current."""
COMPILED_DIR_VARIABLE = "ARENA_COMPILED_DIR"
"""Where the compiled engines are, when not ``build/compiled`` beside the package (an image)."""
MANIFEST_NAME = "manifest.json"
MANIFEST_FORMAT = 2
"""2: built with weak references mended (``scripts/compile_engines.py``); a build of
format 1 is rebuilt."""
GROUP_MODULE = "arena_engines__mypyc"
"""mypyc's shared library: the code of every compiled module, their shims import it."""

_SHARED_MODULES = (
    "arena.cards",
    "arena.games.base",
    "arena.games.climbing",
    "arena.games.lazy",
    "arena.games.options",
    "arena.games.views",
)
_DRIVER_MODULES = ("arena.deal_loop", "bots.simple", "bots.determinize.assign")
"""The match driver's loop over decisions, the simplest policies (simulations and
benchmarks run them) and the search bot's dealing of hidden cards, compiled with the
engines they call."""
_GAME_PACKAGES = ("arena.games.guandan", "arena.games.sanfu", "arena.games.shengji")
_NOT_COMPILED = frozenset({"__init__", "text"})
"""A game package's ``__init__`` (registry glue, subclassed by variant) and ``text``
(readable event phrases for logs, off the hot path) stay interpreted."""


@dataclasses.dataclass(frozen=True)
class Engines:
    """Which engines this process runs, and why."""

    compiled: bool
    reason: str
    """Why the interpreted engines run (empty when compiled)."""

    def describe(self) -> str:
        """``compiled (mypyc)`` or ``interpreted: <reason>``."""
        return "compiled (mypyc)" if self.compiled else f"interpreted: {self.reason}"


def source_root() -> Path:
    """The directory holding the ``arena`` package (the checkout, or site-packages)."""
    return Path(__file__).parent.parent


def compiled_dir(root: Path | None = None) -> Path:
    """``$ARENA_COMPILED_DIR``, or ``build/compiled`` beside the package."""
    override = os.environ.get(COMPILED_DIR_VARIABLE)
    if override:
        return Path(override)
    return (root or source_root()) / "build" / "compiled"


def engine_modules(root: Path | None = None) -> tuple[str, ...]:
    """Every compiled module: the shared engine modules, each game package's modules but
    its ``__init__`` and ``text`` (a module added to a game is compiled too), then the
    match driver's loop and the simplest policies."""
    base = root or source_root()
    found: list[str] = []
    for package in _GAME_PACKAGES:
        folder = base.joinpath(*package.split("."))
        found += [
            f"{package}.{path.stem}"
            for path in sorted(folder.glob("*.py"))
            if path.stem not in _NOT_COMPILED
        ]
    return (*_SHARED_MODULES, *found, *_DRIVER_MODULES)


def source_of(module: str, root: Path | None = None) -> Path:
    """The source file of an engine module."""
    return (root or source_root()).joinpath(*module.split(".")).with_suffix(".py")


def build_target(module: str) -> str:
    """The compiled file of ``module``, relative to the compiled directory."""
    return "/".join(module.split(".")) + _ext_suffix()


def python_build() -> dict[str, str]:
    """The Python an extension is built for (compiled engines load only in the same one)."""
    return {
        "implementation": sys.implementation.name,
        "version": _python_version(),
        "ext_suffix": _ext_suffix(),
    }


def _python_version() -> str:
    return ".".join(str(part) for part in sys.version_info[:3])


def _ext_suffix() -> str:
    return importlib.machinery.EXTENSION_SUFFIXES[0]


def source_hash(path: Path) -> str:
    """The SHA-256 of a file's bytes (hex)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _display(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def check(root: Path | None = None, directory: Path | None = None) -> Engines:
    """Whether the compiled engines in ``directory`` may run for the sources under ``root``
    (not looking at ``ARENA_ENGINES``): the manifest must list exactly today's modules,
    for this Python, each source unchanged and each compiled file present."""
    root = root or source_root()
    directory = directory or compiled_dir(root)
    where = _display(directory, root)
    manifest_path = directory / MANIFEST_NAME
    if not manifest_path.is_file():
        return Engines(False, f"no compiled engines in {where}; run make compile")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        listed: dict[str, Any] = manifest["modules"]
        built_for: dict[str, str] = manifest["python"]
        group: str = manifest["group"]
        if manifest["format"] != MANIFEST_FORMAT or not isinstance(listed, dict):
            raise ValueError("another manifest format")
    except (OSError, ValueError, KeyError, TypeError) as err:
        return Engines(False, f"{where}/{MANIFEST_NAME} is unreadable ({err}); run make compile")
    if built_for != python_build():
        return Engines(
            False,
            f"{where} was built for Python {built_for.get('version')} "
            f"({built_for.get('ext_suffix')}), this is {_python_version()} "
            f"({_ext_suffix()}); run make compile",
        )
    modules = engine_modules(root)
    if sorted(listed) != sorted(modules):
        changed = sorted(set(listed) ^ set(modules))
        return Engines(
            False,
            f"{where} compiled other modules ({', '.join(changed)} added or removed); "
            "run make compile",
        )
    for module in modules:
        source = source_of(module, root)
        try:
            same = source_hash(source) == listed[module]["sha256"]
        except (OSError, KeyError, TypeError):
            same = False
        if not same:
            return Engines(
                False,
                f"{where} is stale ({_display(source, root)} changed); run make compile",
            )
    for binary in [build_target(module) for module in modules] + [group]:
        if not (directory / binary).is_file():
            return Engines(False, f"{where} is incomplete ({binary} missing); run make compile")
    return Engines(True, "")


class _CompiledEngines(importlib.abc.MetaPathFinder):
    """Finds the engine modules (and mypyc's shared library) as extension modules in the
    compiled directory, ahead of the ordinary path finder."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None:
            return None
        loader = _EngineLoader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


class _EngineLoader(importlib.machinery.ExtensionFileLoader):
    """Loads a compiled engine module, then lets its dataclasses be pickled and copied as
    their interpreted selves are: rebuilt through their constructor (a compiled frozen
    dataclass refuses the attribute-by-attribute restore pickle and copy use)."""

    def exec_module(self, module: ModuleType) -> None:
        super().exec_module(module)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == module.__name__
                and dataclasses.is_dataclass(value)
            ):
                copyreg.pickle(value, _reduce_dataclass)


def _reduce_dataclass(value: Any) -> tuple[Any, ...]:
    made = [field for field in dataclasses.fields(value) if field.init]
    later = {
        field.name: getattr(value, field.name)
        for field in dataclasses.fields(value)
        if not field.init
    }
    return (
        rebuild_dataclass,
        (type(value), tuple(getattr(value, field.name) for field in made), later),
    )


def rebuild_dataclass(cls: type[Any], values: tuple[Any, ...], later: dict[str, Any]) -> Any:
    """A pickled or copied dataclass of a compiled engine module, made again."""
    value = cls(*values)
    for name, field_value in later.items():
        object.__setattr__(value, name, field_value)
    return value


@functools.cache
def install() -> Engines:
    """Load the engine modules compiled when allowed and current (once per process).

    Called by ``arena/__init__.py`` before any engine module is imported; the answer
    says which engines run and why.
    """
    choice = os.environ.get(ENGINES_VARIABLE, "")
    if choice == "python":
        return Engines(False, f"{ENGINES_VARIABLE}=python")
    if choice not in ("", "auto"):
        return Engines(False, f"{ENGINES_VARIABLE}={choice!r} is not a choice (auto or python)")
    root = source_root()
    status = check(root)
    if not status.compiled:
        return status
    modules = engine_modules(root)
    early = [module for module in modules if module in sys.modules]
    if early:
        return Engines(False, f"{early[0]} was imported before the compiled engines")
    directory = compiled_dir(root)
    manifest = json.loads((directory / MANIFEST_NAME).read_text(encoding="utf-8"))
    files = {module: directory / build_target(module) for module in modules}
    files[GROUP_MODULE] = directory / manifest["group"]
    finder = _CompiledEngines(files)
    sys.meta_path.insert(0, finder)
    try:  # the shared library first: if it cannot load, no engine module is compiled
        importlib.import_module(GROUP_MODULE)
    except ImportError as err:
        sys.meta_path.remove(finder)
        sys.modules.pop(GROUP_MODULE, None)
        return Engines(False, f"the compiled engines do not load ({err}); run make compile")
    return Engines(True, "")


def engines() -> Engines:
    """Which engines run in this process: the decision of :func:`install`, checked against
    the engine modules actually imported (each must be compiled, or none)."""
    decided = install()
    kinds = {
        module: _is_extension(sys.modules[module])
        for module in engine_modules()
        if module in sys.modules
    }
    if decided.compiled and not all(kinds.values()):
        odd = next(module for module, compiled in kinds.items() if not compiled)
        return Engines(False, f"mixed: {odd} runs interpreted beside compiled engines")
    if not decided.compiled and any(kinds.values()):
        odd = next(module for module, compiled in kinds.items() if compiled)
        return Engines(False, f"mixed: {odd} runs compiled ({decided.reason})")
    return decided


def engines_description() -> str:
    """One line for a report: ``compiled (mypyc)`` or ``interpreted: <why>``."""
    return engines().describe()


def _is_extension(module: ModuleType) -> bool:
    spec = getattr(module, "__spec__", None)
    return spec is not None and isinstance(spec.loader, importlib.machinery.ExtensionFileLoader)
