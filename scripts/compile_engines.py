"""Compile the rules engines with mypyc into build/compiled/ (``make compile``).

The modules compiled are those ``arena/compiled.py`` lists (the one place that says so),
from a snapshot of the sources taken first: the manifest written beside the extensions
(the SHA-256 of every compiled source, the Python they are built for, the mypy that built
them) describes exactly what was compiled, even if a source is edited meanwhile. The C
files compile in parallel on every core; the result replaces ``build/compiled`` only once
complete, under a lock (two builds at once take turns).

Nothing to do when the compiled engines already match the sources. Without a C compiler,
mypyc or Python's headers: one line saying so, exit status 0, and the interpreted engines
run (the install never fails for this). A source mypyc refuses is an error of the project:
mypyc's messages, exit status 1.

    python scripts/compile_engines.py [--force] [--jobs N]
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import importlib.util
import json
import os
import re
import shutil
import sys
import sysconfig
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"
WORK = BUILD / "compile-work"
"""Scratch space: the source snapshot, mypyc's C files and the compiler's objects."""


def load_plan() -> ModuleType:
    """``arena/compiled.py`` by path: importing the package would load engines."""
    spec = importlib.util.spec_from_file_location("_arena_compiled", ROOT / "arena/compiled.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def missing_toolchain() -> str | None:
    """What this machine lacks to compile, or None."""
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed (pip install mypy)"
    if importlib.util.find_spec("setuptools") is None:
        return "setuptools is not installed"
    include = sysconfig.get_paths().get("include", "")
    if not (Path(include) / "Python.h").is_file():
        return f"Python's C headers are missing ({include}/Python.h)"
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.sysconfig import customize_compiler

    compiler: Any = new_compiler()
    customize_compiler(compiler)
    command = compiler.compiler_so[0] if getattr(compiler, "compiler_so", None) else "cc"
    if shutil.which(command) is None:
        return f"no C compiler ({command} not found)"
    return None


def snapshot(destination: Path) -> None:
    """Copy the Python sources (and the typing config) that mypyc reads."""
    if destination.exists():
        shutil.rmtree(destination)
    for package in ("arena", "bots"):
        shutil.copytree(
            ROOT / package,
            destination / package,
            ignore=lambda folder, names: [
                name
                for name in names
                if not (Path(folder, name).is_dir() or name.endswith((".py", ".pyi", "py.typed")))
                or name in ("__pycache__", "node_modules")
            ],
        )
    shutil.copy2(ROOT / "pyproject.toml", destination / "pyproject.toml")


@contextlib.contextmanager
def inside(folder: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def parallel_compile(compile_one: Callable[..., list[str]], jobs: int) -> Callable[..., list[str]]:
    """A compiler's ``compile`` that compiles its sources on ``jobs`` threads (each source
    is a compiler process of its own)."""

    def compile_all(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            objects = pool.map(lambda source: compile_one([source], *args, **kwargs), sources)
            return [name for names in objects for name in names]

    return compile_all


def _parallel_build_ext(jobs: int) -> Any:
    """setuptools' ``build_ext`` compiling each extension's C files on ``jobs`` threads."""
    from setuptools.command.build_ext import build_ext

    class ParallelBuildExt(build_ext):  # type: ignore[misc]
        def build_extension(self, extension: Any) -> None:
            self.compiler.compile = parallel_compile(self.compiler.compile, jobs)
            try:
                super().build_extension(extension)
            finally:
                del self.compiler.compile  # the compiler class's own again

    return ParallelBuildExt


def build(plan: ModuleType, modules: tuple[str, ...], jobs: int, output: Path) -> None:
    """mypyc's C for ``modules`` (from the snapshot), compiled into ``output``."""
    from mypyc.build import mypycify
    from setuptools import Distribution

    source = WORK / "src"
    paths = [plan.source_of(module, Path(".")).as_posix() for module in modules]
    # Only the engine modules must type-check here (the rest of the project is mypy's job
    # in `make test`): an image or a machine without the typing extras still compiles.
    options = ["--follow-imports=silent", "--ignore-missing-imports"]
    os.environ["MYPY_CACHE_DIR"] = str(WORK / "mypy-cache")
    with inside(source):
        extensions = mypycify(
            [*options, *paths],
            opt_level="3",
            multi_file=True,
            group_name=plan.GROUP_MODULE.removesuffix("__mypyc"),
            target_dir=str(WORK / "c"),
        )
        mend_weak_references(WORK / "c")
        command = _parallel_build_ext(jobs)(
            Distribution({"name": "arena-engines", "ext_modules": extensions})
        )
        command.build_lib = str(output)
        command.build_temp = str(WORK / "objects")
        command.ensure_finalized()
        command.run()


WEAK_LIST_SLOT = re.compile(
    r"^ *Py_(?:VISIT|CLEAR)\(\*\(\(PyObject \*\*\)\(\(char \*\)self \+ sizeof\(PyObject \*\) "
    r"\+ sizeof\(\w+\)\)\)\);\n",
    re.MULTILINE,
)
"""A class's ``__weakref__`` slot (right after its ``__dict__``) visited or cleared as if
it owned a reference."""
DEALLOC_UNTRACK = re.compile(
    r"^(\w+_dealloc\(\w+ \*self\)\n\{\n(?:(?!^\}).*\n)*?)( *PyObject_GC_UnTrack\(self\);\n)",
    re.MULTILINE,
)
CLEAR_WEAK_REFERENCES = (
    "    if (Py_TYPE(self)->tp_weaklistoffset) PyObject_ClearWeakRefs((PyObject *)self);\n"
)


def mend_weak_references(c_files: Path) -> None:
    """Make weak references to compiled objects safe, as CPython's own classes do.

    mypyc gives a class that keeps a ``__dict__`` (one that interpreted classes may
    subclass, as the engines' states) a ``__weakref__`` slot, but its traverse and clear
    functions treat the slot as an owned reference, and its dealloc never clears the
    weak references: once such an object is freed, a weak reference to it (``weakref``,
    a ``WeakValueDictionary``, a test library's cache) crashes the interpreter. Here the
    slot is left to CPython (it holds no reference), and dealloc clears the weak
    references first, as ``subtype_dealloc`` does.
    """
    for path in c_files.glob("*.c"):
        text = path.read_text(encoding="utf-8")
        mended = WEAK_LIST_SLOT.sub("", text)
        mended = DEALLOC_UNTRACK.sub(lambda m: m[1] + m[2] + CLEAR_WEAK_REFERENCES, mended)
        if mended != text:
            path.write_text(mended, encoding="utf-8")


def write_manifest(plan: ModuleType, modules: tuple[str, ...], output: Path) -> None:
    from mypy.version import __version__ as mypy_version

    source = WORK / "src"
    group = next(output.glob(plan.GROUP_MODULE + ".*"))
    manifest = {
        "format": plan.MANIFEST_FORMAT,
        "modules": {
            module: {
                "source": plan.source_of(module, Path(".")).as_posix(),
                "sha256": plan.source_hash(plan.source_of(module, source)),
            }
            for module in modules
        },
        "group": group.name,
        "python": plan.python_build(),
        "mypy": mypy_version,
    }
    (output / plan.MANIFEST_NAME).write_text(json.dumps(manifest, indent=2) + "\n")


def replace(output: Path, target: Path) -> None:
    """Put the finished build in place (a running process keeps the files it loaded)."""
    old = target.with_name(target.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        target.rename(old)
    output.rename(target)
    if old.exists():
        shutil.rmtree(old)


@contextlib.contextmanager
def locked() -> Iterator[None]:
    BUILD.mkdir(exist_ok=True)
    with open(BUILD / "compile.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def up_to_date(plan: ModuleType, target: Path) -> bool:
    """Current for these sources and this Python, built by the mypy installed now."""
    if not plan.check(ROOT, target).compiled:
        return False
    from mypy.version import __version__ as mypy_version

    manifest = json.loads((target / plan.MANIFEST_NAME).read_text())
    return bool(manifest.get("mypy") == mypy_version)


def shown(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="compile even if current")
    parser.add_argument(
        "--jobs", type=int, default=len(os.sched_getaffinity(0)), help="parallel compilers"
    )
    args = parser.parse_args(argv)
    plan = load_plan()
    target = plan.compiled_dir(ROOT)
    lacking = missing_toolchain()
    if lacking:
        print(f"compiled engines not built: {lacking}; the interpreted engines run")
        return 0
    from setuptools.errors import BaseError

    with locked():
        if not args.force and up_to_date(plan, target):
            print(f"compiled engines are current ({shown(target)})")
            return 0
        started = time.monotonic()
        snapshot(WORK / "src")
        modules = plan.engine_modules(WORK / "src")
        output = target.with_name(target.name + ".new")
        if output.exists():
            shutil.rmtree(output)
        try:
            build(plan, modules, max(1, args.jobs), output)
        except SystemExit as failure:  # mypyc's way of refusing a source (messages shown)
            print(f"compiling the engines failed (mypyc: {failure.code})", file=sys.stderr)
            return 1
        except BaseError as failure:  # the C compiler's or linker's (messages shown)
            print(f"compiling the engines failed: {failure}", file=sys.stderr)
            return 1
        write_manifest(plan, modules, output)
        replace(output, target)
    print(
        f"compiled {len(modules)} engine modules into {shown(target)} "
        f"in {time.monotonic() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
